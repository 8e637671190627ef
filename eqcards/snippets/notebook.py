"""A card's snippet as a Jupyter notebook a reader can download, run and change."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from ..cards.model import Card
from .regions import in_code_regions


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def snippet_notebook(card: Card, snippet_source: str, helpers: dict[str, str], card_url: str) -> str:
    """nbformat 4 JSON: a heading with the equation, the shared helpers written next to the
    notebook (so it runs anywhere), then the snippet itself; its In-code regions follow as cells of
    their own, each after a line naming its library, so the snippet runs without them."""
    # A site built without its public address knows the card's path only (cards/<id>/).
    where = f"<{card_url}>" if "://" in card_url else f"`{card_url}` of the Equation Cards site"
    cells = [_cell("markdown", f"# {card.title}\n\n$$\n{card.equation}\n$$\n\n{card.summary}\n\n"
                               f"Card: {where}\n")]
    for name, source in sorted(helpers.items()):
        cells.append(_cell("code", f"%%writefile {name}\n{source}"))
    regions = in_code_regions(snippet_source)
    inside = {n for r in regions for n in range(r.start, r.end + 1)}
    plain = "".join(line for n, line in enumerate(snippet_source.splitlines(keepends=True), start=1)
                    if n not in inside)
    cells.append(_cell("code", "%matplotlib inline\n" + plain))
    for region in regions:
        cells.append(_cell("markdown", f"## In code: {region.library}\n\nThe card's formula as "
                                       f"`{region.library}` computes it (install it to run this cell)."))
        cells.append(_cell("code", textwrap.dedent(region.code).strip("\n") + "\n"))
    notebook = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                            "language": "python"},
                             "language_info": {"name": "python"}}}
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def helper_sources(snippet: Path, snippets_dir: Path) -> dict[str, str]:
    from .snippet_key import local_imports

    return {p.name: p.read_text(encoding="utf-8") for p in local_imports(snippet, snippets_dir)}
