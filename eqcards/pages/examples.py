"""Worked examples: notebooks kept as plain-text sources (jupytext percent format), run by the
snippet runner and assembled into executed notebooks for mkdocs-jupyter to render."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from ..core.errors import CardError, CardErrors
from ..snippets.jobs import SnippetJob, SnippetResult
from . import markup

EXAMPLES_FOLDER = "examples"  # docs/examples/<slug>.py; pages at /examples/<slug>/
TIMEOUT = 120
CELL_MARKER = re.compile(r"^# %%(?P<rest>.*)$")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# A card linked from a markdown cell, relative to the example's page (/examples/<slug>/).
CARD_LINK = re.compile(r"\]\(\.\./\.\./cards/(?P<id>[^/)\s]+)/\)")
# The call each cell marker becomes in the runnable copy: it runs in the example's own process.
CELL_MARK_CALL = '__import__("eqcards.pages.example_cells").pages.example_cells.mark'
# Printed by that mark() into the run's output at each cell marker.
SEPARATOR = re.compile(r"\x1eeqc-cell (?P<number>\d+) (?P<figures>[\d,]*)\x1e\n?")


@dataclass(frozen=True)
class Cell:
    kind: str  # "markdown" or "code"
    source: str  # markdown without its comment marks
    line: int  # the line of its `# %%` marker in the source file
    number: int  # 1-based, counting every cell


@dataclass(frozen=True)
class Example:
    slug: str
    path: Path
    title: str
    intro: str  # the first paragraph after the title
    cells: tuple[Cell, ...]
    cards: tuple[str, ...]  # ids of the cards it links, in order of first use

    def cell_at(self, line: int | None) -> Cell | None:
        """The cell holding a source line."""
        if line is None:
            return None
        return next((c for c in reversed(self.cells) if c.line <= line), None)


def parse_example(path: Path) -> Example:
    """One example; a CardError names the line and what to fix."""
    if not SLUG.match(path.stem):
        raise CardError(path, "an example's file name is its URL: lower-case words joined by '-'")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not CELL_MARKER.match(lines[0]):
        raise CardError(path, "a worked example starts with a cell marker, '# %% [markdown]'", 1)
    starts = [i for i, line in enumerate(lines) if CELL_MARKER.match(line)] + [len(lines)]
    cells = []
    for number, (start, end) in enumerate(pairwise(starts), start=1):
        rest = CELL_MARKER.match(lines[start]).group("rest").strip()
        kind = "markdown" if rest in ("[markdown]", "[md]") else "code"
        if kind == "code" and rest:
            raise CardError(path, f"unknown cell marker '# %%{rest}': use '# %%' or '# %% [markdown]'",
                            start + 1)
        body = lines[start + 1:end]
        if kind == "markdown":
            for offset, text in enumerate(body):
                if text.strip() and not text.startswith("#"):
                    raise CardError(path, "every line of a markdown cell starts with '# ' (or is '#')",
                                    start + 2 + offset)
            body = [text[2:] if text.startswith("# ") else text.lstrip("#") for text in body]
        cells.append(Cell(kind, "\n".join(body).strip("\n"), start + 1, number))
    first = cells[0].source.splitlines()
    if cells[0].kind != "markdown" or not first or not first[0].startswith("# "):
        raise CardError(path, "the first cell is markdown opening with the title as '# Title'", 1)
    paragraphs = "\n".join(first[1:]).strip().split("\n\n")
    cards: dict[str, None] = {}
    for cell in cells:
        if cell.kind == "markdown":
            cards.update((m.group("id"), None) for m in CARD_LINK.finditer(cell.source))
    return Example(path.stem, path, first[0][2:].strip(), " ".join(paragraphs[0].split()),
                   tuple(cells), tuple(cards))


def load_examples(folder: Path, card_ids: set[str]) -> list[Example]:
    """Every example under docs/examples/, in title order; each card it links must exist."""
    examples, errors = [], []
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        try:
            example = parse_example(path)
        except CardError as exc:
            errors.append(exc)
            continue
        for card_id in example.cards:
            if card_id not in card_ids:
                line = next(i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                            if f"../../cards/{card_id}/" in text)
                errors.append(CardError(path, f"links card '{card_id}', which does not exist", line))
        examples.append(example)
    if errors:
        raise CardErrors(errors)
    return sorted(examples, key=lambda e: e.title.casefold())


def runnable_source(example: Example) -> str:
    """The source with each cell marker turned into a call that marks the cell in the output, on
    the same line, so every line keeps its number and errors point at the example's own lines."""
    lines = example.path.read_text(encoding="utf-8").splitlines()
    for cell in example.cells:
        lines[cell.line - 1] = f"{CELL_MARK_CALL}({cell.number})  {lines[cell.line - 1]}"
    lines.append(f"{CELL_MARK_CALL}(0)")
    return "\n".join(lines) + "\n"


def job(example: Example, stage: Path) -> SnippetJob:
    """A runner job for the example, its runnable copy written to `stage` (only when it changed,
    so the runner's cache, keyed by content, serves an unchanged example)."""
    runnable = stage / f"{example.slug}.py"
    text = runnable_source(example)
    if not runnable.is_file() or runnable.read_text(encoding="utf-8") != text:
        stage.mkdir(parents=True, exist_ok=True)
        runnable.write_text(text, encoding="utf-8")
    return SnippetJob(f"example:{example.slug}", example.path, runnable, TIMEOUT)


def describe_failure(example: Example, result: SnippetResult, root: Path) -> str:
    """The failure at the example's own line and cell, then the traceback."""
    cell = example.cell_at(result.line)
    where = example.path.relative_to(root) if example.path.is_relative_to(root) else example.path
    at = f"{where}:{result.line} (cell {cell.number})" if cell else f"{where}"
    traceback = result.traceback.replace(str(result.job.snippet_path), str(where))
    return f"{at}: worked example failed: {result.error}" + ("\n" + traceback.rstrip() if traceback else "")


def cell_outputs(result: SnippetResult) -> dict[int, dict[str, object]]:
    """Each cell's printed text and figures, from the marks the run printed between cells."""
    marks = list(SEPARATOR.finditer(result.stdout))
    outputs: dict[int, dict[str, object]] = {}
    svgs = dict(zip(_figure_numbers(marks[-1]) if marks else [], result.figures, strict=False))
    for mark, following in pairwise(marks):
        before, after = set(_figure_numbers(mark)), _figure_numbers(following)
        outputs[int(mark.group("number"))] = {
            "text": result.stdout[mark.end():following.start()],
            "figures": [svgs[n] for n in after if n not in before and n in svgs]}
    return outputs


def _figure_numbers(mark: re.Match) -> list[int]:
    return [int(n) for n in mark.group("figures").split(",") if n]


def _cell(kind: str, source: str, number: int, outputs: list[dict] | None = None) -> dict:
    cell: dict = {"cell_type": kind, "id": f"cell-{number}", "metadata": {},
                  "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=outputs or [])
    return cell


def _outputs(produced: dict[str, object] | None) -> list[dict]:
    if not produced:
        return []
    outputs: list[dict] = []
    if produced["text"]:
        outputs.append({"output_type": "stream", "name": "stdout",
                        "text": str(produced["text"]).splitlines(keepends=True)})
    for svg in produced["figures"]:  # type: ignore[union-attr]
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"image/svg+xml": svg.splitlines(keepends=True),
                                 "text/plain": ["<Figure>"]}})
    return outputs


def executed_notebook(example: Example, result: SnippetResult | None, *, markdown=lambda text: text,
                      preamble: list[tuple[str, str]] = ()) -> str:
    """nbformat 4 JSON of the example with its outputs. `markdown` rewrites each markdown cell
    (links for a download, formulas for the site); `preamble` cells (kind, source) go first."""
    outputs = cell_outputs(result) if result is not None and result.ok else {}
    cells = [_cell(kind, source, -i) for i, (kind, source) in enumerate(preamble, start=1)]
    for cell in example.cells:
        if cell.kind == "markdown":
            cells.append(_cell("markdown", markdown(cell.source), cell.number))
        else:
            cells.append(_cell("code", cell.source, cell.number, _outputs(outputs.get(cell.number))))
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"
    notebook = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                            "language": "python"},
                             "language_info": {"name": "python"}}}
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


# Formulas in markdown cells: nbconvert would leave them for MathJax in the browser; the site
# typesets at build time instead. Each formula becomes a plain token before nbconvert sees it (so
# Markdown cannot touch its underscores and stars), and the token becomes arithmatex markup
# afterwards, which the build's typesetting pass turns into SVG like every other formula.
# Inline math may wrap onto the next line of its paragraph, never across a blank line, and (as in
# pandoc) neither starts nor ends with a space, so a lone dollar sign is left alone.
MATH = re.compile(r"\$\$(?P<display>.+?)\$\$"
                  r"|(?<![\\$])\$(?P<inline>(?!\s)(?:[^$\n]|\n(?![ \t]*\n))+?)(?<!\s)\$", re.S)
TOKEN = re.compile(r"EQCMATH(?P<index>\d+)X")


@dataclass
class FormulaTokens:
    """Formulas taken out of markdown cells, by token, for one build."""

    formulas: list[tuple[str, bool]]

    def protect(self, markdown: str) -> str:
        def replace(match: re.Match[str]) -> str:
            display = match.group("display") is not None
            self.formulas.append(((match.group("display") if display else match.group("inline")).strip(),
                                  display))
            token = f"EQCMATH{len(self.formulas) - 1}X"
            return f"\n\n{token}\n\n" if display else token
        return MATH.sub(replace, markdown)

    def restore(self, page_html: str) -> str:
        def replace(match: re.Match[str]) -> str:
            latex, display = self.formulas[int(match.group("index"))]
            escaped = latex.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            if display:
                return f'<div class="arithmatex">\\[{escaped}\\]</div>'
            return f'<span class="arithmatex">\\({escaped}\\)</span>'
        # A display token is a paragraph of its own: drop the <p> around it with the token.
        page_html = re.sub(r"<p>\s*(EQCMATH\d+X)\s*</p>", r"\1", page_html)
        return TOKEN.sub(replace, page_html)


def absolute_card_links(markdown: str, site_url: str) -> str:
    """Card links that work outside the site (in a downloaded notebook)."""
    return CARD_LINK.sub(lambda m: f"]({site_url.rstrip('/')}/cards/{m.group('id')}/)", markdown)


def render_index(examples: list[Example], card_titles: dict[str, str]) -> str:
    """The Worked examples page: each example with its aim and the cards it uses."""
    out = ["---", "title: Worked examples", "---", "", "# Worked examples", "",
           "Real tasks solved step by step with the cards' formulas. Every number on these pages is "
           "computed by the notebook when the site is built, and each step is checked, so a page "
           "that is wrong does not build. Each notebook can be downloaded and run as it is, with "
           "numpy, scipy and matplotlib.", ""]
    for example in examples:
        cards = ", ".join(f"[{markup.prose_with_math(card_titles[c])}](../cards/{c}.md)"
                          for c in example.cards)
        intro = CARD_LINK.sub(lambda m: f"](../cards/{m.group('id')}.md)", example.intro)
        out += [f"## [{example.title}]({example.slug}.ipynb)", "", intro, "",
                f"Cards used: {cards}." if cards else "", ""]
    return "\n".join(out)


def used_in(examples: list[Example]) -> dict[str, list[Example]]:
    """For each card, the examples that link it."""
    found: dict[str, list[Example]] = {}
    for example in examples:
        for card_id in example.cards:
            found.setdefault(card_id, []).append(example)
    return found
