"""One copy per page of every glyph outline its formulas draw, joined into each formula by a script.

A flattened formula (svgflat.py) is one <path> holding each glyph instance as `M x y` and the
glyph's outline in relative commands: the outline text is the same wherever the glyph appears,
so the screen cheatsheet carried 11,000 copies of 600 outlines (3.1 MB of path data in a 3.5 MB
page). Here each formula's path keeps only where each glyph goes and which one it is
(`data-g="x y n ..."`), the page writes each distinct outline once, and a script at the end of
the page's content joins them back into the formula's path, as soon as the parser reaches it.

Measured against the alternatives in headless Chromium, on the cheatsheet's formulas (issue 26):
one <use> per glyph instance, pointing at shared definitions, cut the page to 1.0 MB but made its
math slower to show than the 3.5 MB flat paths (each <use> clones its glyph into a shadow tree;
11,000 of them cost more than parsing the flat paths), and so did SVG markers. Joining strings in
a script costs a few milliseconds and leaves one path per formula, as before. The price is that a
browser with scripts off draws no formula; each one is still named by its spoken words.

Formulas MathJax drew that svgflat could not flatten keep MathJax's own structure; their glyph
definitions are moved into one hidden <svg> at the top of the page, one copy each.
"""

from __future__ import annotations

import json
import re

# A formula as the renderer writes it: the SVG inside <span class="eqc-math">, ending where the
# span does (a clipped brace's nested <svg> ends in "</svg></g>", never in "</svg></span>").
FORMULA_SVG = re.compile(r'(<span class="eqc-math[^"]*"[^>]*>)(<svg .*?</svg>)(?=</span>)', re.S)
FLAT_PATH = re.compile(r'<path d="(M[^"]*)"/>')
# One glyph instance: its absolute first point, then the rest of its outline (relative commands;
# within a glyph a new subpath is a relative "m", so "M" starts the next instance).
INSTANCE = re.compile(r"M(-?\d+) ?(-?\d+)([a-z][^M]*)")
# Joins each formula's glyphs back into its path; `outlines` is the page's list of distinct
# outlines. The attribute is dropped once used, so running twice changes nothing.
JOIN_SCRIPT = ('<script class="eqc-outlines">(function (outlines) {{'
               'var paths = document.querySelectorAll("path[data-g]");'
               'for (var i = 0; i < paths.length; i++) {{'
               'var at = paths[i].getAttribute("data-g").split(" "), d = "";'
               'for (var j = 0; j < at.length; j += 3)'
               ' d += "M" + at[j] + " " + at[j + 1] + outlines[at[j + 2]];'
               'paths[i].setAttribute("d", d); paths[i].removeAttribute("data-g");'
               '}}}})({});</script>')
# MathJax's own glyph definitions, in a formula svgflat left as MathJax drew it.
DEFS = re.compile(r"<defs>(.*?)</defs>", re.S)
GLYPH_PATH = re.compile(r'<path id="MJX-[0-9a-f]+-([^"]+)" d="([^"]*)"\s*/?>(?:</path>)?')
GLYPH_REF = re.compile(r'(xlink:href|href)="#MJX-[0-9a-f]+-([^"]+)"')
HIDDEN_DEFS = ('<svg class="eqc-glyphs" aria-hidden="true" focusable="false" width="0" height="0" '
               'style="position:absolute;width:0;height:0;overflow:hidden"><defs>{}</defs></svg>')


class _Outlines:
    """The distinct outlines of one page, numbered in the order they are first drawn."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def placed(self, path_data: str) -> str:
        """A flattened path as glyph placements, or as it was if it is not svgflat's shape."""
        placements = []
        position = 0
        for found in INSTANCE.finditer(path_data):
            if found.start() != position:
                return f'<path d="{path_data}"/>'
            position = found.end()
            x, y, rest = found.groups()
            placements.append(f"{x} {y} {self.numbers.setdefault(rest, len(self.numbers))}")
        if position != len(path_data):
            return f'<path d="{path_data}"/>'
        return f'<path data-g="{" ".join(placements)}"/>'

    def script(self) -> str:
        # The outlines hold only letters, digits, spaces and minus signs: nothing to escape.
        return JOIN_SCRIPT.format(json.dumps(list(self.numbers), separators=(",", ":")))


def _mathjax_glyphs(page_html: str) -> str:
    """The glyph definitions of unflattened formulas, once each, in one hidden <svg> first
    (MathJax gives every such formula its own copy of each glyph)."""
    glyphs: dict[str, str] = {}

    def collect(match: re.Match[str]) -> str:
        for name, outline in GLYPH_PATH.findall(match.group(1)):
            glyphs.setdefault(name, outline)
        return ""

    page_html = DEFS.sub(collect, page_html)
    if not glyphs:
        return page_html
    page_html = GLYPH_REF.sub(lambda m: f'{m.group(1)}="#eqg-{m.group(2)}"', page_html)
    paths = "".join(f'<path id="eqg-{name}" d="{outline}"/>' for name, outline in sorted(glyphs.items()))
    return HIDDEN_DEFS.format(paths) + page_html


def share_glyphs(page_html: str) -> str:
    """The page with each glyph outline its formulas draw written once."""
    outlines = _Outlines()

    def formula(match: re.Match[str]) -> str:
        return match.group(1) + FLAT_PATH.sub(lambda p: outlines.placed(p.group(1)), match.group(2))

    page_html = _mathjax_glyphs(FORMULA_SVG.sub(formula, page_html))
    return page_html + outlines.script() if outlines.numbers else page_html
