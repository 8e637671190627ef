"""The notation index in the browser, at a phone's width and a desktop's, light and dark: grouped
Latin, then Greek in the alphabet's order, then the rest; the letter bar jumps; the filter narrows;
nothing scrolls sideways; and the page is a fraction of the one-table index it replaced (3.9 MB)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_fixtures import Visit
from playwright.sync_api import Browser

from eqcards.pages.symbols import GREEK_GLYPH, GREEK_ORDER

pytestmark = pytest.mark.browser
MAX_BYTES = 600_000


def test_symbols_page_is_small(built_site: Path) -> None:
    assert (built_site / "symbols" / "index.html").stat().st_size < MAX_BYTES


@pytest.mark.parametrize(("width", "height", "scheme"), [(390, 844, "dark"), (1280, 900, "light")])
def test_symbols_page_is_grouped_jumps_filters_and_fits(browser: Browser, base_url: str, width: int,
                                                        height: int, scheme: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    visit = Visit(page, base_url)
    visit.open(base_url + "symbols/")
    headings = page.locator(".eqs-group h2").evaluate_all("hs => hs.map(h => h.id.slice(4))")
    latin = [h for h in headings if len(h) == 1]
    greek = [h for h in headings if h in GREEK_GLYPH]
    assert latin == sorted(latin) and len(latin) >= 20 and all(h.isalpha() and h.isupper() for h in latin)
    assert greek == sorted(greek, key=GREEK_ORDER.index) and len(greek) >= 10
    assert headings == latin + greek + ["other"]
    bar = page.locator(".eqs-bar a").all_inner_texts()
    assert bar[:len(latin)] == latin and bar[len(latin):-1] == [GREEK_GLYPH[g] for g in greek]
    entries = page.locator(".eqs-list > div").count()
    symbols = page.locator(".eqs-list > div > dt .eqc-math").evaluate_all("ms => ms.map(m => m.dataset.tex)")
    assert len(symbols) == entries == len(set(symbols)) > 150  # each symbol once, typeset
    assert not any(s.replace(".", "").replace(",", "").isdigit() for s in symbols)

    # Text a reader can read on a phone, and nothing wider than the screen.
    sizes = page.evaluate("""() => {
        const dd = getComputedStyle(document.querySelector('.eqs-list dd')).fontSize;
        return {dd: parseFloat(dd), page: document.documentElement.scrollWidth,
                widest: Math.max(...[...document.querySelectorAll('.eqs-list dd')].slice(0, 300)
                    .map(d => d.getBoundingClientRect().right))}; }""")
    assert sizes["dd"] >= 15 and sizes["page"] <= width and sizes["widest"] <= width, sizes

    # The letter bar: σ jumps to its group, whose heading is on screen and not under the bar.
    page.locator(".eqs-bar a", has_text="σ").click()
    page.wait_for_function("() => location.hash === '#sym-sigma'")
    page.wait_for_timeout(100)
    seen = page.evaluate("""() => { const h = document.getElementById('sym-sigma').getBoundingClientRect();
        const top = document.elementFromPoint(h.left + 5, h.top + h.height / 2);
        return {top: h.top, bottom: h.bottom, covered: !top || !top.closest('#sym-sigma')}; }""")
    assert 0 <= seen["top"] and seen["bottom"] <= height / 2 and not seen["covered"], seen

    # The filter, reached and typed into from the keyboard: only meanings with the word are left.
    box = page.get_by_label("Filter symbols")
    box.focus()
    page.keyboard.type("sigmoid")
    left = page.evaluate("""() => [...document.querySelectorAll('.eqs-list > div:not([hidden])')].map(e =>
        [e.querySelector('dt .eqc-math').dataset.tex,
         [...e.querySelectorAll('dd:not([hidden])')].map(d => d.textContent)])""")
    assert 0 < len(left) < entries / 10 and [tex for tex, _ in left].count("\\sigma") == 1, left
    assert all(meanings and all("sigmoid" in m.lower() for m in meanings) for _, meanings in left), left
    assert page.locator("#eqs-count").inner_text() == f"{len(left)} of {entries} symbols"
    assert page.locator(".eqs-bar a.eqs-off").count() > 20  # letters with nothing left are dimmed
    page.keyboard.press("Control+A")
    page.keyboard.type("zzqqxx")
    assert page.locator(".eqs-none").is_visible()
    page.keyboard.press("Backspace")
    context.close()
    assert visit.outside == [] and visit.failed == []
