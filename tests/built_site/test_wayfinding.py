"""Finding your way, as a reader sees it in the browser: breadcrumbs, the reading order, the
previous/next trail, tags that are links, the A–Z, topic, part and tag indexes, and provenance
("seeds") on the About pages only."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser_fixtures import VISIBLE_TEXT, Visit, tex_marks
from conftest import ROOT
from wayfinding_checks import PROVENANCE_PAGES, seed_mentions

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.reading_order import in_reading_order
from eqcards.cards.seeds import read_index
from eqcards.pages.tags import tag_slug, tagged_cards

pytestmark = pytest.mark.browser

PARTS = load_parts(ROOT / "docs" / "topics.yml")
TOPICS = {t.id: t for p in PARTS for t in p.topics}
CARDS = load_cards(ROOT / "docs" / "cards", list(TOPICS.values()), read_index(ROOT / "seeds" / "entries.txt"),
                   ROOT / "snippets")
BY_ID = {c.id: c for c in CARDS}
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 900}

# Every text line of the previous/next trail split inside a word: each word of a title must lie on
# one line (a Range over a word has one client rect per line it spans).
TRAIL = """() => [...document.querySelectorAll('.eqc-topic-trail a')].map(a => {
  const title = a.querySelector('.eqc-trail-title');
  const node = [...title.childNodes].find(n => n.nodeType === 3);
  const split = [];
  for (const m of node.textContent.matchAll(/\\S+/g)) {
    const r = document.createRange();
    r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
    const lines = new Set([...r.getClientRects()].map(b => Math.round(b.top)));
    if (lines.size > 1) split.push(m[0]);
  }
  return {cls: a.className, href: a.href, text: title.textContent, tooltip: a.title, split}; })"""
BREADCRUMB = """() => [...document.querySelectorAll('nav.eqc-breadcrumb li')].map(li => {
  const a = li.querySelector('a');
  const h1 = document.querySelector('h1').getBoundingClientRect();
  return {text: li.textContent.trim(), href: a ? a.href : null, current: li.getAttribute('aria-current'),
          above: li.getBoundingClientRect().bottom <= h1.top}; })"""


def test_a_card_has_a_breadcrumb_a_reading_order_trail_and_tag_links(visit: Visit, base_url: str) -> None:
    card = BY_ID["lion"]
    topic = TOPICS[card.topic]
    members = in_reading_order(topic, CARDS)
    at = members.index(card)
    page = visit.open(base_url + "cards/lion/")
    crumbs = page.evaluate(BREADCRUMB)
    assert [c["text"] for c in crumbs] == ["Large language models", topic.title, card.title]
    assert [c["href"] for c in crumbs] == [base_url + "parts/llm/", base_url + f"topics/{topic.id}/", None]
    assert crumbs[-1]["current"] == "page" and all(c["above"] for c in crumbs)
    assert "Topic:" not in page.locator("article").inner_text()  # the old grey line is gone
    tags = page.evaluate("() => [...document.querySelectorAll('.md-tags .md-tag')]"
                         ".map(a => [a.textContent, a.href || null])")
    shared = tagged_cards(CARDS)
    assert tags == [[t, base_url + f"tags/{tag_slug(t)}/" if len(shared[tag_slug(t)][1]) > 1 else None]
                    for t in dict.fromkeys(card.tags)]
    assert any(href is None for _, href in tags) and any(href for _, href in tags)
    for width in (DESKTOP, PHONE):
        page.set_viewport_size(width)
        trail = page.evaluate(TRAIL)
        assert [(t["cls"], t["href"]) for t in trail] == [
            ("eqc-prev", base_url + f"cards/{members[at - 1].id}/"),
            ("eqc-up", base_url + f"topics/{topic.id}/"),
            ("eqc-next", base_url + f"cards/{members[at + 1].id}/")]
        assert members[at - 1].id == "adamw", "Lion follows AdamW in the optimization reading order"
        assert [t["split"] for t in trail] == [[], [], []], f"a word split at {width['width']} px"
        assert trail[0]["tooltip"] == members[at - 1].title
    assert visit.outside == [] and [f for f in visit.failed if f[:1].isdigit()] == []


def test_a_topic_page_lists_its_cards_in_reading_order(visit: Visit, base_url: str) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open(base_url + "topics/attention/")
    crumbs = page.evaluate(BREADCRUMB)
    assert [(c["text"], c["href"]) for c in crumbs] == [("Large language models", base_url + "parts/llm/"),
                                                        ("Attention variants", None)]
    shown = page.evaluate("() => [...document.querySelectorAll('article h2 a:not(.headerlink)')]"
                          ".map(a => a.href.split('/').slice(-2)[0])")
    order = [c.id for c in in_reading_order(TOPICS["attention"], CARDS)]
    assert shown == order and order.index("scaled-dot-product-attention") < order.index("causal-attention")
    part = visit.open(base_url + "parts/llm/")
    listed = part.evaluate("() => [...[...document.querySelectorAll('ol.eqc-reading-order')][1]"
                           ".querySelectorAll('a')].map(a => a.href.split('/').slice(-2)[0])")
    assert listed == order


def test_the_a_to_z_index_lists_every_card_once_under_its_letter(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/")
    for width in (DESKTOP, PHONE):
        page.set_viewport_size(width)
        data = page.evaluate("""() => ({
          letters: [...document.querySelectorAll('.eqc-letters a')].map(a => {
            const target = document.getElementById(a.hash.slice(1)); const r = a.getBoundingClientRect();
            return {text: a.textContent, target: target ? target.textContent.trim()[0] : null,
                    w: r.width, h: r.height}; }),
          cards: [...document.querySelectorAll('ul.eqc-az > li')].map(li => li.querySelector('a').href),
          summaries: [...document.querySelectorAll('.eqc-az-summary')].filter(s => s.innerText.trim()).length,
          wide: document.documentElement.scrollWidth > document.documentElement.clientWidth})""")
        assert all(x["target"] == x["text"] for x in data["letters"]), data["letters"]
        assert min(min(x["w"], x["h"]) for x in data["letters"]) >= 24, "letter targets under 24 px"
        assert sorted(data["cards"]) == sorted(base_url + f"cards/{c.id}/" for c in CARDS)
        assert data["summaries"] == len(CARDS) and not data["wide"]
    text = page.evaluate(VISIBLE_TEXT)
    assert tex_marks(text) == [] and len(text) > 100 * len(CARDS)


def test_tag_pages_and_the_tags_index(visit: Visit, base_url: str) -> None:
    tags = tagged_cards(CARDS)
    page = visit.open(base_url + "tags/attention/")
    listed = page.evaluate("() => [...document.querySelectorAll('ul.eqc-az > li > a')].map(a => a.href)")
    assert listed and sorted(listed) == sorted(base_url + f"cards/{c.id}/" for c in tags["attention"][1])
    index = visit.open(base_url + "tags/")
    links = index.evaluate("() => [...document.querySelectorAll('.eqc-tag-index li a')].map(a => a.href)")
    assert sorted(links) == sorted(base_url + (f"tags/{slug}/" if len(cards) > 1 else f"cards/{cards[0].id}/")
                                   for slug, (_, cards) in tags.items())
    for path in ("topics/", "parts/"):
        found = visit.open(base_url + path).evaluate(
            "() => [...document.querySelectorAll('article a')].map(a => a.href)")
        assert {base_url + f"topics/{t}/" for t in {c.topic for c in CARDS}} <= set(found), path
        assert {base_url + f"parts/{p.id}/" for p in PARTS} <= set(found), path
    assert [f for f in visit.failed if f[:1].isdigit()] == []  # no HTTP error (aborted loads aside)


def test_provenance_is_on_about_only_and_errata_are_the_sites_own(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "about/")
    links = page.evaluate("() => [...document.querySelectorAll('article a')].map(a => a.href)")
    assert {base_url + "coverage/", base_url + "about/corrections/", base_url + "errata/"} <= set(links)
    nav = page.evaluate("() => [...document.querySelectorAll('.md-nav--primary > .md-nav__list > li')]"
                        ".map(li => li.querySelector('a, label').textContent.trim())")
    assert "Coverage" not in nav and "About this site" in nav and "Tags" in nav
    errata = visit.open(base_url + "errata/").locator("article").inner_text()
    for card in CARDS:
        for entry in card.history:
            assert f"{entry.date}, release {entry.release}" in errata, card.id
    home = visit.open(base_url)
    assert seed_mentions(home.evaluate(VISIBLE_TEXT)) == []


class _Text(HTMLParser):
    """The text of a page outside scripts, styles, code and formulas."""
    SKIP = frozenset({"script", "style", "code", "pre", "svg", "title"})

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.SKIP

    def handle_endtag(self, tag):
        self.depth -= tag in self.SKIP

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def test_no_page_but_about_speaks_of_seeds(built_site: Path) -> None:
    """Every built page (the browser tests read the card pages' visible text the same way, in
    tests/built_site/test_responsive.py): the site's provenance is told on About alone."""
    found = {}
    pages = sorted(built_site.rglob("index.html"))
    for path in pages:
        where = path.parent.relative_to(built_site).as_posix() + "/"
        if where in PROVENANCE_PAGES:
            continue
        parser = _Text()
        parser.feed(path.read_text(encoding="utf-8"))
        if mentions := seed_mentions(re.sub(r"\s+", " ", " ".join(parser.parts))):
            found[where] = mentions[:2]
    assert len(pages) > len(CARDS)
    assert found == {}, f"{len(found)} pages: {dict(list(found.items())[:12])}"
