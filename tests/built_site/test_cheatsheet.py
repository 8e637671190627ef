"""The cheatsheet on screen: headings and anchors that are their topic's name, table-of-contents
jumps that land on their heading, every formula whole beside or under its label at 1280 px, label
over formula on a phone, and print links big enough to hit."""

from __future__ import annotations

import pytest
from conftest import ROOT
from markdown.extensions.toc import slugify
from playwright.sync_api import Browser, Page

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.seeds import read_index

pytestmark = pytest.mark.browser

PARTS = load_parts(ROOT / "docs" / "topics.yml")
TOPICS = [t for part in PARTS for t in part.topics]
CARDS = load_cards(ROOT / "docs" / "cards", TOPICS, read_index(ROOT / "seeds" / "entries.txt"),
                   ROOT / "snippets")
USED_TOPICS = [t for t in TOPICS if any(c.topic == t.id for c in CARDS)]
USED_PARTS = [p for p in PARTS if any(c.topic in {t.id for t in p.topics} for c in CARDS)]
MIN_TARGET_PX = 24  # WCAG 2.2 target size (2.5.8)
MIN_TOUCH_TARGET_PX = 44  # where the pointer is a finger

# Each row: where its label and formula are, the formula's natural width, and whether it scrolls.
ROWS = """() => [...document.querySelectorAll('.eqc-sheet-row')].map(row => {
    const label = row.querySelector('.eqc-sheet-label').getBoundingClientRect();
    const cell = row.querySelector('.eqc-sheet-formula');
    const formula = cell.getBoundingClientRect();
    return {label: row.querySelector('.eqc-sheet-label').textContent.trim(),
            labelRight: label.right, labelBottom: label.bottom, formulaTop: formula.top,
            formulaLeft: formula.left, formulaWidth: formula.width, natural: cell.scrollWidth,
            clipped: cell.scrollWidth > cell.clientWidth + 1,
            gap: parseFloat(getComputedStyle(cell.parentElement).columnGap) || 0,
            rowLeft: row.getBoundingClientRect().left, rowWidth: row.getBoundingClientRect().width};
})"""
PRINT_LINKS = """() => [...document.querySelectorAll('.eqc-print-topic, .eqc-print')].map(a => {
    const r = a.getBoundingClientRect();
    return {text: a.textContent, width: r.width, height: r.height};
})"""


def open_cheatsheet(browser: Browser, base_url: str, width: int, phone: bool) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 844 if phone else 900},
                                  is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(base_url + "cheatsheet/", wait_until="load")
    return page


def test_cheatsheet_on_a_desktop(browser: Browser, base_url: str) -> None:
    page = open_cheatsheet(browser, base_url, 1280, phone=False)
    # Headings and their anchors are the topic's (or part's) name, and nothing else.
    found = page.evaluate("""() => [...document.querySelectorAll('.eqc-cheatsheet :is(h2, h3)')]
        .map(h => ({id: h.id, text: [...h.childNodes]
            .filter(n => !(n.classList && n.classList.contains('headerlink')))
            .map(n => n.textContent).join('').trim()}))""")
    titles = [t.title for t in USED_TOPICS] + [p.title for p in USED_PARTS]
    by_text = {h["text"]: h["id"] for h in found}
    assert not [h for h in found if "print" in h["text"].casefold() or "print" in h["id"]], found[:3]
    assert {t: by_text.get(t) for t in titles} == {t: slugify(t, "-") for t in titles}
    toc = page.evaluate("""() => [...document.querySelectorAll('.md-sidebar--secondary a.md-nav__link')]
        .map(a => ({text: a.textContent.trim(), href: a.getAttribute('href')}))""")
    assert toc and not [a for a in toc if "print" in (a["text"] + a["href"]).casefold()], toc[:3]
    # A jump from the table of contents lands on its heading, wherever it is in the page.
    for link in [toc[1], toc[len(toc) // 2], toc[-1]]:
        page.locator(f".md-sidebar--secondary a.md-nav__link[href='{link['href']}']").click()
        page.wait_for_function(f"() => location.hash === {link['href']!r}")
        page.wait_for_timeout(300)  # the smooth scroll, if any, and any layout after it
        landed = page.evaluate("""(id) => { const h = document.getElementById(id);
            return {top: h.getBoundingClientRect().top,
                    margin: parseFloat(getComputedStyle(h).scrollMarginTop)}; }""", link["href"][1:])
        assert abs(landed["top"] - landed["margin"]) <= 2, \
            f"{link}: heading at {landed['top']} px, not {landed['margin']}"
    # Every formula whole: beside its label where both fit, else on its own line at the row's width.
    rows = page.evaluate(ROWS)
    assert len(rows) >= len(CARDS)
    assert [r["label"] for r in rows if r["clipped"]] == []
    for r in rows:
        below = r["formulaTop"] >= r["labelBottom"] - 1
        if below:  # it would not have fitted beside its label
            assert r["labelRight"] - r["rowLeft"] + r["gap"] + r["natural"] > r["rowWidth"], r
            assert r["formulaLeft"] - r["rowLeft"] < 1, r
        else:
            assert r["formulaLeft"] >= r["labelRight"], r
    assert sum(1 for r in rows if r["formulaTop"] < r["labelBottom"] - 1) > 0.8 * len(rows)
    links = page.evaluate(PRINT_LINKS)
    assert len(links) > len(USED_TOPICS)
    assert [a for a in links if min(a["width"], a["height"]) < MIN_TARGET_PX] == []
    page.context.close()


@pytest.mark.parametrize("width", [320, 390])
def test_cheatsheet_on_a_phone(browser: Browser, base_url: str, width: int) -> None:
    page = open_cheatsheet(browser, base_url, width, phone=True)
    rows = page.evaluate(ROWS)
    links = page.evaluate(PRINT_LINKS)
    page.context.close()
    assert rows, "no cheatsheet rows"
    assert all(r["formulaTop"] >= r["labelBottom"] - 1 for r in rows), f"label beside formula at {width}px"
    assert all(r["formulaWidth"] >= 0.95 * r["rowWidth"] for r in rows), \
        f"formulas do not get the full width at {width}px"
    assert [a for a in links if min(a["width"], a["height"]) < MIN_TOUCH_TARGET_PX] == [], links[:3]
