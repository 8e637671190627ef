"""Typeset TeX to SVG at build time (MathJax 4 in QuickJS), cached by formula, so pages need no MathJax."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from ..core.errors import shorten
from ..snippets.cache import ResultCache
from . import hero, speech, speech_words
from .pageglyphs import share_glyphs
from .svgflat import Unflattenable, flatten

ERROR_ATTRIBUTE = re.compile(r'data-mjx-error="([^"]*)"')
MACRO = re.compile(r"\\([A-Za-z]+)")
GLYPH_ID = re.compile(r"MJX-\d+-")
# MathJax annotates every node with its TeX and MathML role; pages never read those, and they
# double the size of each formula. (An error is detected before they are dropped.)
ANNOTATION = re.compile(r' data-(?:latex|mml-node|c|latex-item|semantic-[a-z-]+)="[^"]*"')
# Bump when the post-processing below changes, so cached SVGs are made again.
SVG_FORMAT = "4"
# The spoken words are cached with the SVG; any change to how they are made makes them again.
SPEECH_FORMAT = hashlib.sha256(b"".join(Path(m.__file__).read_bytes()
                                         for m in (speech, speech_words))).hexdigest()[:16]
# What arithmatex (generic mode) leaves in the HTML: \( \) inline in a span, \[ \] in a div.
# (A card's display equations other than its main one carry a number and an anchor; hero.py.)
ARITHMATEX = re.compile(
    r'<(span|div) class="arithmatex(?P<numbered> eqc-numbered" id="eq-(?P<number>\d+))?">'
    r'(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\])</\1>', re.S)


class LatexError(ValueError):
    """MathJax could not typeset a formula; the message says why."""


DRAWN_KEPT = 1024  # drafts and formulas remembered per renderer (a few KB each)


class MathRenderer:
    """One QuickJS MathJax instance, plus a content-addressed cache of the SVG it produced."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.cache = ResultCache(cache_dir) if cache_dir is not None else None
        self.version = metadata.version("quickjax")
        self._engine = None
        self.rendered = 0  # formulas typeset by this instance (cache misses)
        # What MathJax drew last, by (TeX, display): laying out a main formula measures the same
        # candidate lines again and again (60% of its drafts repeat one), then typesets the winner.
        self._drawn: dict[tuple[str, bool], str] = {}

    def key(self, latex: str, display: bool) -> str:
        stamp = f"{self.version}\0{SVG_FORMAT}\0{SPEECH_FORMAT}\0{display}\0{latex}"
        return hashlib.sha256(stamp.encode()).hexdigest()

    def _raw(self, latex: str, display: bool) -> str:
        if (latex, display) in self._drawn:
            return self._drawn[latex, display]
        if self._engine is None:
            import quickjax

            self._engine = quickjax.MathJaxRenderer()
        if len(self._drawn) >= DRAWN_KEPT:
            self._drawn.clear()  # one formula's search at a time is what repeats
        svg = self._drawn[latex, display] = self._engine.render(latex, display=display)
        return svg

    def draft(self, latex: str) -> str | None:
        """A display formula as MathJax draws it, uncached, or None if it does not typeset: for
        measuring a layout that may never be shown."""
        svg = self._raw(latex, True)
        return None if ERROR_ATTRIBUTE.search(svg) or 'fill="red"' in svg else svg

    def svg(self, latex: str, display: bool = True) -> str:
        """The formula as SVG; raises LatexError if MathJax reports any problem."""
        return self.typeset(latex, display)[0]

    def typeset(self, latex: str, display: bool = True) -> tuple[str, str]:
        """The formula as SVG and as the words a screen reader says for it (read from the
        MathML tree MathJax draws into its SVG); raises LatexError on any problem."""
        key = self.key(latex, display)
        if self.cache is not None and (stored := self.cache.get(key)) is not None:
            return stored["svg"], stored["speech"]
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
        spoken = speech.speak(svg)  # before the annotations it reads are dropped
        # Glyph ids are numbered per render; make them unique per formula so a page stays valid.
        svg = ANNOTATION.sub("", GLYPH_ID.sub(f"MJX-{key[:10]}-", svg))
        try:
            svg = flatten(svg)  # one path per formula: far less for the browser to parse
        except Unflattenable:  # kept as MathJax drew it; its glyphs are shared per page
            svg = svg.replace('role="img" focusable="false"', 'aria-hidden="true" focusable="false"', 1)
        self.rendered += 1
        if self.cache is not None:
            # The TeX too, unused by the build: the bench typesets every formula a cold build
            # typeset, one by one, as the floor of its time (scripts/bench_builds.py).
            self.cache.put(key, {"svg": svg, "speech": spoken, "tex": latex, "display": display})
        return svg, spoken

    def markup(self, latex: str, display: bool) -> str:
        """The HTML that replaces one formula: the SVG, named by its spoken words for screen
        readers, with its TeX kept for copying (data-tex) and as text that search indexes but
        the page does not show (`hidden` in the markup itself, so no browser ever lays it out,
        stylesheet or not)."""
        svg, speech = self.typeset(latex, display)
        tex = html.escape(latex, quote=True)
        label = html.escape(speech, quote=True)
        delimited = f"\\[{tex}\\]" if display else f"\\({tex}\\)"
        # An inline formula longer than a phone's line cannot wrap: it scrolls in its own box.
        wide = not display and hero.width_ex(svg) > WIDE_INLINE_EX
        attributes = 'class="eqc-math eqc-wide" tabindex="0"' if wide else 'class="eqc-math"'
        return (f'<span {attributes} role="img" aria-label="{label}" data-tex="{tex}">{svg}</span>'
                f'<span class="eqc-tex" hidden>{delimited}</span>')


# Past this width (in ex of the text) an inline formula may not fit a 320 px phone's line.
WIDE_INLINE_EX = 30.0


def typeset_html(page_html: str, renderer: MathRenderer) -> str:
    """Replace every arithmatex formula in a rendered page by its SVG; on a card page, its main
    formula by its layouts for wide and narrow screens (hero.py). Raises LatexError."""
    page_html, main = hero.mark_card_formulas(page_html)

    def replace(match: re.Match[str]) -> str:
        display = match.group("display") is not None
        latex = html.unescape(match.group("display") if display else match.group("inline")).strip()
        try:
            inner = renderer.markup(latex, display)
        except LatexError as exc:
            raise LatexError(f"{exc} in `{shorten(latex)}`") from None
        # A display formula scrolls in its own block when wider than the screen: a keyboard
        # must reach it too (tabindex), or its hidden part is out of reach without a pointer.
        focus = ' tabindex="0"' if display else ""
        if number := match.group("number"):
            return (f'<div class="arithmatex eqc-numbered" id="eq-{number}"{focus}>{inner}'
                    f"{hero.equation_number(number)}</div>")
        return f'<{match.group(1)} class="arithmatex"{focus}>{inner}</{match.group(1)}>'

    page_html = ARITHMATEX.sub(replace, page_html)
    if main is not None:
        try:
            drawn = hero.hero_markup(main, renderer)
        except LatexError as exc:
            raise LatexError(f"{exc} in `{shorten(main)}`") from None
        page_html = page_html.replace(hero.HERO_PLACEHOLDER, drawn, 1)
    return share_glyphs(page_html)


def _render_chunk(job: tuple[str, list[tuple[str, bool]], list[str]]) -> int:
    cache_dir, formulas, heroes = job
    renderer = MathRenderer(Path(cache_dir))
    for latex, display in formulas:
        try:
            renderer.svg(latex, display)
        except LatexError:
            pass  # reported, with its file and line, by the sequential check that follows
    for latex in heroes:
        try:
            hero.hero_markup(latex, renderer)
        except LatexError:
            pass  # reported by the page that shows it
    return renderer.rendered


def prerender(formulas: list[tuple[str, bool]], cache_dir: Path, workers: int,
              heroes: Sequence[str] = ()) -> int:
    """Typeset the formulas missing from the cache in parallel processes, each with its own
    MathJax, so a cold build uses every core; and lay out each card's main formula (`heroes`),
    whose search for line breaks typesets it many times over, most of a cold build's work.
    Returns how many were missing."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    probe = MathRenderer(cache_dir)
    assert probe.cache is not None
    missing = [f for f in dict.fromkeys(formulas) if probe.cache.get(probe.key(*f)) is None]
    unplaced = [h for h in dict.fromkeys(heroes) if not hero.laid_out(h, probe)]
    # Starting MathJax twice costs more than it saves on a few formulas (a layout search is ~20).
    if workers < 2 or len(missing) + 20 * len(unplaced) < 50:
        return len(missing)
    # The main formulas first, longest first: the longest layout searches end the run otherwise.
    unplaced.sort(key=len, reverse=True)
    chunks = [(str(cache_dir), missing[i::workers], unplaced[i::workers]) for i in range(workers)]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        list(pool.map(_render_chunk, chunks))
    return len(missing)
    chunks = [(str(cache_dir), missing[i::workers]) for i in range(workers)]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        list(pool.map(_render_chunk, chunks))
    return len(missing)
