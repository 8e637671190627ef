"""Typeset TeX to SVG at build time (MathJax 4 in QuickJS), cached by formula, so pages need no MathJax."""

from __future__ import annotations

import hashlib
import html
import re
from importlib import metadata
from pathlib import Path

from .cache import ResultCache

ERROR_ATTRIBUTE = re.compile(r'data-mjx-error="([^"]*)"')
MACRO = re.compile(r"\\([A-Za-z]+)")
GLYPH_ID = re.compile(r"MJX-\d+-")
# What arithmatex (generic mode) leaves in the HTML: \( \) inline in a span, \[ \] in a div.
ARITHMATEX = re.compile(
    r'<(span|div) class="arithmatex">(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\])</\1>', re.S)


class LatexError(ValueError):
    """MathJax could not typeset a formula; the message says why."""


class MathRenderer:
    """One QuickJS MathJax instance, plus a content-addressed cache of the SVG it produced."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.cache = ResultCache(cache_dir) if cache_dir is not None else None
        self.version = metadata.version("quickjax")
        self._engine = None
        self.rendered = 0  # formulas typeset by this instance (cache misses)

    def _key(self, latex: str, display: bool) -> str:
        return hashlib.sha256(f"{self.version}\0{display}\0{latex}".encode()).hexdigest()

    def _raw(self, latex: str, display: bool) -> str:
        if self._engine is None:
            import quickjax

            self._engine = quickjax.MathJaxRenderer()
        return self._engine.render(latex, display=display)

    def svg(self, latex: str, display: bool = True) -> str:
        """The formula as SVG; raises LatexError if MathJax reports any problem."""
        key = self._key(latex, display)
        if self.cache is not None and (stored := self.cache.get(key)) is not None:
            return stored["svg"]
        try:
            svg = self._raw(latex, display)
        except Exception as exc:  # the engine failing on a formula means the formula is bad
            raise LatexError(f"MathJax could not render it ({str(exc).splitlines()[0][:120]})") from None
        if found := ERROR_ATTRIBUTE.search(svg):
            raise LatexError(html.unescape(found.group(1)))
        if 'fill="red"' in svg and "\\color" not in latex:  # MathJax paints unknown macros red
            unknown = [m for m in dict.fromkeys(MACRO.findall(latex))
                       if 'fill="red"' in self._raw(f"\\{m}{{x}}{{y}}", False)]
            raise LatexError("undefined control sequence " + ", ".join("\\" + m for m in unknown))
        # Glyph ids are numbered per render; make them unique per formula so a page stays valid.
        svg = GLYPH_ID.sub(f"MJX-{key[:10]}-", svg)
        svg = svg.replace('role="img" focusable="false"', 'aria-hidden="true" focusable="false"', 1)
        self.rendered += 1
        if self.cache is not None:
            self.cache.put(key, {"svg": svg})
        return svg

    def markup(self, latex: str, display: bool) -> str:
        """The HTML that replaces one formula: the SVG, labelled with its TeX for screen readers
        and for copying, plus the TeX as text that search indexes but the page does not show."""
        svg = self.svg(latex, display)
        tex = html.escape(latex, quote=True)
        delimited = f"\\[{tex}\\]" if display else f"\\({tex}\\)"
        return (f'<span class="eqc-math" role="img" aria-label="{tex}" data-tex="{tex}">{svg}</span>'
                f'<span class="eqc-tex">{delimited}</span>')


def typeset_html(page_html: str, renderer: MathRenderer) -> str:
    """Replace every arithmatex formula in a rendered page by its SVG. Raises LatexError."""
    def replace(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        latex = html.unescape(match.group("display") if display else match.group("inline")).strip()
        try:
            inner = renderer.markup(latex, display)
        except LatexError as exc:
            short = latex if len(latex) <= 60 else latex[:57] + "..."
            raise LatexError(f"{exc} in `{short}`") from None
        return f'<{match.group(1)} class="arithmatex">{inner}</{match.group(1)}>'

    return ARITHMATEX.sub(replace, page_html)
