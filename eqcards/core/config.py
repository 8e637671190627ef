"""Where the project's inputs live and how the build behaves: every setting, declared once."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

# The date of a build made from neither a commit nor SOURCE_DATE_EPOCH (a source archive):
# fixed, so that even such builds do not depend on the day they are made.
FALLBACK_EDITION_DATE = "2026-11-30"
# The modules that card snippets import by their short names (`from cardcheck import check_close`),
# kept apart from the card snippets: snippets/lib/. The runner puts this folder on a snippet's path.
HELPERS_FOLDER = "lib"
# The most a card's figure may weigh. A snippet's figure whose SVG is larger (a dense scatter
# draws every point as a path) is saved as a PNG instead; one still larger fails the card.
MAX_FIGURE_BYTES = 300_000
# The pages' own scripts, which the build also runs in QuickJS (the search engine, the calculators),
# so what it writes and what the browser computes come from one source.
PAGE_SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "docs" / "javascripts"


def helpers_dir(snippets_dir: Path) -> Path:
    """The folder of the helper modules that the snippets under snippets_dir import."""
    return snippets_dir / HELPERS_FOLDER


def edition_date(root: Path) -> str:
    """The date a build stands for, and the only date in its output (citations, sitemap):
    SOURCE_DATE_EPOCH, else the last commit's (in UTC, as SOURCE_DATE_EPOCH is), else a fixed
    date. Never the build's own clock, so two builds of one commit are identical on any day."""
    if epoch := os.environ.get("SOURCE_DATE_EPOCH"):
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date().isoformat()
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        if out:
            return dt.datetime.fromtimestamp(int(out), dt.UTC).date().isoformat()
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return FALLBACK_EDITION_DATE


@dataclass(frozen=True)
class Settings:
    root: Path
    """Project root: the folder holding mkdocs.yml."""
    docs_dir: Path
    """MkDocs docs_dir; cards live in its cards/ subfolder."""
    snippets_dir: Path
    """Folder of card snippets; their shared helper modules (cardcheck, cardplot) are in its lib/."""
    cache_dir: Path
    """Snippet result cache, outside site/ so `mkdocs build --clean` keeps it.
    Override with EQCARDS_CACHE_DIR."""
    seed_index: Path
    """Committed list of seed entry keys (scripts/index_seeds.py writes it)."""
    execute: bool
    """Run snippets. EQCARDS_EXECUTE=0 switches execution off (pages say 'not run');
    used by the benchmark's baseline, never by a published build."""
    workers: int
    """Parallel snippet processes; EQCARDS_WORKERS overrides the core count."""
    check_determinism: bool = False
    """EQCARDS_CHECK_DETERMINISM=1 runs every snippet not served from the cache twice and fails
    the build when its output, checks or figures differ between the runs (unseeded randomness,
    dates, unordered sets): such a result is not cached. Costs a second run of each uncached
    snippet; the tests turn it on for the real site."""

    @property
    def cards_dir(self) -> Path:
        return self.docs_dir / "cards"

    @property
    def helpers_dir(self) -> Path:
        return helpers_dir(self.snippets_dir)

    @property
    def topics_file(self) -> Path:
        return self.docs_dir / "topics.yml"

    @property
    def math_cache(self) -> Path:
        """SVGs of typeset formulas, by content hash, next to the snippet cache."""
        return self.cache_dir.parent / "math"

    @property
    def examples_dir(self) -> Path:
        """Worked examples, one jupytext percent-format source each (eqcards/pages/examples.py)."""
        return self.docs_dir / "examples"

    @property
    def example_stage(self) -> Path:
        """Where the build writes each example's runnable copy (run/) and its executed notebook
        for mkdocs-jupyter to render (site/examples/), next to the snippet cache."""
        return self.cache_dir.parent / "examples"

    @property
    def releases_file(self) -> Path:
        """The site's numbered releases, newest last; each one frozen beside it as
        releases/<version>.json (eqcards/cards/releases.py, scripts/release.py)."""
        return self.docs_dir / "releases.yml"

    @property
    def numbers_file(self) -> Path:
        """The quick numeric reference (rendered at /numbers/ and on the cheatsheet)."""
        return self.docs_dir / "numbers.yml"

    @property
    def presets_file(self) -> Path:
        """Real models' and papers' values for the calculators, each with its source."""
        return self.docs_dir / "presets.yml"

    @property
    def comparisons_file(self) -> Path:
        """Families of near-identical formulas compared term by term (rendered under /compare/)."""
        return self.docs_dir / "comparisons.yml"

    @classmethod
    def for_project(cls, root: Path, docs_dir: Path | None = None) -> Settings:
        root = root.resolve()
        return cls(
            root=root,
            docs_dir=(docs_dir or root / "docs").resolve(),
            snippets_dir=root / "snippets",
            cache_dir=Path(os.environ.get("EQCARDS_CACHE_DIR", root / ".cache" / "snippets")),
            seed_index=root / "seeds" / "entries.txt",
            execute=os.environ.get("EQCARDS_EXECUTE", "1") != "0",
            workers=int(os.environ.get("EQCARDS_WORKERS", "0")) or (os.cpu_count() or 1),
            check_determinism=os.environ.get("EQCARDS_CHECK_DETERMINISM", "0") == "1",
        )


class SiteURLError(ValueError):
    """The site's address cannot be published: missing, or a loopback address."""


# A build for publishing (the GitHub Pages workflow sets EQCARDS_PUBLISH=1) must know the address
# it is published at; any other build without SITE_URL makes no absolute link at all.
PUBLISH_VARIABLE = "EQCARDS_PUBLISH"
SITE_URL_EXAMPLE = "SITE_URL=https://<owner>.github.io/<repository>/"


def is_loopback(url: str) -> bool:
    """Whether a URL's host is this machine: 127.0.0.0/8, localhost, ::1 (or 0.0.0.0)."""
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def public_site_url(site_url: str | None, publish: bool) -> str | None:
    """The address the site is published at, ending in '/', or None: no absolute links (canonical
    links, sitemap, citation URLs). A build for publishing (`publish`) raises SiteURLError when
    the address is missing or loopback, since every link in such a site would be dead."""
    url = (site_url or "").strip() or None
    if publish:
        fix = f"set the address the site is published at, e.g. {SITE_URL_EXAMPLE}"
        if url is None:
            raise SiteURLError(f"SITE_URL is not set, and a build for publishing ({PUBLISH_VARIABLE}=1) "
                               f"needs it for canonical links, the sitemap and citations: {fix}")
        if is_loopback(url):
            raise SiteURLError(f"SITE_URL is {url}, a loopback address, and a build for publishing "
                               f"({PUBLISH_VARIABLE}=1) must not link to this machine: {fix}")
    return url if url is None or url.endswith("/") else url + "/"


def publishing() -> bool:
    """EQCARDS_PUBLISH=1: this build is for publishing (see public_site_url)."""
    return os.environ.get(PUBLISH_VARIABLE, "0") == "1"
