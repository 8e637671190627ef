"""Everything the build needs, without MkDocs: load cards, run snippets, produce generated pages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..calculators.jscheck import calculator_problems
from ..cards.calculator import Preset, load_presets, preset_problems
from ..cards.load import load_cards, load_parts
from ..cards.model import Card, Part, Topic
from ..cards.reading_order import in_reading_order, reading_order_problems
from ..cards.releases import CardRecord, ReleaseBook, load_releases, release_problems
from ..cards.seeds import read_index, read_keys
from ..core.config import Settings
from ..core.errors import CardError, CardErrors
from ..incode import ledger as libcheck_ledger
from ..incode.libraries import REQUIREMENTS, heavy_pins, is_heavy
from ..incode.problems import in_code_problems
from ..mutants.mutation_ledger import LEDGER_NAME, MeasuredScore, measured, read_ledger
from ..snippets.cache import ResultCache
from ..snippets.jobs import SnippetJob
from ..snippets.notebook import helper_sources, snippet_notebook
from ..snippets.regions import RegionError
from ..snippets.runner import RunReport, run_snippets
from ..typeset.latex import check_latex, page_formulas
from ..typeset.mathsvg import MathRenderer, prerender, typeset_html
from .breadcrumbs import card_breadcrumb
from .card_index import render_card_index
from .changelog import render_card_history, render_changelog, render_errata
from .cheatsheet import Imprint, render_cheatsheet, render_part_cheatsheet, render_topic_cheatsheet
from .citation import Edition, highwire_meta, redirect_page, render_cite_box
from .comparisons import (
    INDEX_PAGE,
    Family,
    compare_links,
    load_comparisons,
    render_compare_index,
    render_compare_line,
    render_comparison,
)
from .example_site import ExampleSet
from .export import cards_json
from .in_code import render_in_code
from .listings import (
    render_home,
    render_part_page,
    render_parts_index,
    render_topic_page,
    render_topics_index,
)
from .numbers import NumberEntry, load_numbers, render_numbers_page, render_numbers_section
from .provenance import Realizers, render_about, render_corrections, render_coverage, seed_realizers
from .render import figure_uri, render_card
from .search import rewrite_index
from .symbols import render_symbols
from .tags import render_tag_page, render_tags_index, shared_tags, tag_links, tagged_cards


@dataclass
class CardSite:
    settings: Settings
    parts: list[Part]
    topics: list[Topic]
    cards: list[Card]
    report: RunReport | None = None
    edition: Edition | None = None
    numbers: list[NumberEntry] = field(default_factory=list)
    repo_url: str | None = None  # where the snippets can be read online, when the site says
    math: MathRenderer | None = None
    examples: ExampleSet | None = None
    releases: ReleaseBook = field(default_factory=lambda: ReleaseBook([], {}))
    presets: dict[str, Preset] = field(default_factory=dict)  # docs/presets.yml, for the calculators
    comparisons: list[Family] = field(default_factory=list)
    _by_id: dict[str, Card] = field(default_factory=dict)
    _mutation: dict[str, MeasuredScore | None] | None = None
    _tags: dict[str, tuple[str, list[Card]]] | None = None

    @classmethod
    def load(cls, settings: Settings) -> CardSite:
        """Load and validate topics and cards; raises CardError(s) on any problem."""
        for cache_dir in (settings.cache_dir, settings.math_cache):  # what killed builds left
            ResultCache(cache_dir).sweep()
        parts = load_parts(settings.topics_file)
        topics = [t for part in parts for t in part.topics]
        seeds = read_index(settings.seed_index)
        cards = load_cards(settings.cards_dir, topics, seeds, settings.snippets_dir)
        if errors := in_code_problems(cards, settings.snippets_dir, heavy_pins(settings.root / REQUIREMENTS)):
            raise CardErrors(errors)
        if errors := reading_order_problems(topics, cards, settings.topics_file):
            raise CardErrors(errors)
        releases = load_releases(settings.releases_file)
        if errors := release_problems(releases, cards, settings.root / "CITATION.cff"):
            raise CardErrors(errors)
        prerender([f for card in cards for f in page_formulas(card)], settings.math_cache, settings.workers,
                  heroes=[card.equation.strip() for card in cards])
        math = MathRenderer(settings.math_cache)
        if errors := check_latex(cards, math):
            raise CardErrors(errors)
        numbers = (load_numbers(settings.numbers_file, seeds, {c.id for c in cards}, settings.snippets_dir)
                   if settings.numbers_file.is_file() else [])
        examples = ExampleSet.load(settings, {c.id for c in cards})
        presets = load_presets(settings.presets_file)
        calculators = {c.id: (c.path, c.calculator) for c in cards if c.calculator is not None}
        if errors := preset_problems(presets, calculators, settings.presets_file):
            raise CardErrors(errors)
        comparisons = (load_comparisons(settings.comparisons_file, {c.id: c for c in cards}, math)
                       if settings.comparisons_file.is_file() else [])
        return cls(settings, parts, topics, cards, numbers=numbers, math=math, examples=examples,
                   releases=releases, presets=presets, comparisons=comparisons,
                   _by_id={c.id: c for c in cards})

    def typeset(self, page_html: str) -> str:
        """Every formula of a rendered page as build-time SVG (raises LatexError)."""
        assert self.math is not None
        return typeset_html(page_html, self.math)

    def card(self, card_id: str) -> Card:
        return self._by_id[card_id]

    def topic(self, topic_id: str) -> Topic:
        return next(t for t in self.topics if t.id == topic_id)

    def part(self, topic: Topic) -> Part:
        return next(p for p in self.parts if p.id == topic.part)

    def jobs(self) -> list[SnippetJob]:
        """Every snippet the site runs: one per card, one per numbers snippet."""
        jobs = [SnippetJob(c.id, c.path, self.settings.snippets_dir / c.snippet, c.timeout)
                for c in self.cards]
        jobs += list({n.job_id: SnippetJob(n.job_id, self.settings.numbers_file,
                                           self.settings.snippets_dir / n.snippet)
                      for n in self.numbers if n.snippet}.values())
        if self.examples:
            jobs += self.examples.jobs()
        return jobs

    def run(self) -> RunReport:
        """Run (or fetch from the cache) every snippet."""
        cache = ResultCache(self.settings.cache_dir)
        self.report = run_snippets(self.jobs(), self.settings.snippets_dir, cache, self.settings.workers,
                                   check_determinism=self.settings.check_determinism)
        return self.report

    def calculator_problems(self) -> list[CardError]:
        """Each calculator whose expressions disagree with its snippet's run (eqcards.calculators)."""
        return calculator_problems(self.cards, self.report.results if self.report else {}, self.presets,
                                   self.settings.presets_file)

    def nav(self) -> list:
        """MkDocs-style nav: home, cheatsheet, numbers, each part with its topic pages, worked
        examples, the A–Z card index, symbols, tags, errata, changelog, about. A part's own page is
        its section's index (theme feature navigation.indexes); parts and topics without cards are
        left out. The /parts/ and /topics/ indexes, the tag pages and the pages About links to
        (coverage, corrections) are reached from pages, not from the nav.

        Cards are reached from their topic page and link to their neighbours themselves: the
        theme renders the whole nav into every page, so listing every card there would make
        the build quadratic in the number of cards (and the sidebar unreadable)."""
        nav: list = [{"Home": "index.md"}, {"Cheatsheet": "cheatsheet.md"}]
        if self.numbers:
            nav.append({"Numbers": "numbers.md"})
        used = {c.topic for c in self.cards}
        for part in self.parts:
            topics = [{t.title: f"topics/{t.id}.md"} for t in part.topics if t.id in used]
            if topics:
                nav.append({part.title: [f"parts/{part.id}/index.md", *topics]})
        nav += self.examples.nav() if self.examples else []
        if self.comparisons:
            nav.append({"Comparisons": [INDEX_PAGE, *({f.title: f.page} for f in self.comparisons)]})
        nav += [{"All cards A–Z": "cards/index.md"}, {"Symbols": "symbols.md"}, {"Tags": "tags/index.md"},
                {"Errata": "errata.md"}, {"Changelog": "changelog.md"}, {"About this site": "about/index.md"}]
        return nav

    def topic_members(self, topic_id: str) -> list[Card]:
        """A topic's cards in reading order, as on its page (eqcards.cards.reading_order)."""
        return in_reading_order(self.topic(topic_id), self.cards)

    def imprint(self) -> Imprint | None:
        """What the printed cheatsheets say they are; None before the build has named its edition."""
        if self.edition is None:
            return None
        release = self.releases.current
        return Imprint(self.edition.site_name, self.edition.date, release.version if release else None,
                       release.date if release else None, self.edition.site_url)

    def generated_pages(self) -> dict[str, str]:
        """Markdown pages that exist only in the build, by their path under docs/."""
        numbers = render_numbers_section(self.numbers) if self.numbers else ""
        tags = self.tags()
        imprint = self.imprint()
        pages = {"cheatsheet.md": render_cheatsheet(self.cards, self.parts, extra_sections=numbers,
                                                    imprint=imprint),
                 "errata.md": render_errata(self.cards), "symbols.md": render_symbols(self.cards),
                 "changelog.md": render_changelog(self.releases, self.cards),
                 "cards/index.md": render_card_index(self.cards),
                 "topics/index.md": render_topics_index(self.cards, self.parts),
                 "parts/index.md": render_parts_index(self.cards, self.parts),
                 "tags/index.md": render_tags_index(tags),
                 "about/index.md": render_about(self.cards, self.realizers(), self.seed_keys(),
                                                has_numbers=bool(self.numbers)),
                 "about/corrections.md": render_corrections(self.cards),
                 "coverage.md": render_coverage(self.realizers(), self.seed_keys(), self.topics)}
        pages.update({f"tags/{slug}.md": render_tag_page(name, members)
                      for slug, (name, members) in shared_tags(tags).items()})
        if self.numbers:
            pages["numbers.md"] = render_numbers_page(
                self.numbers, self.report.results if self.report else {},
                {c.id: c.title for c in self.cards})
        if self.comparisons:
            pages[INDEX_PAGE] = render_compare_index(self.comparisons, self._by_id)
            pages.update({f.page: render_comparison(f, self._by_id) for f in self.comparisons})
        if self.examples:
            pages.update(self.examples.index_page({c.id: c.title for c in self.cards}))
        used = {c.topic for c in self.cards}
        for part in self.parts:
            if any(t.id in used for t in part.topics):
                pages[f"parts/{part.id}/index.md"] = render_part_page(part, self.cards)
                pages[f"cheatsheet/{part.id}.md"] = render_part_cheatsheet(part, self.cards, imprint)
        for topic in self.topics:
            if any(c.topic == topic.id for c in self.cards):  # as in nav(): no empty topic pages
                pages[f"topics/{topic.id}.md"] = render_topic_page(topic, self.part(topic), self.cards)
                pages[f"cheatsheet/{topic.id}.md"] = render_topic_cheatsheet(topic, self.cards, imprint)
        return pages

    def notebooks(self) -> dict[str, str]:
        """Every card's snippet as a runnable notebook, by its path under docs/."""
        return {f"cards/{card.id}/{card.id}.ipynb": self.notebook(card) for card in self.cards}

    def notebook(self, card: Card) -> str:
        """One card's snippet as a runnable notebook."""
        snippet = self.settings.snippets_dir / card.snippet
        url = self.edition.card_url(card.id) if self.edition else card.url
        helpers = helper_sources(snippet, self.settings.snippets_dir)
        return snippet_notebook(card, snippet.read_text(encoding="utf-8"), helpers, url)

    def figures(self) -> dict[str, str]:
        """SVG figures of successful snippet runs, by their path under docs/."""
        return {uri: svg for card in self.cards for uri, svg in self.card_figures(card).items()}

    def card_figures(self, card: Card) -> dict[str, str]:
        """The SVG figures of one card's snippet run, by their path under docs/."""
        result = self.report.results.get(card.id) if self.report else None
        return {figure_uri(card, i): svg for i, svg in enumerate(result.figures if result else [], start=1)}

    def card_page(self, card_id: str) -> str:
        card = self.card(card_id)
        result = self.report.results.get(card.id) if self.report else None
        source = (self.settings.snippets_dir / card.snippet).read_text(encoding="utf-8")
        backlinks = sorted(c.id for c in self.cards if card.id in c.related and c.id not in card.related)
        record = self.record(card)
        cite = render_cite_box(card, self.edition, record) if self.edition else ""
        members = self.topic_members(card.topic)
        at = members.index(card)
        neighbours = (members[at - 1] if at > 0 else None,
                      members[at + 1] if at + 1 < len(members) else None)
        examples = self.examples.used_in().get(card.id, []) if self.examples else []
        topic = self.topic(card.topic)
        try:
            # Parsing the snippet's imports is needed only where a heavy mapping's status is shown.
            helpers = (libcheck_ledger.helper_texts(self.settings.snippets_dir / card.snippet,
                                                    self.settings.snippets_dir)
                       if any(is_heavy(e.library) for e in card.in_code) else None)
            statuses = libcheck_ledger.statuses(source, card.id, self.libcheck_ledger(), helpers)
            in_code = render_in_code(card, source, result, statuses)
        except RegionError:  # `make serve` shows the marker's error on the page (livesite.py)
            in_code = []
        page = render_card(card, topic, self._by_id, result, source, backlinks, cite,
                           neighbours, repo_url=self.repo_url, mutation=self.mutation_scores()[card.id],
                           examples=[(e.title, e.slug) for e in examples],
                           history=render_card_history(card, record) if record else [],
                           presets=self.presets,
                           compare=render_compare_line(compare_links(card.id, self.comparisons)),
                           in_code=in_code)
        return card_breadcrumb(card, topic, self.part(topic)) + "\n\n" + page

    def tag_links(self, card_id: str) -> list[tuple[str, str | None]]:
        """A card's tags with their pages' site-relative URLs (None: no page), for the theme's tag list."""
        return tag_links(self.card(card_id), self.tags())

    def tags(self) -> dict[str, tuple[str, list[Card]]]:
        """Each tag with its cards (tagged_cards), once per set of cards."""
        if self._tags is None:
            self._tags = tagged_cards(self.cards)
        return self._tags

    def record(self, card: Card) -> CardRecord | None:
        """The card across the site's releases; None when the site has none."""
        return self.releases.record(card) if self.releases.releases else None

    def libcheck_ledger(self) -> dict:
        """What `make libcheck` recorded of the heavy-library mappings (snippets/libcheck-ledger.json)."""
        return libcheck_ledger.load(self.settings.snippets_dir / libcheck_ledger.LEDGER_FILE)

    def mutation_scores(self) -> dict[str, MeasuredScore | None]:
        """Each card's mutation score from the committed ledger, or None where the ledger has none
        for the snippet as it is now (read once per build; under `make serve`, again for the cards
        an edit changed)."""
        if self._mutation is None:
            self._mutation = {}
        if len(self._mutation) < len(self.cards) and \
                (missing := [c for c in self.cards if c.id not in self._mutation]):
            ledger = read_ledger(self.settings.snippets_dir / LEDGER_NAME)
            self._mutation.update({c.id: measured(c.id, self.settings.snippets_dir / c.snippet,
                                                  self.settings.snippets_dir, ledger) for c in missing})
        return self._mutation

    def set_cards(self, cards: list[Card], changed: Iterable[str] = ()) -> None:
        """Swap in another set of cards (`make serve`, after an edit); `changed` names the cards
        whose file or snippet changed, so their mutation scores are looked up again."""
        self.cards = cards
        self._by_id = {c.id: c for c in cards}
        self._tags = None
        if self._mutation is not None:
            for card_id in [*changed, *(set(self._mutation) - set(self._by_id))]:
                self._mutation.pop(card_id, None)

    def citation_meta(self, card_id: str) -> dict[str, str]:
        card = self.card(card_id)
        return highwire_meta(card, self.edition, self.record(card)) if self.edition else {}

    def redirects(self) -> dict[str, str]:
        """Static pages at every former id's URL, by their path under docs/."""
        assert self.edition is not None
        return {f"cards/{old}/index.html": redirect_page(
                    f"../{c.id}/", self.edition.card_url(c.id) if self.edition.site_url else None)
                for c in self.cards for old in c.former_ids}

    def home_page(self, template: str) -> str:
        return render_home(template, self.cards, self.parts, has_numbers=bool(self.numbers),
                           release=self.releases.current)

    def realizers(self) -> Realizers:
        """Each seed entry with the cards and numbers that realize it."""
        return seed_realizers(self.cards, self.numbers)

    def seed_keys(self) -> list[str]:
        """Every seed entry, in the seed documents' order (the committed index)."""
        return read_keys(self.settings.seed_index)

    def cards_json(self, site_url: str) -> str:
        history = {c.id: r for c in self.cards if (r := self.record(c)) is not None}
        current = self.releases.current
        return cards_json(self.cards, self.report.results if self.report else {}, site_url,
                          self.mutation_scores(), history, current.version if current else None)

    def rewrite_search_index(self, index_path: Path) -> None:
        """Our formula search index in place of the theme's (see eqcards/pages/search.py)."""
        rewrite_index(index_path, self.cards, {t.id: t for t in self.topics}, self.math)

    def card_id_for(self, src_uri: str) -> str | None:
        """The card id if this docs-relative path is a card page."""
        path = Path(src_uri)
        if path.parent == Path("cards") and path.suffix == ".md" and path.stem in self._by_id:
            return path.stem
        return None
