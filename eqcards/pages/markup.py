"""Small helpers that make generated Markdown safe: escape text but keep its $math$ intact."""

from __future__ import annotations

import html
import re

MATH_SPAN = re.compile(r"(\$[^$]+\$)")


def text(value: str) -> str:
    """Escape HTML in plain text so a '<script>' in a title renders as text, not markup."""
    return html.escape(value, quote=True)


def text_with_math(value: str) -> str:
    """Escape the prose parts only; arithmatex escapes the $...$ parts itself."""
    parts = MATH_SPAN.split(value)
    return "".join(p if i % 2 else html.escape(p, quote=False) for i, p in enumerate(parts))


def prose_with_math(value: str) -> str:
    """Plain text with $math$, for a Markdown paragraph or list item: escaped as text_with_math, and
    a '*' in the prose (lambda* or p* in a note) kept as a star, never turned into emphasis."""
    parts = MATH_SPAN.split(text_with_math(value))
    return "".join(p if i % 2 else p.replace("*", r"\*") for i, p in enumerate(parts))


def cell(value: str) -> str:
    r"""Text that is safe inside a Markdown table cell: a '|' would end the cell. In prose it is
    escaped; inside $math$ it becomes \vert, since an escaped bar reaches TeX as \| (the double
    bar of a norm), which would change the formula."""
    parts = MATH_SPAN.split(text_with_math(value))
    safe = (p.replace("|", r"\vert ") if i % 2 else p.replace("|", r"\|") for i, p in enumerate(parts))
    return "".join(safe).replace("\n", " ")


def inline_math(latex: str) -> str:
    r"""LaTeX as inline math; a '|' would split a table cell, so it becomes \vert."""
    return "$" + latex.replace("|", r"\vert ").strip() + "$"


def display_math(latex: str) -> str:
    return "$$\n" + latex.strip() + "\n$$"
