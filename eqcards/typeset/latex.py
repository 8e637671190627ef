"""Find every formula of a card, with its line, and check that MathJax typesets it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..cards.model import Card
from ..core.errors import CardError, shorten
from .mathsvg import LatexError, MathRenderer

FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
# Same rule as arithmatex: no space just inside the dollars, no escaped dollar.
STRAY_TEX = re.compile(r"\\[A-Za-z]+")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$")


def _blank(match: re.Match[str]) -> str:
    """Spaces in place of a match, keeping its newlines so later line numbers stay right."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose_formulas(card: Card) -> Iterator[tuple[str, int, bool]]:
    """(latex, line, display) for the math in a card's prose; code is skipped."""
    body = INLINE_CODE.sub(_blank, FENCED_CODE.sub(_blank, card.body))
    for match in DISPLAY_MATH.finditer(body):
        yield match.group(1), card.body_line + body.count("\n", 0, match.start()), True
    body = DISPLAY_MATH.sub(_blank, body)
    for match in INLINE_MATH.finditer(body):
        yield match.group(1), card.body_line + body.count("\n", 0, match.start()), False


def card_formulas(card: Card) -> Iterator[tuple[str, str, int | None, bool]]:
    """(where, latex, line, display) for every formula the site will typeset for this card."""
    yield "equation", card.equation, card.line_of("equation"), True
    if card.cheatsheet.latex:
        yield "cheatsheet.latex", card.cheatsheet.latex, card.line_of("cheatsheet", "latex"), False
    for i, symbol in enumerate(card.symbols):
        yield "symbols", symbol.symbol, card.line_of("symbols", i, "symbol"), False
        for match in INLINE_MATH.finditer(symbol.meaning):
            yield "symbols (meaning)", match.group(1), card.line_of("symbols", i, "meaning"), False
    for latex, line, display in prose_formulas(card):
        yield "prose", latex, line, display


def stray_tex(card: Card) -> list[CardError]:
    """Plain-text fields (summary, symbol meanings) may hold math only inside $...$; a bare
    \\command would reach the reader as backslash and letters."""
    fields = [("summary", card.summary, card.line_of("summary"))]
    fields += [("symbol meaning", s.meaning, card.line_of("symbols", i, "meaning"))
               for i, s in enumerate(card.symbols)]
    errors = []
    for where, text, line in fields:
        if match := STRAY_TEX.search(INLINE_MATH.sub(" ", text)):
            errors.append(CardError(card.path, f"{where} has LaTeX outside $...$ (`{match.group(0)}`): "
                                    "put the formula between dollar signs", line))
    return errors


def check_latex(cards: list[Card], renderer: MathRenderer) -> list[CardError]:
    """Typeset every card formula once; one error per formula that fails, with file and line.
    The SVGs land in the renderer's cache, so the pages reuse them."""
    errors = []
    for card in cards:
        errors += stray_tex(card)
        for where, latex, line, display in card_formulas(card):
            try:
                renderer.svg(latex, display)
            except LatexError as problem:
                errors.append(CardError(card.path, f"LaTeX in {where} does not typeset: {problem} "
                                        f"in `{shorten(latex)}`", line))
    return errors


def page_formulas(card: Card) -> list[tuple[str, bool]]:
    """The formulas the site's pages will typeset for this card, as (latex, display), including
    the forms the topic page and the cheatsheet derive from the card's metadata."""
    out = [(latex.strip(), display) for _, latex, _, display in card_formulas(card)]
    out += [(card.cheatsheet_latex.strip(), True),
            (card.cheatsheet_latex.replace("|", "\\vert ").strip(), False)]
    out += [(s.symbol.replace("|", "\\vert ").strip(), False) for s in card.symbols]
    return out
