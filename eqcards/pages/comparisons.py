"""Comparison pages: families of near-identical formulas aligned term by term (docs/comparisons.yml),
every cell checked to be a piece of its card's own formula so that a comparison cannot drift."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..cards.model import Card
from ..cards.validate import FieldChecker, check_id, yaml_list
from ..core.errors import CardError, CardErrors, shorten
from ..typeset.mathsvg import LatexError, MathRenderer
from . import markup

FAMILY_KEYS = {"id": True, "title": True, "intro": True, "columns": True, "rows": True}
COLUMN_KEYS = {"id": True, "title": True}
ROW_KEYS = {"card": True, "note": True, "cells": True, "differs": False}
# One TeX token: a control word, a control symbol (\, \{ \\), or any other non-blank character.
TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\S")
# Thin, medium and normal spaces change how a formula is spaced, never what it says.
SPACING = frozenset({r"\,", r"\;", r"\ "})
INDEX_PAGE = "compare/index.md"


@dataclass(frozen=True)
class Column:
    id: str
    title: str


@dataclass(frozen=True)
class Row:
    card: str
    note: str
    cells: dict[str, str]  # by column id; "" where the term is absent from the formula
    differs: frozenset[str]  # the columns whose cell differs from the base row's


@dataclass(frozen=True)
class Family:
    id: str
    title: str
    intro: str
    columns: list[Column]
    rows: list[Row]  # the first is the base the others are compared with

    @property
    def page(self) -> str:
        return f"compare/{self.id}.md"


def tex_tokens(latex: str) -> list[str]:
    """The formula as TeX tokens, blanks and spacing commands left out."""
    return [t for t in TEX_TOKEN.findall(latex) if t not in SPACING]


def is_fragment(piece: str, formula: str) -> bool:
    """Whether `piece` is a run of consecutive TeX tokens of `formula`: `\\log` is no piece of
    `\\logit`, and `x_1` none of `x_{12}`."""
    sep = "\0"
    return f"{sep}{sep.join(tex_tokens(piece))}{sep}" in f"{sep}{sep.join(tex_tokens(formula))}{sep}"


def load_comparisons(path: Path, cards: dict[str, Card],
                     renderer: MathRenderer | None = None) -> list[Family]:
    """Read and check the comparison families; every problem is reported, each at its line.
    With a renderer, each cell must also typeset on its own."""
    data, c = yaml_list(path, "comparison families", empty=True)
    families: list[Family] = []
    errors: list[CardError] = []
    for i, item in enumerate(data):
        try:
            families.append(_family(c, item, i, cards, renderer))
        except CardErrors as exc:
            errors += exc.errors
        except CardError as exc:
            errors.append(exc)
    seen: set[str] = set()
    for i, family in enumerate(families):
        if family.id in seen:
            errors.append(c.fail((i, "id"), f"comparison id '{family.id}' appears twice"))
        seen.add(family.id)
    if errors:
        raise CardErrors(errors)
    return families


def _family(c: FieldChecker, item: object, i: int, cards: dict[str, Card],
            renderer: MathRenderer | None) -> Family:
    m = c.mapping(item, (i,), FAMILY_KEYS)
    columns = [Column(check_id(c.text(col["id"], (i, "columns", j, "id")), (i, "columns", j, "id"), c),
                      c.text(col["title"], (i, "columns", j, "title")))
               for j, col in enumerate(c.mapping_list(m["columns"], (i, "columns"), COLUMN_KEYS))]
    raw_rows = c.mapping_list(m["rows"], (i, "rows"), ROW_KEYS)
    if len(raw_rows) < 2:
        raise c.fail((i, "rows"), "a comparison needs at least two rows: the base and one to compare")
    errors: list[CardError] = []
    rows = []
    for j, raw in enumerate(raw_rows):
        try:
            rows.append(_row(c, raw, (i, "rows", j), columns, cards, renderer, base=rows[0] if j else None))
        except CardError as exc:
            if j == 0:  # with no valid base the other rows cannot be compared with it
                raise
            errors.append(exc)
    if errors:
        raise CardErrors(errors)
    return Family(id=check_id(c.text(m["id"], (i, "id")), (i, "id"), c),
                  title=c.text(m["title"], (i, "title")),
                  intro=c.text(m["intro"], (i, "intro")), columns=columns, rows=rows)


def _row(c: FieldChecker, raw: dict, at: tuple, columns: list[Column], cards: dict[str, Card],
         renderer: MathRenderer | None, base: Row | None) -> Row:
    card_id = c.text(raw["card"], (*at, "card"))
    card = cards.get(card_id)
    if card is None:
        raise c.fail((*at, "card"), f"card '{card_id}' does not exist (no docs/cards/{card_id}.md)")
    names = [col.id for col in columns]
    given = c.mapping(raw["cells"], (*at, "cells"), dict.fromkeys(names, True))
    cells = {}
    for name in names:
        cell = c.text(given[name] if given[name] is not None else "", (*at, "cells", name), allow_empty=True)
        if cell and not any(is_fragment(cell, f) for f in (card.equation, card.cheatsheet.latex or "")):
            raise c.fail((*at, "cells", name), f"cell '{name}' of {card_id} is not a piece of that card's "
                         f"equation or cheatsheet.latex: `{shorten(cell)}`; copy the term from the card "
                         "as it is written there (only blanks and \\, \\; \\  spacing may differ)")
        if cell and renderer is not None:
            try:
                renderer.svg(cell, display=False)
            except LatexError as exc:
                raise c.fail((*at, "cells", name), f"cell '{name}' of {card_id} does not typeset on its "
                             f"own: {exc}; choose a piece whose braces close") from None
        cells[name] = cell
    differs = frozenset(c.text_list(raw.get("differs"), (*at, "differs")))
    if unknown := sorted(differs - set(names)):
        raise c.fail((*at, "differs"), f"differs names unknown columns {', '.join(unknown)}; "
                     f"the columns are {', '.join(names)}")
    if base is None and differs:
        raise c.fail((*at, "differs"), "the first row is the base the others are compared with: "
                     "it cannot differ from itself")
    if base is not None:
        for name in sorted(differs):
            if tex_tokens(cells[name]) == tex_tokens(base.cells[name]):
                raise c.fail((*at, "differs"), f"cell '{name}' of {card_id} is marked as differing "
                             f"but is the same as the base row's ({base.card})")
    return Row(card=card_id, note=c.text(raw["note"], (*at, "note")), cells=cells, differs=differs)


def compare_links(card_id: str, families: list[Family]) -> list[tuple[str, str]]:
    """(title, page under docs/) of every comparison a card is a row of."""
    return [(f.title, f.page) for f in families if any(r.card == card_id for r in f.rows)]


def render_compare_line(links: list[tuple[str, str]]) -> str:
    """The card page's pointer to its comparisons, with links relative to cards/<id>.md."""
    if not links:
        return ""
    return "**Compare with:** " + " · ".join(f"[{markup.text(title)}](../{page})" for title, page in links)


def render_compare_index(families: list[Family], cards: dict[str, Card]) -> str:
    out = ["---", "title: Comparisons", "---", "", "# Comparisons", "",
           "Formulas that differ in one or two terms, set side by side: each table aligns them "
           "term by term, taken from the cards themselves, and marks what each one changes.", ""]
    for f in families:
        names = ", ".join(markup.prose_with_math(cards[r.card].cheatsheet.label) for r in f.rows)
        out.append(f"- [{markup.text(f.title)}]({f.id}.md): {names}")
    return "\n".join(out) + "\n"


def render_comparison(family: Family, cards: dict[str, Card]) -> str:
    """One family's page: its table (rows are cards by their short names, columns are terms), the
    base row first, each differing cell marked by a word as well as a colour, and under each row
    a line across the table saying what that card changes (a column of notes would make every
    row tall and the table too wide for a screen)."""
    base = cards[family.rows[0].card]
    head = "".join(f'<th scope="col">{markup.text(col.title)}</th>' for col in family.columns)
    # The title in JSON quotes, a form of YAML that any title survives (a colon, a quote).
    out = ["---", f"title: {json.dumps(markup.text(family.title))}", "hide: [toc]", "---", "",
           f"# {markup.text(family.title)}", "", markup.prose_with_math(family.intro), "",
           f'<p class="eqc-compare-legend" markdown="span">Each row is a card; the first, '
           f"{markup.prose_with_math(base.title)}, is the base. A cell marked "
           '<span class="eqc-changed">changed</span> differs from the base, and — marks a term '
           "the formula does not have. Under each row: what it changes, and why.</p>", "",
           f'<div class="eqc-compare-wrap" role="region" tabindex="0" '
           f'aria-label="{markup.text(family.title)}" markdown>',
           '<table class="eqc-compare" markdown>',
           f'<thead><tr><th scope="col">Card</th>{head}</tr></thead>', "<tbody markdown>"]
    for k, row in enumerate(family.rows):
        card = cards[row.card]
        name = markup.prose_with_math(card.cheatsheet.label)
        base_class = " eqc-compare-base" if k == 0 else ""
        base_mark = '<span class="eqc-base">base</span>' if k == 0 else ""
        # md_in_html renders a cell's Markdown only if every element around it asks for it.
        out.append(f'<tr class="eqc-compare-row{base_class}" markdown>'
                   f'<th scope="row" markdown="span">[{name}](../cards/{row.card}.md)'
                   f"{base_mark}</th>")
        out += [_cell(col, row.cells[col.id], col.id in row.differs) for col in family.columns]
        out.append(f'</tr><tr class="eqc-compare-note{base_class}" markdown>'
                   f'<td colspan="{len(family.columns) + 1}" markdown="span"><strong>{name}:</strong> '
                   f"{markup.prose_with_math(row.note)}</td></tr>")
    out += ["</tbody>", "</table>", "</div>", ""]
    return "\n".join(out)


def _cell(column: Column, latex: str, differs: bool) -> str:
    term = markup.text(column.title)
    # The table is HTML, so a '|' cannot split a cell: the formula is typeset exactly as checked.
    content = f"${latex}$" if latex else '<span class="eqc-absent">—</span>'
    if differs:
        return (f'<td class="eqc-differs" data-term="{term}" markdown="span">'
                f'<span class="eqc-changed">changed</span> {content}</td>')
    return f'<td data-term="{term}" markdown="span">{content}</td>'
