"""Flattened formula SVG: exact geometry, fallbacks, and the same picture as MathJax's in Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from eqcards.typeset.mathsvg import ANNOTATION, MathRenderer, typeset_html
from eqcards.typeset.svgflat import Unflattenable, flatten

TOY = ('<svg style="vertical-align: -0.5ex;" xmlns="http://www.w3.org/2000/svg" width="2ex" height="1ex" '
       'role="img" focusable="false" viewBox="0 -750 900 1000" xmlns:xlink="http://www.w3.org/1999/xlink">'
       '<defs><path id="MJX-1-A" d="M0 0L100 0L100 200ZM10 10L20 10L20 20Z"/>'
       '<path id="MJX-1-SP" d=""/></defs>'
       '<g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)">'
       '<g data-mjx-texclass="ORD"><use xlink:href="#MJX-1-A"/></g>'
       '<g transform="translate(300.4,-150) scale(0.5)"><use xlink:href="#MJX-1-A"/>'
       '<use xlink:href="#MJX-1-SP"/></g><rect width="50" height="10" x="500" y="220"/></g></svg>')


def test_glyphs_and_rules_become_one_path_in_formula_coordinates() -> None:
    # Glyph A as drawn (y flipped), A again at half size moved by (300.4, -150) (rounded to
    # whole units), the space draws nothing, the rule is a closed box.
    assert flatten(TOY) == (
        '<svg style="vertical-align: -0.5ex;" width="2ex" height="1ex" viewBox="0 -750 900 1000" '
        'fill="currentColor" aria-hidden="true" focusable="false"><path d="'
        'M0 0h100v-200zm10-10h10v-10z'
        'M300 150h50v-100zm5-5h5v-5z'
        'M500-220h50v-10h-50z"/></svg>')


@pytest.mark.parametrize("change", [
    ('fill="currentColor" stroke-width="0"', 'fill="red" stroke-width="0"'),  # \color
    ('<rect width="50"', '<text>x</text><rect width="50"'),
    ('L100 200ZM10', 'A5 5 0 0 1 100 200ZM10'),
    ('transform="translate(300.4,-150) scale(0.5)"', 'transform="rotate(30)"'),
    ('<use xlink:href="#MJX-1-A"/></g>', '<use xlink:href="#nowhere"/></g>'),
])
def test_anything_unknown_is_refused_rather_than_drawn_differently(change: tuple[str, str]) -> None:
    assert change[0] in TOY
    with pytest.raises(Unflattenable):
        flatten(TOY.replace(*change))


def test_the_renderer_ships_flat_formulas_and_keeps_coloured_ones_as_drawn() -> None:
    renderer = MathRenderer(None)
    flat = renderer.svg(r"\frac{\sqrt{a}}{b} + \sum_{i=1}^n x_i^2")
    assert flat.count("<path") == 1 and "<use" not in flat and "<g" not in flat
    assert 'aria-hidden="true"' in flat
    page = typeset_html('<span class="arithmatex">\\(\\color{red}{x} + y\\)</span>'
                        '<span class="arithmatex">\\(a + b\\)</span>', renderer)
    assert page.count('class="eqc-glyphs"') == 1 and page.count("<use") >= 3  # the coloured one
    assert page.count('role="img"') == 2 and 'aria-label="a plus b"' in page


FORMULAS = [
    (r"\frac{\partial \mathcal{L}}{\partial \theta} = "
     r"\mathbb{E}_{x \sim p}\left[\nabla_\theta \log p_\theta(x)\right]", True),
    (r"\operatorname{softmax}(z)_i = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_j}}", True),
    (r"\sqrt{\frac{1}{d_k}}\, Q K^\top \quad \hat{y} \tilde{x} \bar{\alpha}_t \overline{xy}", True),
    (r"\eta_t = \begin{cases} \eta_{\max} \frac{t}{T_w} & t < T_w \\ \eta_{\min} + \frac{1}{2}"
     r"(\eta_{\max} - \eta_{\min})\left(1 + \cos \frac{\pi t}{T}\right) & \text{otherwise} \\ 0 & t > T"
     r"\\ 1 & t = 0 \end{cases}", True),
    (r"\left\{ \begin{matrix} a \\ b \\ c \\ d \\ e \\ f \end{matrix} \right.", True),
    (r"\mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\sum_{n=1}^N w_n \log p_n\Big)", False),
    (r"\|x\|_2^2 \le \prod_{t=1}^T (1 - \beta_t) \binom{n}{k}", False),
]


@pytest.mark.browser
def test_flat_formulas_look_like_mathjax_in_chromium(browser: Browser) -> None:
    renderer = MathRenderer(None)
    pairs = []
    for latex, display in FORMULAS:
        original = ANNOTATION.sub("", renderer._raw(latex, display))
        flat = flatten(original).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
        pairs.append((original, flat))
    assert any("<svg x=" in flat or "<svg y=" in flat for _, flat in pairs)  # a clipped brace piece
    page = browser.new_page()
    # Both drawn as images at 3x, then compared pixel by pixel: [pixels that differ, inked pixels].
    counts = page.evaluate("""async (pairs) => {
        const load = (svg) => new Promise((ok, bad) => { const im = new Image(); im.onload = () => ok(im);
            im.onerror = bad; im.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg); });
        const out = [];
        for (const [a, b] of pairs) {
            const [ia, ib] = [await load(a), await load(b)];
            const w = Math.ceil(ia.width * 3), h = Math.ceil(ia.height * 3);
            const pixels = (im) => { const c = new OffscreenCanvas(w, h).getContext('2d');
                c.drawImage(im, 0, 0, w, h); return c.getImageData(0, 0, w, h).data; };
            const [pa, pb] = [pixels(ia), pixels(ib)];
            let differ = 0, ink = 0;
            for (let i = 3; i < pa.length; i += 4) {
                if (pa[i] > 0) ink++;
                if (Math.abs(pa[i] - pb[i]) > 96) differ++;
            }
            out.push([differ, ink, ia.width === ib.width && ia.height === ib.height]);
        }
        return out; }""", pairs)
    page.close()
    for (latex, _), (differ, ink, same_size) in zip(FORMULAS, counts, strict=True):
        assert same_size and ink > 500, latex
        assert differ <= ink * 0.002, f"{latex}: {differ} of {ink} inked pixels differ"
