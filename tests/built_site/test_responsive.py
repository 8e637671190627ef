"""What a reader sees at phone, tablet and desktop widths, in light and dark: every formula
visible at its natural size (never shrunk, never clipped, scrolling in its own block when too
wide), no page that scrolls sideways, search usable on a phone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_fixtures import TEX_MARKS, VISIBLE_TEXT, Visit, accessible_image_names, open_search, tex_marks
from conftest import ROOT
from playwright.sync_api import Browser, Page

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.seeds import read_index

pytestmark = pytest.mark.browser

# (width, height): narrowest phone we support, two common phones, a tablet, a desktop.
WIDTHS = [(320, 640), (360, 740), (390, 844), (768, 1024), (1280, 900)]
SCHEMES = {"light": "default", "dark": "slate"}
MIN_FONT_PX = 12  # table text on a phone; nothing smaller is legible
CARDS = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                   read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")
# The cards whose equations are longest in TeX are the ones most likely to be too wide.
WIDEST = [c.id for c in sorted(CARDS, key=lambda c: -len(c.equation))[:4]]
KEY_PAGES = {"home": "", "topic": f"topics/{CARDS[0].topic}/", "cheatsheet": "cheatsheet/",
             "symbols": "symbols/", "numbers": "numbers/", "errata": "errata/",
             "worked examples": "examples/", "example": "examples/from-logits-to-text/",
             **{f"card {card_id}": f"cards/{card_id}/" for card_id in WIDEST}}

# In the page: every formula's natural size (its SVG is sized in ex of its own font), what the
# browser drew, and whether it lies inside the box that scrolls it; and every element that sticks
# out past the right edge of the screen without a scrolling or clipping ancestor.
LAYOUT_PROBE = """() => {
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;height:1ex;width:1ex';
  const body = document.querySelector('.md-typeset') || document.body;
  const bodyFont = parseFloat(getComputedStyle(body).fontSize);
  const formulas = [];
  const svgs = [...document.querySelectorAll('.eqc-math > svg')]
    .filter(svg => !svg.closest('.eqc-tex, [hidden], details:not([open])'))
    // A card's main formula is drawn twice, for wide and narrow screens; the stylesheet shows one.
    .filter(svg => !svg.closest('.eqc-hero') || svg.checkVisibility());
  // Every probe in at once, then every read: one layout for the page, not one per formula (the
  // cheatsheet and the symbols page hold thousands).
  const probes = svgs.map(svg => svg.parentElement.appendChild(probe.cloneNode()));
  const exs = probes.map(p => p.getBoundingClientRect().height);
  probes.forEach(p => p.remove());
  for (const [i, svg] of svgs.entries()) {
    const ex = exs[i];
    const box = svg.getBoundingClientRect();
    const scroller = svg.closest(
      'div.arithmatex, .eqc-sheet-formula, .md-typeset__table, .md-typeset__scrollwrap');
    const holder = scroller ? scroller.getBoundingClientRect() : null;
    const style = getComputedStyle(svg);
    // The text the formula stands in (a table cell's text is smaller than a paragraph's).
    const around = parseFloat(getComputedStyle(svg.closest('.arithmatex, .eqc-math').parentElement).fontSize);
    formulas.push({
      tex: (svg.parentElement.getAttribute('data-tex') || '').slice(0, 60),
      display: !!svg.closest('div.arithmatex, #equation'),
      width: box.width, height: box.height,
      naturalWidth: parseFloat(svg.getAttribute('width')) * ex,
      naturalHeight: parseFloat(svg.getAttribute('height')) * ex,
      fontSize: parseFloat(style.fontSize), around, bodyFont,
      // Inside its scrolling box vertically; horizontally it may extend, that is what scrolls.
      clipped: holder ? (box.top < holder.top - 1 || box.bottom > holder.bottom + 1 ||
                         (scroller.scrollWidth < box.width - 1)) : false,
    });
  }
  const viewport = document.documentElement.clientWidth;
  const sticking = [];
  const clips = el => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      return a !== document.body && a !== document.documentElement;
    }
    return false;
  };
  // Off-canvas drawers are passed over whole, and so is the inside of every SVG (an inline SVG
  // clips its own drawing; the SVG element itself is measured): a formula's glyphs are most of a
  // card's elements, and measuring each was most of this probe's time.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {acceptNode: el =>
    el.matches('.md-sidebar, .md-search, .md-nav, [hidden]') ? NodeFilter.FILTER_REJECT :
    el.parentElement && el.parentElement.closest('svg') ? NodeFilter.FILTER_REJECT
                                                        : NodeFilter.FILTER_ACCEPT});
  for (let el = walker.nextNode(); el; el = walker.nextNode()) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= viewport + 1) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none' || s.position === 'fixed') continue;
    const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    if (!clips(el)) sticking.push(`${name} right=${Math.round(r.right)}`);
  }
  return {formulas, sticking: sticking.slice(0, 10), scrollWidth: document.documentElement.scrollWidth,
          viewport, scheme: document.body.getAttribute('data-md-color-scheme')};
}"""


# On a card, in the same visit: the main formula whole (wider than its box only as an exception,
# counted), at least body size and not outranked by the summary; symbol-table text near body size;
# no heading whose permalink (¶) takes a line of its own.
CARD_PROBE = """() => {
  const hero = document.querySelector('#eq-1');
  const svg = [...hero.querySelectorAll('.eqc-math > svg')].find(s => s.checkVisibility());
  const shown = [...document.querySelectorAll('#equation .eqc-math > svg')].find(s => s.checkVisibility());
  if (!svg || !shown) return {equation: null};
  const box = hero.getBoundingClientRect(), drawn = svg.getBoundingClientRect();
  const size = el => parseFloat(getComputedStyle(el).fontSize);
  const body = size(document.querySelector('.md-typeset'));
  const cells = [...document.querySelectorAll('h2#symbols ~ * td, h2#symbols + table td')].slice(0, 3);
  const links = [...document.querySelectorAll('.md-typeset :is(h2, h3) > .headerlink')];
  // Each heading's height with and without its permalink: all measured, all hidden, all measured
  // again (two layouts, not two per heading).
  const before = links.map(link => link.parentElement.getBoundingClientRect().height);
  links.forEach(link => { link.style.display = 'none'; });
  const without = links.map(link => link.parentElement.getBoundingClientRect().height);
  links.forEach(link => { link.style.display = ''; });
  const lonePilcrows = links.filter((link, i) => before[i] > without[i] + 1)
    .map(link => link.parentElement.id);
  const equation = shown.getBoundingClientRect();
  return {equation: {width: equation.width, height: equation.height},
          whole: hero.scrollWidth <= hero.clientWidth + 1 && drawn.left >= box.left - 1
                 && drawn.right <= box.right + 1,
          overflow: Math.round(Math.max(hero.scrollWidth - hero.clientWidth, drawn.right - box.right)),
          formula: size(svg), body, summary: size(document.querySelector('.eqc-summary')),
          cells: cells.map(size), lonePilcrows};
}"""


def card_problems(card_id: str, data: dict[str, Any], width: int) -> list[str]:
    """What is wrong with a card's main formula, symbol table and headings at this width (the
    formula not being whole is counted by the caller, not listed here, below desktop width)."""
    problems = []
    if width >= 1280 and not data["whole"]:
        problems.append(f"the main formula is {data['overflow']} px wider than its box")
    if data["formula"] < data["body"] - 0.5 or data["summary"] > data["formula"] + 0.5:
        problems.append(f"the main formula is set at {data['formula']} px, the body at {data['body']} px "
                        f"and the summary at {data['summary']} px")
    if any(cell < 0.9 * data["body"] for cell in data["cells"]):
        problems.append(f"symbol-table text at {data['cells']} px, under 90% of the body's {data['body']} px")
    if data["lonePilcrows"]:
        problems.append(f"a heading's permalink wraps onto a line of its own: {data['lonePilcrows']}")
    return problems


# A card page's two probes in one round trip.
CARD_PAGE_PROBE = f"() => ({{layout: ({LAYOUT_PROBE})(), card: ({CARD_PROBE})()}})"


def layout_problems(page: Page, data: dict[str, Any] | None = None) -> list[str]:
    """Everything a reader would see wrong on this page at this width (from LAYOUT_PROBE's
    `data`, read here when not given)."""
    data = data if data is not None else page.evaluate(LAYOUT_PROBE)
    problems = []
    if data["scrollWidth"] > data["viewport"] + 1:
        problems.append(f"the page scrolls sideways: {data['scrollWidth']} px wide in a "
                        f"{data['viewport']} px viewport")
    problems += [f"sticks out of the screen: {s}" for s in data["sticking"]]
    for f in data["formulas"]:
        where = f"formula {f['tex']!r}"
        if f["width"] <= 0 or f["height"] <= 0:
            problems.append(f"{where} is invisible ({f['width']:.0f} x {f['height']:.0f})")
        elif f["width"] < 0.98 * f["naturalWidth"] or f["height"] < 0.98 * f["naturalHeight"]:
            problems.append(f"{where} is shrunk to {f['width']:.0f} x {f['height']:.0f}, natural "
                            f"{f['naturalWidth']:.0f} x {f['naturalHeight']:.0f}")
        if f["fontSize"] < f["around"] - 0.5 or f["fontSize"] < MIN_FONT_PX:
            problems.append(f"{where} is set at {f['fontSize']} px, below its text's {f['around']} px "
                            f"(or under {MIN_FONT_PX} px)")
        if f["display"] and f["fontSize"] < f["bodyFont"] - 0.5:
            problems.append(f"display {where} is set at {f['fontSize']} px, below the body's "
                            f"{f['bodyFont']} px")
        if f["display"] and f["height"] < 0.75 * f["bodyFont"]:
            problems.append(f"display {where} is {f['height']:.0f} px high, under body text height")
        if f["clipped"]:
            problems.append(f"{where} is clipped by its block")
    return problems


def request_failures(visit: Visit, page: Page) -> list[str]:
    """Requests that went outside the site or failed, less those the next navigation cancelled."""
    return visit.outside + [f for f in visit.failed if f[:1].isdigit()] + page.eqc_failed  # type: ignore[attr-defined]


def new_page(browser: Browser, size: tuple[int, int], scheme: str = "light",
             mobile: bool | None = None) -> Page:
    """A fresh page; a phone-sized one behaves as a phone (touch, mobile viewport) unless told not
    to (a mobile viewport resized to desktop width keeps phone quirks no desktop has)."""
    mobile = size[0] < 700 if mobile is None else mobile
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  color_scheme=scheme, is_mobile=mobile, has_touch=mobile)
    page = context.new_page()
    page.eqc_failed = []  # type: ignore[attr-defined]
    page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED" and page.eqc_failed.append(
        f"{r.url}: {r.failure}"))
    return page


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("size", WIDTHS, ids=lambda s: f"{s[0]}px")
def test_key_pages_read_well_at_every_width(browser: Browser, base_url: str, size, scheme) -> None:
    page = new_page(browser, size, scheme)
    visit = Visit(page, base_url)
    failures = {}
    for name, path in KEY_PAGES.items():
        visit.open(base_url + path)
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == SCHEMES[scheme]
        if name.startswith("card") or name in ("topic", "cheatsheet", "symbols"):
            assert page.locator(".eqc-math > svg").count() > 0, f"{name}: no formula"
        if problems := layout_problems(page):
            failures[name] = problems[:8]
    page.context.close()
    assert failures == {}, failures
    assert request_failures(visit, page) == []


# In quarters, so that the test workers share the longest browser test and finish together.
SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda n: f"quarter-{n + 1}")
def test_every_card_shows_every_formula_at_every_width(browser: Browser, base_url: str, shard: int,
                                                       shared_tmp: Path) -> None:
    """All cards, each loaded once and looked at in every width (the layout, not the HTML,
    decides whether a formula shows: the phone bug had the SVG present with size 0 x 0), and its
    accessibility tree and its visible text read once. How many main formulas scroll on a phone
    is a count over the whole site: the quarter that finishes last checks it."""
    page = new_page(browser, WIDTHS[-1], mobile=False)
    failures = {}
    images, unnamed, read_as_tex = 0, [], []
    shown_as_tex, characters = [], 0
    not_whole: dict[int, list[str]] = {size[0]: [] for size in WIDTHS}
    cards = CARDS[shard::SHARDS]
    for card in cards:
        # Loaded wide, then narrowed: widening a page across the theme's breakpoints leaves its
        # search overlay sized for the old width, which no reader loading the page sees.
        page.set_viewport_size({"width": WIDTHS[-1][0], "height": WIDTHS[-1][1]})
        page.goto(base_url + f"cards/{card.id}/", wait_until="load")
        # In the same visit, what a screen reader is given (test_a11y reads every other page so):
        # each image (formula or figure) named, and no name TeX. The card's own content only: the
        # header, navigation and footer around it come from the theme's one template, read whole
        # on every other page by test_a11y (and here they cost a third of the reading).
        names = accessible_image_names(page.locator("article").aria_snapshot())
        images += len(names)
        unnamed += [card.id for name in names if not name.strip()]
        read_as_tex += [(card.id, name) for name in names if TEX_MARKS.search(name)]
        for size in reversed(WIDTHS):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            data = page.evaluate(CARD_PAGE_PROBE)
            problems, card_data = layout_problems(page, data["layout"]), data["card"]
            equation = card_data["equation"]
            if not equation or equation["width"] == 0 or equation["height"] == 0:
                problems.insert(0, f"the card's equation is invisible: {equation}")
            else:
                problems += card_problems(card.id, card_data, size[0])
                if not card_data["whole"]:
                    not_whole[size[0]].append(card.id)
            if problems:
                failures[f"{card.id} at {size[0]}px"] = problems[:5]
        # Last (it opens every collapsible block): no TeX in the text a reader sees (test_a11y
        # reads every other page so).
        text = page.evaluate(VISIBLE_TEXT)
        characters += len(text)
        shown_as_tex += [(card.id, found) for found in tex_marks(text)]
    page.context.close()
    assert failures == {}, dict(list(failures.items())[:10])
    # On a phone a wide formula may scroll in its box, but only as the exception.
    if (phone := phone_scrollers(shared_tmp, shard, not_whole[390])) is not None:
        assert len(phone) <= 0.1 * len(CARDS), f"{len(phone)} main formulas scroll at 390 px: {phone[:15]}"
    assert images > 4 * len(cards)
    assert not unnamed, unnamed[:10]
    assert not read_as_tex, f"{len(read_as_tex)} images named by TeX: {read_as_tex[:10]}"
    assert characters > 1000 * len(cards)  # the text really was read, every card's
    assert not shown_as_tex, f"{len(shown_as_tex)} places show TeX as text: {shown_as_tex[:15]}"


def phone_scrollers(shared_tmp: Path, shard: int, found: list[str]) -> list[str] | None:
    """Record this quarter's cards whose main formula scrolls at 390 px; once every quarter of
    this run has, all of them (None before: the test workers run the quarters side by side)."""
    folder = shared_tmp / "phone-scrollers"
    folder.mkdir(exist_ok=True)
    partial = folder / f".{shard}.tmp"
    partial.write_text(json.dumps(found), encoding="utf-8")
    partial.replace(folder / f"{shard}.json")  # whole or absent for a quarter reading it
    quarters = sorted(folder.glob("*.json"))
    if len(quarters) < SHARDS:
        return None
    return [card for path in quarters for card in json.loads(path.read_text(encoding="utf-8"))]


def test_a_card_on_a_phone_shows_equation_summary_and_symbols_first(browser: Browser, base_url: str) -> None:
    page = new_page(browser, WIDTHS[2])
    page.goto(base_url + "cards/kl-divergence/", wait_until="load")
    top = page.evaluate("""() => {
        const y = s => document.querySelector(s).getBoundingClientRect().top;
        return {summary: y('.eqc-summary'), equation: y('#equation'), symbols: y('#symbols'),
                aliases: y('.eqc-meta'), tags: document.querySelector('.md-tags') ?
                  document.querySelector('.md-tags').getBoundingClientRect().top : Infinity,
                screen: window.innerHeight}; }""")
    page.context.close()
    assert top["summary"] < top["equation"] < top["symbols"] < top["aliases"], top
    assert top["equation"] < top["screen"], "the equation is not on the first screen of a phone"
    assert top["tags"] > top["symbols"], "tags come before the formula"


def test_a_wide_formula_scrolls_in_its_own_block_with_a_cue(browser: Browser, base_url: str) -> None:
    page = new_page(browser, WIDTHS[0])
    page.goto(base_url + f"cards/{WIDEST[0]}/", wait_until="load")
    block = page.evaluate("""() => { const b = document.querySelector('#equation div.arithmatex');
        const s = getComputedStyle(b);
        return {scrolls: b.scrollWidth > b.clientWidth, overflowX: s.overflowX,
                cue: s.backgroundImage}; }""")
    page.context.close()
    assert block["scrolls"] and block["overflowX"] == "auto", block
    # The cue: shadows drawn at the block's edges (see cards.css), not a bare clipped edge.
    assert block["cue"].count("radial-gradient") == 2, block["cue"]


@pytest.mark.parametrize("size", WIDTHS[:3], ids=lambda s: f"{s[0]}px")
def test_search_works_on_a_phone(browser: Browser, base_url: str, size) -> None:
    page = new_page(browser, size)
    visit = Visit(page, base_url)
    visit.open(base_url + "cards/entropy/")
    # On a phone the search field is behind the header's search button, as a reader finds it.
    page.locator("label.md-header__button[for='__search']").click()
    open_search(page)
    page.locator("input.md-search__input").press_sequentially("perplexity", delay=20)
    page.wait_for_function("() => { const a = document.querySelector('.md-search-result__list a');"
                           " return a && a.href.includes('h=perplexity'); }", timeout=10_000)
    result = page.locator(".md-search-result__list a").first
    assert result.is_visible()
    box = result.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= size[0] + 1, box
    assert "cards/perplexity/" in result.get_attribute("href")
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0] + 1
    assert request_failures(visit, page) == []
    page.context.close()


def test_the_main_formula_has_its_own_tools_and_other_equations_are_numbered(browser: Browser,
                                                                            base_url: str) -> None:
    """Copy TeX, permalink and cite, by keyboard, labelled, offline; #eq-2 ... on a card whose
    body has display equations."""
    card = next(c for c in CARDS if "$$" in c.body)
    page = new_page(browser, WIDTHS[-1], mobile=False)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    visit = Visit(page, base_url)
    visit.open(base_url + f"cards/{card.id}/")
    tools = page.get_by_role("group", name="Formula tools")
    copy_button = tools.get_by_role("button", name="Copy TeX")
    copy_button.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("navigator.clipboard.readText()") == card.equation
    assert tools.get_by_role("status").inner_text() == "TeX copied"
    assert tools.get_by_role("link", name="Permalink").get_attribute("href") == "#eq-1"
    assert page.locator("#eq-1 .eqc-math >> visible=true").count() == 1
    tools.get_by_role("link", name="Cite").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.querySelector('.eqc-cite details').open")
    assert page.evaluate("location.hash") == "#cite-this-card"
    numbered = page.locator("div.eqc-numbered")
    assert numbered.count() == card.body.count("$$") // 2
    assert numbered.first.get_attribute("id") == "eq-2"
    number = numbered.first.get_by_role("link", name="Link to equation 2")
    assert number.inner_text() == "(2)" and number.get_attribute("href") == "#eq-2"
    assert request_failures(visit, page) == []
    page.context.close()


def test_a_printed_card_fits_its_formula_to_the_page(browser: Browser, base_url: str) -> None:
    page = new_page(browser, (794, 1123), mobile=False)  # A4 at 96 dpi
    page.emulate_media(media="print")
    for card_id in WIDEST:
        page.goto(base_url + f"cards/{card_id}/", wait_until="load")
        fit = page.evaluate("""() => { const hero = document.querySelector('#eq-1');
            const svg = [...hero.querySelectorAll('svg')].find(s => s.checkVisibility());
            const box = hero.getBoundingClientRect(), drawn = svg.getBoundingClientRect();
            return {left: drawn.left - box.left, right: box.right - drawn.right, width: drawn.width,
                    shown: [...hero.querySelectorAll('.eqc-math')]
                             .filter(m => m.checkVisibility()).length}; }""")
        assert fit["shown"] == 1 and fit["width"] > 100, (card_id, fit)
        assert fit["left"] >= -1 and fit["right"] >= -1, f"{card_id}: the printed formula is cut: {fit}"
    page.context.close()


def test_worked_example_output_keeps_whole_words_and_numbers(browser: Browser, base_url: str) -> None:
    """The budget table and PASS lines are printed text: never broken inside a word or number."""
    for size in (WIDTHS[2], WIDTHS[-1]):
        page = new_page(browser, size)
        page.goto(base_url + "examples/budget-a-7b-model/", wait_until="load")
        outputs = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output pre')]
          .map(pre => {
            const s = getComputedStyle(pre);
            return {text: pre.textContent, whiteSpace: s.whiteSpace, wordBreak: s.wordBreak,
                    lines: Math.round(pre.getBoundingClientRect().height / parseFloat(s.lineHeight))}; })""")
        page.context.close()
        assert any("GQA-8" in o["text"] for o in outputs), "the budget table is missing"
        for o in outputs:
            assert (o["whiteSpace"], o["wordBreak"]) == ("pre", "normal"), o
            # each printed line is one line on screen (within rounding of the box's height)
            assert o["lines"] <= o["text"].rstrip("\n").count("\n") + 2, o["text"][:80]
