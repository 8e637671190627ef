"""A card's main formula (its hero), drawn whole at the widths the page serves, and its other
display equations numbered with anchors (#eq-2, ...) that can be linked; the hero is #eq-1."""

from __future__ import annotations

import html
import re
from typing import Any, Protocol

from . import stacking


class MathRenderer(Protocol):
    """What this module needs of mathsvg.MathRenderer (named here, so the two import one way)."""
    cache: Any

    def key(self, latex: str, display: bool) -> str: ...
    def draft(self, latex: str) -> str | None: ...
    def typeset(self, latex: str, display: bool = True) -> tuple[str, str]: ...

# How wide (in ex of the formula's own font) the hero may be, for the two layouts a card page
# serves (docs/stylesheets/card-page.css). Wide: from 45em (720 px) up, the formula is set at
# 1.125 em of 16 px body text in a box at least 644 px wide (720 px less the content's margins,
# the box's border and padding); 1 ex is about 0.53 em, 9.5 px, so 644 px hold 67 ex: 64 leaves
# room for a font with a smaller x-height. Narrow: a phone (from 360 px) gives the box 308 px at
# 16 px body text, 8.5 px per ex: 36 ex.
WIDE_EX = 64.0
NARROW_EX = 36.0
# The card's main formula as arithmatex leaves it, inside render.py's #equation block.
HERO = re.compile(r'(<div class="eqc-equation" id="equation">\s*)'
                  r'<div class="arithmatex">\\\[(?P<tex>.*?)\\\]</div>',
                  re.S)
DISPLAY = re.compile(r'<div class="arithmatex">(?=\\\[)')
SVG_WIDTH = re.compile(r'<svg[^>]*?\swidth="([\d.]+)ex"')


def width_ex(svg: str) -> float:
    """A typeset formula's width, in ex of its font (MathJax sizes its SVG so)."""
    match = SVG_WIDTH.search(svg)
    return float(match.group(1)) if match else 0.0


def _layout_key(latex: str, renderer: MathRenderer, budget_ex: float) -> str:
    return renderer.key(f"stack:{budget_ex}:{stacking.FORMAT}\0{latex}", True)


def laid_out(latex: str, renderer: MathRenderer) -> bool:
    """Whether both of the formula's layouts are in the renderer's cache already."""
    cache = renderer.cache
    return cache is not None and all(cache.get(_layout_key(latex, renderer, budget)) is not None
                                     for budget in (WIDE_EX, NARROW_EX))


def layout(latex: str, renderer: MathRenderer, budget_ex: float) -> str:
    """The TeX that draws `latex` within `budget_ex` (stacked into aligned lines where needed),
    cached with the formula's SVGs so a warm build does not search again."""
    key = _layout_key(latex, renderer, budget_ex)
    if renderer.cache is not None and (stored := renderer.cache.get(key)) is not None:
        return stored["layout"]
    def fits(tex: str) -> bool:
        drawn = renderer.draft(tex)
        return drawn is not None and width_ex(drawn) <= budget_ex

    found = stacking.stack(latex, fits)
    if found != latex and renderer.draft(found) is None:
        found = latex  # a layout MathJax cannot draw is never shown: the formula scrolls instead
    if renderer.cache is not None:
        renderer.cache.put(key, {"layout": found})
    return found


def hero_markup(latex: str, renderer: MathRenderer) -> str:
    """The main formula: its wide layout and, where a phone needs another, its narrow one (the
    page's stylesheet shows one of them); both are named by the spoken words of the formula as
    the card writes it, and copy as that TeX."""
    label = html.escape(renderer.typeset(latex, True)[1], quote=True)
    tex = html.escape(latex, quote=True)
    layouts = {"wide": layout(latex, renderer, WIDE_EX), "narrow": layout(latex, renderer, NARROW_EX)}
    if layouts["narrow"] == layouts["wide"]:
        layouts = {"both": layouts["wide"]}
    spans = [f'<span class="eqc-math eqc-fit-{name}" role="img" aria-label="{label}" data-tex="{tex}">'
             f"{renderer.typeset(drawn, True)[0]}</span>" for name, drawn in layouts.items()]
    # It scrolls (the exception) where neither layout fits: a keyboard reaches it (tabindex).
    return (f'<div class="arithmatex eqc-hero" id="eq-1" tabindex="0">{"".join(spans)}'
            f'<span class="eqc-tex" hidden>\\[{tex}\\]</span></div>')


def mark_card_formulas(page_html: str) -> tuple[str, str | None]:
    """A card page's HTML with its hero taken out (its TeX returned, None on other pages) and a
    placeholder left, and every other display equation numbered from 2 in order."""
    hero = HERO.search(page_html)
    if hero is None:
        return page_html, None
    before, after = page_html[:hero.end()], page_html[hero.end():]
    numbers = iter(range(2, 10_000))
    after = DISPLAY.sub(lambda _: f'<div class="arithmatex eqc-numbered" id="eq-{next(numbers)}">', after)
    before = before[:hero.start()] + hero.group(1) + HERO_PLACEHOLDER
    return before + after, html.unescape(hero.group("tex")).strip()


HERO_PLACEHOLDER = "<!-- eqc-hero -->"


def equation_number(number: str) -> str:
    """The number shown beside a numbered equation: a link to its own anchor."""
    return (f'<a class="eqc-eq-number" href="#eq-{number}" aria-label="Link to equation {number}">'
            f"({number})</a>")
