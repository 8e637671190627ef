"""Page weight: the screen cheatsheet at most 1.2 MB of HTML (it was 3.5 MB, mostly copies of the
same glyph outlines), its formulas and a card's still drawn, dark and light, with their TeX
copied as before; and no figure over the limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_fixtures import Visit
from playwright.sync_api import Browser

from eqcards.core.config import MAX_FIGURE_BYTES

pytestmark = pytest.mark.browser
CHEATSHEET_MAX_BYTES = 1_200_000
# The cheatsheet, the card with the most formulas and one of the fewest.
PAGES = ["cheatsheet/", "cards/decoder-parameter-count/", "cards/ragas-faithfulness/"]
DRAWN = """() => [...document.querySelectorAll('.eqc-math > svg')].map(svg => {
    const paths = [...svg.querySelectorAll('path')];
    const box = svg.getBoundingClientRect();
    return {tex: svg.parentElement.dataset.tex.slice(0, 50),
            waiting: paths.some(p => p.hasAttribute('data-g')),
            drawn: paths.length > 0 && paths.every(p => (p.getAttribute('d') || '').startsWith('M')),
            ink: Math.max(0, ...paths.map(p => p.getBBox().width)), width: box.width,
            fill: getComputedStyle(paths[0] || svg).fill, color: getComputedStyle(svg).color}; })"""
# Selects a formula's whole block (or inline span), as a reader's drag would, and copies it.
COPY = """(math) => { const range = document.createRange(); range.selectNode(math.closest('.arithmatex'));
    const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range);
    const data = new DataTransfer();
    document.dispatchEvent(new ClipboardEvent('copy',
        {clipboardData: data, bubbles: true, cancelable: true}));
    return [data.getData('text/plain'), math.dataset.tex, math.closest('div.arithmatex') !== null]; }"""


def test_cheatsheet_html_is_light_and_no_figure_is_over_the_limit(built_site: Path) -> None:
    assert (built_site / "cheatsheet" / "index.html").stat().st_size <= CHEATSHEET_MAX_BYTES
    figures = {p: p.stat().st_size for p in (built_site / "cards").glob("*/figure-*.svg")}
    assert len(figures) > 100
    assert {str(p): size for p, size in figures.items() if size > MAX_FIGURE_BYTES} == {}
    # The 28,736-point scatter that made a 4 MB SVG is drawn as an image inside its SVG (axes and text
    # stay vector); a figure still over the limit whole would be saved as a PNG (tests/snippets).
    [scatter] = [p for p in figures if p.parent.name == "pq-asymmetric-distance"]
    drawn = scatter.read_bytes()
    assert b"data:image/png;base64," in drawn and drawn.count(b"<path") > 20, "vector axes around an image"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_formulas_are_drawn_in_the_text_colour_and_copy_as_tex(browser: Browser, base_url: str,
                                                                scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    visit = Visit(page, base_url)
    for path in PAGES:
        visit.open(base_url + path)
        formulas = page.evaluate(DRAWN)
        assert len(formulas) > (300 if path == "cheatsheet/" else 3), path
        assert [f["tex"] for f in formulas if f["waiting"] or not f["drawn"]] == [], path
        assert [f["tex"] for f in formulas if f["width"] > 0 and f["ink"] <= 0] == [], path
        assert all(f["fill"] == f["color"] for f in formulas), (path, formulas[0])
        copied, tex, display = page.locator(".eqc-math").first.evaluate(COPY)
        assert copied == (f"$${tex}$$" if display else f"${tex}$"), path
    visit.open(base_url + "cards/pq-asymmetric-distance/")
    figure = page.locator("img.eqc-figure").first
    figure.scroll_into_view_if_needed()
    assert figure.evaluate("img => img.complete && img.naturalWidth") > 300
    assert ("invert" in figure.evaluate("img => getComputedStyle(img).filter")) == (scheme == "dark")
    context.close()
    assert visit.outside == [] and visit.failed == []
