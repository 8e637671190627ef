"""Reader-grade pages (issue 26), as built: no page shows TeX where no formula can be typeset (titles,
meta tags, search results); no site holds a loopback address, and a card's citation links to where
it is read; each card offers its primary source's BibTeX."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import Project
from playwright.sync_api import Browser

from eqcards.pages.search_index import read_documents

# TeX where text is shown: a $ delimiter, a command (\alpha), a braced script, a \( \) \[ \] delimiter.
TEX = re.compile(r"\$|\\[A-Za-z]+|[\^_]\{|\\[()\[\]]")


# --- The built site -----------------------------------------------------------------------------

class HeadText(HTMLParser):
    """A page's <title> and the text of its meta tags (description, og:*, twitter:*, citation_*)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[tuple[str, str]] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        name = values.get("name") or values.get("property") or ""
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and re.match(r"description$|og:|twitter:|citation_", name):
            self.texts.append((name, values.get("content") or ""))

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.texts.append(("title", data))


TITLES = ("title", "citation_title")  # headings: no script marker is left in them either


def test_titles_meta_tags_and_search_results_show_no_tex(built_site: Path) -> None:
    """The places where no formula can be typeset: each page's <title> and meta tags, and the
    titles and teasers the search worker shows (search/index/doc-<n>.json)."""
    pages = sorted(built_site.rglob("*.html"))
    found, with_tex = 0, []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        head = HeadText()
        head.feed(text)
        found += len(head.texts)
        with_tex += [(str(page.relative_to(built_site)), name, shown) for name, shown in head.texts
                     if TEX.search(shown) or (name in TITLES and re.search(r"[_^]", shown))]
        # A card's heading shows its title's scripts as <sub>/<sup>, with no mark left.
        if page.parent.parent.name == "cards" and 'http-equiv="refresh"' not in text:
            heading = re.search(r'<h1[^>]*>(.*?)<a class="headerlink"', text, re.S)
            if heading is None or re.search(r"[_^$\\]", re.sub(r"<[^>]+>", "", heading.group(1))):
                with_tex.append((str(page.relative_to(built_site)), "h1", heading and heading.group(1)))
    card = (built_site / "cards" / "advantage-weighted-regression" / "index.html").read_text(encoding="utf-8")
    assert 'name="description" content="AWR fits the policy by behaviour cloning' in card
    advantage = (built_site / "cards" / "advantage-function" / "index.html").read_text(encoding="utf-8")
    assert "<title>Advantage function Aπ - Equation Cards</title>" in advantage
    assert ">Advantage function A<sup>π</sup><a" in advantage
    assert found > 2 * len(pages)
    assert with_tex == [], f"{len(with_tex)} show TeX: {with_tex[:10]}"
    config = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["config"]
    documents = read_documents(built_site / "search", config)
    shown = [(d["location"], key, d[key]) for d in documents for key in ("title", "teaser")]
    assert len(documents) > 380 and sum(1 for *_, text in shown if text) > 700
    assert [s for s in shown if TEX.search(s[2])] == []


# Loopback hosts as they appear in a link. [::1] alone is also a Python slice (mutation diffs on the
# nDCG and unigram cards read `np.sort(judged)[::1]`, `{t[::1]: lp ...}`), so it counts only as a
# host: after // or before a port.
LOOPBACK = re.compile(rb"(?<![\d.])127\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d])|localhost|0\.0\.0\.0|"
                      rb"//\[::1\]|\[::1\]:\d", re.I)
LOOPBACK_URL = re.compile(rb"://(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|0\.0\.0\.0|\[::1\])", re.I)


def loopback_addresses(site: Path) -> list[tuple[str, str]]:
    """Every loopback address in any file of a built site. The theme's JavaScript source maps are
    held to addresses in URLs only: the theme's own source comments there name localhost and
    127.0.0.1 in prose (which hosts a browser lets it use), which no page links to."""
    found = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        pattern = LOOPBACK_URL if path.name.endswith(".js.map") else LOOPBACK
        data = path.read_bytes()
        found += [(str(path.relative_to(site)), data[max(m.start() - 40, 0):m.end() + 20].decode("latin-1"))
                  for m in pattern.finditer(data)]
    return found


def test_a_default_build_holds_no_loopback_address(built_site: Path) -> None:
    assert len(list(built_site.rglob("*"))) > 1000
    assert loopback_addresses(built_site) == []


def test_the_loopback_search_finds_what_it_looks_for(tmp_path: Path) -> None:
    for text in ("http://127.0.0.1:8000/cards/x/", "see localhost", "http://[::1]/", "[::1]:8000",
                 "0.0.0.0:80"):
        (tmp_path / "page.html").write_text(text)
        assert loopback_addresses(tmp_path), text
    (tmp_path / "page.html").write_text("x[::1] and {t[::1]: lp} and 1127.0.0.12 and v2.127.0.0.1a")
    assert loopback_addresses(tmp_path) == []


# --- Builds with and without a site URL ---------------------------------------------------------

def card_page(project: Project, card_id: str = "toy-entropy") -> str:
    return (project.root / "site" / "cards" / card_id / "index.html").read_text(encoding="utf-8")


@pytest.mark.build
def test_a_build_without_site_url_makes_no_absolute_link(project: Project) -> None:
    project.add_card("toy-entropy", former_ids=["toy-old"], title="Toy entropy H^π",
                     summary="Average surprise over the top-$k$ outcomes with step $\\Delta$.")
    result = project.build(env={"SITE_URL": "", "EQCARDS_PUBLISH": "0"})
    assert result.returncode == 0, result.stderr
    said = [line for line in (result.stdout + result.stderr).splitlines() if "SITE_URL" in line]
    assert len(said) == 1 and "SITE_URL is not set: absolute links are off" in said[0], said
    site = project.root / "site"
    assert loopback_addresses(site) == []
    assert not (site / "sitemap.xml").exists() and not (site / "sitemap.xml.gz").exists()
    page = card_page(project)
    assert 'rel="canonical"' not in page and "citation_public_url" not in page
    assert 'data-link="cards/toy-entropy/" data-root="../../"' in page
    assert "built without its public address" in page
    text = re.sub(r"<[^>]+>", "", page)
    assert "url = {cards/toy-entropy/}" in text and " cards/toy-entropy/ (accessed " in text
    assert "<title>Toy entropy Hπ - Equation Cards</title>" in page
    assert 'content="Average surprise over the top-k outcomes with step Δ."' in page
    assert "Toy entropy H<sup>π</sup>" in page
    assert "@article{shannon1948mathematical," in text  # the primary source, from the card's sources
    cards = json.loads((site / "cards.json").read_text(encoding="utf-8"))
    assert [c["url"] for c in cards["cards"]] == ["cards/toy-entropy/"]
    redirect = (site / "cards" / "toy-old" / "index.html").read_text(encoding="utf-8")
    assert "canonical" not in redirect and 'url=../toy-entropy/"' in redirect


@pytest.mark.build
def test_a_build_for_publishing_needs_its_public_address(project: Project) -> None:
    project.add_card("toy-entropy")
    for url, problem in (("", "SITE_URL is not set"), ("http://127.0.0.1:8000/", "a loopback address"),
                         ("http://localhost:8000/", "a loopback address")):
        result = project.build(env={"SITE_URL": url, "EQCARDS_PUBLISH": "1"})
        assert result.returncode != 0, url
        output = result.stdout + result.stderr
        errors = [line for line in output.splitlines() if "EQCARDS_PUBLISH=1" in line]
        assert len(errors) == 1 and problem in errors[0] and "SITE_URL=https://" in errors[0], output
        assert not (project.root / "site").exists()  # it stopped before writing anything
    result = project.build(env={"SITE_URL": "https://cards.example.org/eq/", "EQCARDS_PUBLISH": "1"})
    assert result.returncode == 0, result.stderr
    assert "SITE_URL" not in result.stdout + result.stderr
    site = project.root / "site"
    assert loopback_addresses(site) == []
    page = card_page(project)
    assert '<link rel="canonical" href="https://cards.example.org/eq/cards/toy-entropy/">' in page
    public = "https://cards.example.org/eq/cards/toy-entropy/"
    assert f'<meta name="citation_public_url" content="{public}">' in page
    assert "data-link" not in page and "built without its public address" not in page
    assert "url = {https://cards.example.org/eq/cards/toy-entropy/}" in re.sub(r"<[^>]+>", "", page)
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://cards.example.org/eq/cards/toy-entropy/</loc>" in sitemap
    # The one date a page carries is the edition's (a project outside git: the fixed one).
    assert set(re.findall(r"<lastmod>([^<]*)</lastmod>", sitemap)) == {"2026-11-30"}
    cards = json.loads((site / "cards.json").read_text(encoding="utf-8"))
    assert [c["url"] for c in cards["cards"]] == ["https://cards.example.org/eq/cards/toy-entropy/"]


# --- In the browser -----------------------------------------------------------------------------

# Each text line of an element, and whether any of them runs under a given box or past the element.
LINES_AND_BUTTON = """([code, button]) => {
  const range = document.createRange();
  range.selectNodeContents(code);
  const lines = [...range.getClientRects()].filter(r => r.width > 0);
  const b = button.getBoundingClientRect(), c = code.getBoundingClientRect();
  const under = lines.filter(r => r.right > b.left && r.left < b.right
                                && r.bottom > b.top && r.top < b.bottom);
  return {lines: lines.length, under: under.length, past: lines.filter(r => r.right > c.right + 0.5).length,
          scroll: code.scrollWidth - code.clientWidth};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_cite_box_links_the_address_it_is_read_at_wraps_and_copies_the_primary_source(
        browser: Browser, base_url: str, width: int) -> None:
    """The shared site is built without SITE_URL: the citation takes the page's own address (the
    local server's here). The plain reference wraps clear of its copy button, and the primary
    source's BibTeX is offered and copied by its button."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    page = context.new_page()
    try:
        page.goto(base_url + "cards/advantage-weighted-regression/", wait_until="load")
        box = page.locator(".eqc-cite details")
        box.locator("summary").click()
        here = base_url + "cards/advantage-weighted-regression/"
        blocks = box.locator("pre code")
        assert blocks.count() == 5
        bibtex, primary, plain, link = (blocks.nth(i).inner_text() for i in range(4))
        assert f"url = {{{here}}}" in bibtex and here + " (accessed " in plain and link.strip() == here
        assert not box.locator(".eqc-cite-relative").is_visible()
        assert primary.startswith("@misc{peng2019advantage,") and "eprint = {1910.00177}" in primary
        assert "archivePrefix = {arXiv}" in primary
        assert "Peng et al. (2019)" in box.inner_text()
        for i in (0, 1, 2):  # the card's BibTeX, the primary source's, the plain reference
            code = blocks.nth(i)
            button = box.locator("button[data-md-type=copy]").nth(i)
            shape = page.evaluate(LINES_AND_BUTTON, [code.element_handle(), button.element_handle()])
            assert shape["lines"] >= 2 and shape["under"] == 0 and shape["past"] == 0, (i, shape)
            assert shape["scroll"] <= 0, (i, shape)  # nothing hidden to scroll to
        box.locator("button[data-md-type=copy]").nth(1).click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() == primary.strip()
    finally:
        context.close()
