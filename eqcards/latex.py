"""Check that every formula of a card parses, running MathJax outside the browser; cached by LaTeX."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from .errors import CardError
from .model import Card

FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
# Same rule as arithmatex: no space just inside the dollars, no escaped dollar.
INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$")
MACRO = re.compile(r"\\([A-Za-z]+)")
ERROR_ATTRIBUTE = re.compile(r'data-mjx-error="([^"]*)"')


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
    for latex, line, display in prose_formulas(card):
        yield "prose", latex, line, display


class LatexChecker:
    """Renders with MathJax 4 in QuickJS (the quickjax package); remembers what parsed."""

    def __init__(self, cache_file: Path | None) -> None:
        self.cache_file = cache_file
        self.version = metadata.version("quickjax")
        self._renderer = None
        self.known_good: set[str] = set()
        if cache_file is not None:
            try:
                self.known_good = set(json.loads(cache_file.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError):
                self.known_good = set()  # a missing or damaged cache only costs time
        self._new = False

    def _key(self, latex: str, display: bool) -> str:
        return hashlib.sha256(f"{self.version}\0{display}\0{latex}".encode()).hexdigest()[:32]

    def _render(self, latex: str, display: bool) -> str:
        if self._renderer is None:
            import quickjax

            self._renderer = quickjax.MathJaxRenderer()
        return self._renderer.render(latex, display=display)

    def problem(self, latex: str, display: bool = True) -> str | None:
        """None if MathJax typesets the formula cleanly, else what is wrong."""
        key = self._key(latex, display)
        if key in self.known_good:
            return None
        try:
            svg = self._render(latex, display)
        except Exception as exc:  # the engine failing on a formula means the formula is bad
            return f"MathJax could not render it ({str(exc).splitlines()[0][:120]})"
        if found := ERROR_ATTRIBUTE.search(svg):
            return found.group(1)
        if 'fill="red"' in svg and "\\color" not in latex:  # MathJax paints unknown macros red
            unknown = [m for m in dict.fromkeys(MACRO.findall(latex))
                       if 'fill="red"' in self._render(f"\\{m}{{x}}{{y}}", False)]
            names = ", ".join("\\" + m for m in unknown)
            return f"undefined control sequence {names}".strip()
        self.known_good.add(key)
        self._new = True
        return None

    def save(self) -> None:
        """Write the set of good formulas atomically, so a killed build leaves the old file."""
        if self.cache_file is None or not self._new:
            return
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.cache_file.parent, prefix=".tmp-latex-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(sorted(self.known_good), handle)
        os.replace(tmp, self.cache_file)


def check_latex(cards: list[Card], checker: LatexChecker) -> list[CardError]:
    """One error per formula that does not parse, naming the card file and line."""
    errors = []
    for card in cards:
        for where, latex, line, display in card_formulas(card):
            if problem := checker.problem(latex, display):
                short = latex if len(latex) <= 60 else latex[:57] + "..."
                errors.append(CardError(card.path, f"LaTeX in {where} does not typeset: {problem} "
                                        f"in `{short}`", line))
    checker.save()
    return errors
