"""The card site kept in memory under `make serve`: one edited card reloaded alone, its snippet re-run
on a snippet server that stays up, and every problem kept with the page it belongs to.

`make build` loads the whole site strictly (CardSite.load) and stops at the first problem. Serve
cannot stop: it loads what it can, keeps each card's last version that loaded cleanly for the rest
of the site, and records every problem as a `Problem` of the page that shows it (the card's page;
"" for the whole site). Nothing here knows MkDocs; eqcards/live/livebuild.py turns pages into HTML.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..cards.load import cross_check, former_id_conflicts, load_parts, parse_card
from ..cards.model import Card, Part
from ..cards.releases import ReleaseBook, load_releases
from ..cards.seeds import read_index
from ..core.config import Settings
from ..core.errors import CardError, CardErrors
from ..incode.libraries import REQUIREMENTS, heavy_pins
from ..incode.problems import in_code_problems
from ..pages.comparisons import load_comparisons
from ..pages.numbers import load_numbers
from ..pages.site import CardSite
from ..snippets.cache import ResultCache
from ..snippets.determinism import run_twice
from ..snippets.forkclient import ForkServer
from ..snippets.jobs import SnippetJob, SnippetResult
from ..snippets.runner import run_snippet, run_snippets, snippet_server, verdict
from ..snippets.snippet_key import snippet_key
from ..typeset.latex import check_latex, page_formulas
from ..typeset.mathsvg import MathRenderer, prerender

SITE = ""  # the page key of problems that concern the whole site, not one page

_serving: CardSite | None = None


def serving() -> CardSite | None:
    """The site `make serve` holds between edits, for the MkDocs hook to render; None in a build."""
    return _serving


@dataclass(frozen=True)
class Problem:
    """Something `make build` would stop at, shown on its page and in the terminal."""

    page: str  # docs-relative page that shows it ("cards/kl-divergence.md"), or SITE
    text: str  # first line: "docs/cards/x.md:12: what is wrong"; a traceback may follow
    blocking: bool = True  # the page cannot be shown as its file now is (else: shown, problem above it)


@dataclass
class Edit:
    """What one batch of saved files did to the site, for the pages to follow."""

    pages: list[str] = field(default_factory=list)  # card pages to rebuild now ("cards/x.md")
    removed: list[str] = field(default_factory=list)  # card pages whose file is gone
    nearby: set[str] = field(default_factory=set)  # ids of cards whose pages may show the edited ones


class MemoMath(MathRenderer):
    """The build's MathJax renderer, with every SVG also kept in memory: serve typesets the same
    formulas again on every rebuilt page, and the disk cache costs a read and a checksum each."""

    def __init__(self, cache_dir: Path | None) -> None:
        super().__init__(cache_dir)
        self._memo: dict[tuple[str, bool], tuple[str, str]] = {}

    def typeset(self, latex: str, display: bool = True) -> tuple[str, str]:
        key = (latex, display)
        if key not in self._memo:
            self._memo[key] = super().typeset(latex, display)  # a formula that fails is not kept
        return self._memo[key]

    def warm_up(self) -> None:
        """Start MathJax now (over a second), not when the first new formula is typed."""
        self._raw("x", False)


class SnippetRunner:
    """Runs one snippet at a time on a snippet server started once for the session, through the
    build's cache: a snippet whose content (and helpers, and timeout) is cached is not run. A
    failure is not cached (as in a build) but remembered for the session, so that saving the
    card's prose does not run a failing (or hanging) snippet again; saving the snippet does."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cache = ResultCache(settings.cache_dir)
        self.server: ForkServer | None = None
        self._failed: dict[str, SnippetResult] = {}

    def start(self, jobs: Iterable[SnippetJob]) -> None:
        """Start the server in the background (numpy, scipy, matplotlib and the helpers load)."""
        self.close()
        self._failed = {}
        self.server = snippet_server(self.settings.snippets_dir, list(jobs))
        self.server.start()

    def run(self, job: SnippetJob) -> SnippetResult:
        snippets_dir = self.settings.snippets_dir
        key = snippet_key(job.snippet_path, snippets_dir, job.timeout) if job.snippet_path.is_file() else ""
        if key and (stored := self.cache.get(key)) is not None:
            cached = verdict(SnippetResult(job, ok=True, cached=True, **stored))
            if cached.ok:
                return cached
        if key in self._failed:
            return dataclasses.replace(self._failed[key], job=job, cached=True)
        if self.server is None:
            self.start([job])
        one_run = lambda job, folder: run_snippet(job, folder, self.server)  # noqa: E731
        result = (run_twice(one_run, job, snippets_dir) if self.settings.check_determinism
                  else one_run(job, snippets_dir))
        if result.ok and key:
            self.cache.put(key, result.payload())
        elif key:
            self._failed[key] = result
        return result

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None


class LiveSite:
    """The site as the files now are, kept between edits."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.math = MemoMath(settings.math_cache)
        self.runner = SnippetRunner(settings)
        self.site: CardSite | None = None
        self.parts: list[Part] = []
        self.seeds: set[str] = set()
        self.releases = ReleaseBook([], {})
        self.helpers: set[Path] = set()  # the helper modules in snippets/lib/, at load
        self._parsed: dict[str, tuple[tuple[int, int], Card | CardError]] = {}  # by file stem
        self._good: dict[str, Card] = {}  # each card's last version without a blocking problem
        self._latex: dict[str, tuple[Card, list[CardError]]] = {}
        self._checks: dict[str, list[Problem]] = {}  # by page: what loading and checking found
        self._runs: dict[str, Problem] = {}  # by page: its snippet's failure
        self._site_problems: list[Problem] = []

    # -- whole site -------------------------------------------------------------------------

    def load(self) -> None:
        """Read everything (topics, seeds, every card, numbers) and run or fetch every snippet.
        Problems are recorded, never raised; a topics file that does not load keeps the topics
        read before (there are none on the first load: then `site` stays None)."""
        global _serving
        settings = self.settings
        for cache_dir in (settings.cache_dir, settings.math_cache):
            ResultCache(cache_dir).sweep()
        self._site_problems = []
        try:
            self.parts = load_parts(settings.topics_file)
        except (CardError, CardErrors, OSError) as exc:
            self._site_problems.append(Problem(SITE, self._located(exc)))
            if not self.parts:
                self.site = _serving = None
                return
        self.seeds = read_index(settings.seed_index) if settings.seed_index.is_file() else set()
        try:
            self.releases = load_releases(settings.releases_file)
        except (CardError, CardErrors) as exc:
            self._site_problems.append(Problem(SITE, self._located(exc)))
            self.releases = ReleaseBook([], {})
        stems = {p.stem for p in settings.cards_dir.glob("*.md")}
        for stem in stems | set(self._parsed):
            self._read(stem)
        formulas = [f for _, parsed in self._parsed.values() if isinstance(parsed, Card)
                    for f in page_formulas(parsed)]
        heroes = [parsed.equation.strip() for _, parsed in self._parsed.values() if isinstance(parsed, Card)]
        prerender(formulas, settings.math_cache, settings.workers, heroes=heroes)
        topics = [t for part in self.parts for t in part.topics]
        self.site = CardSite(settings, self.parts, topics, [], math=self.math, releases=self.releases)
        self._settle()
        self.site.set_cards(self._renderable())
        self._site_problems += [Problem(SITE, self._located(e)) for e in
                                self.releases.site_problems(settings.root / "CITATION.cff")]
        try:
            if settings.numbers_file.is_file():
                self.site.numbers = load_numbers(settings.numbers_file, self.seeds, set(self._good),
                                                 settings.snippets_dir)
        except (CardError, CardErrors) as exc:
            self._site_problems.append(Problem("numbers.md", self._located(exc)))
        try:  # read once: an edit of docs/comparisons.yml shows after a restart
            if settings.comparisons_file.is_file():
                self.site.comparisons = load_comparisons(settings.comparisons_file,
                                                         {c.id: c for c in self.site.cards}, self.math)
        except (CardError, CardErrors) as exc:
            self._site_problems.append(Problem(SITE, self._located(exc)))
        self.helpers = set(settings.helpers_dir.glob("*.py"))
        if settings.execute:
            self.site.report = run_snippets(self.site.jobs(), settings.snippets_dir, self.runner.cache,
                                            settings.workers, check_determinism=settings.check_determinism)
            self._runs = {}
            self._snippet_problems(self.site.report.results.values())
            self.runner.start(self.site.jobs())
        _serving = self.site

    def close(self) -> None:
        self.runner.close()

    # -- one edit ---------------------------------------------------------------------------

    def update(self, cards: Iterable[Path] = (), snippets: Iterable[Path] = ()) -> Edit:
        """Take in saved card files (`docs/cards/<id>.md`: new, changed or deleted) and saved card
        snippets: parse and check them. Returns the pages to rebuild, the saved card's first;
        `run` each card before its page is built."""
        assert self.site is not None
        cards, snippets = list(cards), list(snippets)
        before = list(self.site.cards)
        touched = {p.stem for p in cards}
        if snippets:
            saved_snippets = {os.path.normpath(p) for p in snippets}
            touched |= {c.id for c in self._all_parsed()
                        if os.path.normpath(self.settings.snippets_dir / c.snippet) in saved_snippets}
        for stem in touched:
            self._read(stem)
        self._settle()
        self.site.set_cards(self._renderable(), changed=touched)
        if self.site.report is not None:
            for stem in touched - set(self._parsed):  # deleted: its result and problem go too
                self.site.report.results.pop(stem, None)
                self._runs.pop(f"cards/{stem}.md", None)
        edit = Edit()
        saved = {p.stem for p in [*cards, *snippets]}
        for stem in sorted(touched, key=lambda stem: (stem not in saved, stem)):  # the saved one first
            page = f"cards/{stem}.md"
            (edit.pages if stem in self._parsed else edit.removed).append(page)
        for stem in touched:
            edit.nearby |= _nearby(stem, before, self.site.cards)
        edit.nearby -= touched
        return edit

    def run(self, card_id: str) -> bool:
        """Fetch the card's snippet result from the cache or run it; True if it ran."""
        site = self.site
        if site is None or site.report is None or not self.settings.execute:
            return False
        card = next((c for c in site.cards if c.id == card_id), None)
        site.report.results.pop(card_id, None)
        self._runs.pop(f"cards/{card_id}.md", None)
        if card is None:
            return False
        result = self.runner.run(self._job(card))
        site.report.results[card_id] = result
        self._snippet_problems([result])
        return not result.cached

    def card_for_snippet(self, path: Path) -> bool:
        """Whether this file is some card's own snippet (not a helper, not a numbers snippet)."""
        path_name = os.path.normpath(path)
        return any(os.path.normpath(self.settings.snippets_dir / c.snippet) == path_name
                   for c in self._all_parsed())

    # -- problems ---------------------------------------------------------------------------

    def problems(self) -> list[Problem]:
        """Every problem now, the whole site's first, then by page."""
        pages = sorted(set(self._checks) | set(self._runs))
        return self._site_problems + [p for page in pages for p in self.page_problems(page)]

    def page_problems(self, page: str) -> list[Problem]:
        run = self._runs.get(page)
        return self._checks.get(page, []) + ([run] if run is not None else [])

    # -- internals --------------------------------------------------------------------------

    def _read(self, stem: str) -> None:
        """Parse one card file again if it changed since it was last read (or drop it if gone)."""
        path = self.settings.cards_dir / f"{stem}.md"
        try:
            stat = path.stat()
        except OSError:
            self._parsed.pop(stem, None)
            self._good.pop(stem, None)
            return
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stem in self._parsed and self._parsed[stem][0] == stamp:
            return
        try:
            parsed: Card | CardError = parse_card(path)
        except CardError as exc:
            parsed = exc
        self._parsed[stem] = (stamp, parsed)

    def _all_parsed(self) -> list[Card]:
        return [parsed for _, parsed in self._parsed.values() if isinstance(parsed, Card)]

    def _settle(self) -> None:
        """Check every parsed card against the others (as load_cards does) and its formulas;
        a card with no blocking problem becomes its own last good version."""
        problems: dict[str, list[Problem]] = {}
        cards = {c.id: c for c in self._all_parsed()}
        unloaded = {stem for stem, (_, parsed) in self._parsed.items() if isinstance(parsed, CardError)}
        topic_ids = {t.id for part in self.parts for t in part.topics}
        former: dict[str, Card] = {}
        for stem, (_, parsed) in sorted(self._parsed.items()):
            page = f"cards/{stem}.md"
            if isinstance(parsed, CardError):
                problems.setdefault(page, []).append(Problem(page, self._located(parsed)))
                continue
            errors = cross_check(parsed, cards, topic_ids, self.seeds, self.settings.snippets_dir, unloaded)
            errors += former_id_conflicts(parsed, cards, former)
            errors += self.releases.problems(parsed)
            errors += self._latex_errors(parsed)
            errors += in_code_problems([parsed], self.settings.snippets_dir,
                                       heavy_pins(self.settings.root / REQUIREMENTS))
            problems[page] = [Problem(page, self._located(e)) for e in errors]
            if not errors:
                self._good[stem] = parsed
        for stem in set(self._good) - set(self._parsed):
            del self._good[stem]
        self._checks = {page: found for page, found in problems.items() if found}

    def _located(self, problem: Exception) -> str:
        """A problem as "path:line: message", the path relative to the project."""
        if isinstance(problem, CardErrors):
            return "\n".join(self._located(e) for e in problem.errors)
        if not isinstance(problem, CardError):
            return str(problem)
        path = problem.path
        if path.is_absolute() and path.is_relative_to(self.settings.root):
            path = path.relative_to(self.settings.root)
        return f"{path}:{problem.line}: {problem.message}" if problem.line else f"{path}: {problem.message}"

    def _latex_errors(self, card: Card) -> list[CardError]:
        known = self._latex.get(card.id)
        if known is None or known[0] is not card:
            known = (card, check_latex([card], self.math))
            self._latex[card.id] = known
        return known[1]

    def _renderable(self) -> list[Card]:
        """The last good version of every card, in file order. A relation to a card that has
        never loaded is left out of the page (the broken card's own page says why)."""
        ids = set(self._good)
        out = []
        for card in sorted(self._good.values(), key=lambda c: c.path):
            if not set(card.related) <= ids:
                card = dataclasses.replace(card, related=[r for r in card.related if r in ids])
            out.append(card)
        return out

    def _job(self, card: Card) -> SnippetJob:
        return SnippetJob(card.id, card.path, self.settings.snippets_dir / card.snippet, card.timeout)

    def _snippet_problems(self, results: Iterable[SnippetResult]) -> None:
        for result in results:
            numbers = result.job.card_path == self.settings.numbers_file
            page = "numbers.md" if numbers else f"cards/{result.job.card_id}.md"
            if result.ok:
                self._runs.pop(page, None)
            else:
                self._runs[page] = Problem(page, result.describe_failure(self.settings.root), blocking=False)


def _nearby(card_id: str, before: list[Card], after: list[Card]) -> set[str]:
    """The other cards whose pages show something of this card that an edit changed: its
    neighbours in its topic (before and after), the cards it relates to and those relating to
    it, when its title, summary, topic or relations changed; none when only the rest did."""
    old = next((c for c in before if c.id == card_id), None)
    new = next((c for c in after if c.id == card_id), None)
    shown = lambda card: (card.title, card.summary, card.topic, card.related)  # noqa: E731
    if old is not None and new is not None and shown(old) == shown(new):
        return set()
    found: set[str] = set()
    for version, cards in ((old, before), (new, after)):
        if version is None:
            continue
        members = sorted((c for c in cards if c.topic == version.topic), key=lambda c: c.title.casefold())
        at = next(i for i, c in enumerate(members) if c.id == card_id)
        found |= {c.id for c in members[max(0, at - 1):at + 2]}
        found |= set(version.related)
    found |= {c.id for c in after if card_id in c.related}
    return found - {card_id}
