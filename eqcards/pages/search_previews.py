"""Formula previews for search results: each card's main formula as a standalone SVG file.

Results show the formula as an image loaded when the result appears, so the index a first query
downloads holds only each preview's size and spoken words, never the drawing itself. The files are
standalone (their own glyph outlines, their own namespace), independent of how pages share glyphs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..cards.model import Card
from ..typeset.mathsvg import MathRenderer

PREVIEW_FOLDER = "formulas"  # under search/, one <card id>.svg per card
SVG_OPEN = re.compile(r"<svg\b([^>]*)>")
INLINE_ONLY = re.compile(r'\s(?:style|aria-hidden|focusable|role|xmlns(?::xlink)?)="[^"]*"')
SIZE = re.compile(r'\b(width|height)="([\d.]+)ex"')
SVG_NAMESPACES = ' xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def preview_latex(card: Card) -> str:
    """The formula a result shows: the cheatsheet's shorter form where the card has one."""
    return card.cheatsheet.latex or card.equation


def standalone_svg(svg: str) -> str:
    """An inline SVG as a file a browser can load as an image: with its namespaces, no page
    styles (the vertical alignment and hiding only make sense inline)."""
    match = SVG_OPEN.search(svg)
    if match is None:
        raise ValueError("typeset formula has no <svg> element")
    attributes = INLINE_ONLY.sub("", match.group(1))
    return svg[:match.start()] + f"<svg{SVG_NAMESPACES}{attributes}>" + svg[match.end():]


def preview(card: Card, math: MathRenderer) -> tuple[str, dict[str, Any]]:
    """The card's preview file (SVG) and what a result needs to show it: its size in ex (so the
    result keeps its place before the image arrives) and its spoken words."""
    svg, spoken = math.typeset(preview_latex(card), display=True)
    size = {name: float(value) for name, value in SIZE.findall(svg)}
    return standalone_svg(svg), {"width": size.get("width", 0.0), "height": size.get("height", 0.0),
                                 "label": spoken}


def preview_file(card: Card) -> str:
    """Where a card's preview is, under search/; the worker finds it from the card's address
    the same way (search-worker.js, previewUrl)."""
    return f"{PREVIEW_FOLDER}/{card.id}.svg"


def write_previews(cards: list[Card], math: MathRenderer, search_dir: Path) -> dict[str, dict[str, Any]]:
    """Write every card's preview under search/formulas/; returns each card's preview entry by URL."""
    folder = search_dir / PREVIEW_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    entries = {}
    for card in cards:
        svg, entry = preview(card, math)
        (search_dir / preview_file(card)).write_text(svg, encoding="utf-8")
        entries[card.url] = entry
    return entries
