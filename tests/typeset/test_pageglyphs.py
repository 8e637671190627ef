"""Glyph outlines shared per page: written once, joined back by the page's script into the same paths."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from eqcards.typeset.mathsvg import ARITHMATEX, MathRenderer, typeset_html
from eqcards.typeset.pageglyphs import share_glyphs

FORMULAS = [r"\operatorname{softmax}(z)_i = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_j}}",
            r"\left\{ \begin{matrix} a \\ b \\ c \\ d \\ e \\ f \end{matrix} \right.",  # a clipped brace
            r"\mathrm{KL}(p \,\Vert\, q) = \sum_x p(x) \log \frac{p(x)}{q(x)}"]
PAGE = "".join(f'<div class="arithmatex">\\[{f}\\]</div><p>x <span class="arithmatex">\\({f}\\)</span></p>'
               for f in FORMULAS)


def flat_page(renderer: MathRenderer) -> str:
    """The page as it was before sharing: every formula with its own copy of each outline."""
    return ARITHMATEX.sub(lambda m: renderer.markup(m.group("display") or m.group("inline"),
                                                    m.group("display") is not None), PAGE)


def test_each_outline_is_written_once_and_formulas_keep_only_placements() -> None:
    renderer = MathRenderer(None)
    flat, shared = flat_page(renderer), typeset_html(PAGE, renderer)
    assert shared.count('class="eqc-math"') == 2 * len(FORMULAS)
    assert '<path d="M' not in shared and shared.count("data-g=") >= 2 * len(FORMULAS)
    outlines = re.search(r"\}\)\((\[.*\])\);</script>$", shared).group(1)
    assert len(set(outlines.split('","'))) == len(outlines.split('","'))  # no outline twice
    assert len(shared) < len(flat) * 0.7


def test_a_path_not_in_the_flattened_shape_is_left_as_it_is() -> None:
    odd = '<span class="eqc-math"><svg viewBox="0 0 1 1"><path d="M0 0L5 5Z"/></svg></span>'
    assert share_glyphs(odd) == odd


@pytest.mark.browser
def test_the_pages_script_joins_exactly_the_flat_paths_back(browser: Browser) -> None:
    renderer = MathRenderer(None)
    page = browser.new_page()
    drawn = []
    for html in (flat_page(renderer), typeset_html(PAGE, renderer)):
        page.set_content(f"<!doctype html><body>{html}</body>")
        drawn.append(page.evaluate("""() => [...document.querySelectorAll('.eqc-math path')].map(p =>
            [p.getAttribute('d'), p.hasAttribute('data-g'), Math.round(p.getBBox().width)])"""))
    page.close()
    flat, joined = drawn
    assert len(flat) == len(joined) > 2 * len(FORMULAS)  # the brace's clipped piece has a path of its own
    # The same path data, number for number (the script writes "M360 -128" where svgflat wrote
    # "M360-128"), and nothing left to join.
    assert [[d.replace(" -", "-"), left, width] for d, left, width in joined] == flat
    assert all(width > 0 for _, _, width in joined)
