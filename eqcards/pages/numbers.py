"""The quick numeric reference: values with units and sources, computed by a snippet where possible."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..cards.model import Source
from ..cards.schema import SOURCE_KEYS
from ..cards.validate import FieldChecker, check_id, check_source_link, yaml_list
from ..core.errors import CardError, CardErrors
from ..snippets.jobs import SnippetResult
from . import markup
from .render import render_source

NUMBER_KEYS = {"id": True, "label": True, "value": True, "unit": True, "kind": True, "note": True,
               "seed": True, "sources": True, "card": False, "snippet": False}
# computed: a snippet derives the value; reported: a measurement or choice stated in a paper;
# practice: a rule of thumb, with the source where that practice is documented.
KINDS = ("computed", "reported", "practice")


@dataclass(frozen=True)
class NumberEntry:
    id: str
    label: str
    value: str
    unit: str
    kind: str
    note: str
    seed: str
    sources: list[Source]
    card: str | None
    snippet: str | None
    line: int

    @property
    def job_id(self) -> str:
        """Entries that share a snippet share its one run."""
        return f"snippets/{self.snippet}"


def load_numbers(path: Path, seed_entries: set[str], card_ids: set[str],
                 snippets_dir: Path) -> list[NumberEntry]:
    data, c = yaml_list(path, "entries", empty=True)
    entries: list[NumberEntry] = []
    errors: list[CardError] = []
    for i, item in enumerate(data):
        try:
            entries.append(_entry(c, item, i, seed_entries, card_ids, snippets_dir))
        except CardError as exc:
            errors.append(exc)
    seen: dict[str, NumberEntry] = {}
    for entry in entries:
        if entry.id in seen:
            errors.append(CardError(path, f"number id '{entry.id}' appears twice", entry.line))
        seen[entry.id] = entry
    if errors:
        raise CardErrors(errors)
    return entries


def _entry(c: FieldChecker, item: object, i: int, seed_entries: set[str], card_ids: set[str],
           snippets_dir: Path) -> NumberEntry:
    m = c.mapping(item, (i,), NUMBER_KEYS)
    kind = c.text(m["kind"], (i, "kind"))
    if kind not in KINDS:
        raise c.fail((i, "kind"), f"kind must be one of {', '.join(KINDS)}, got '{kind}'")
    seed = c.text(m["seed"], (i, "seed"))
    if seed not in seed_entries:
        raise c.fail((i, "seed"), f"seed entry '{seed}' is not in the seed index")
    card = m.get("card")
    if card is not None and card not in card_ids:
        raise c.fail((i, "card"), f"card '{card}' does not exist")
    snippet = m.get("snippet")
    if kind == "computed" and not snippet:
        raise c.fail((i,), "a computed number needs a `snippet` that computes it")
    if snippet is not None and not (snippets_dir / str(snippet)).is_file():
        raise c.fail((i, "snippet"), f"snippet file snippets/{snippet} does not exist")
    sources = []
    for j, s in enumerate(c.mapping_list(m["sources"], (i, "sources"), SOURCE_KEYS)):
        check_source_link(s, (i, "sources", j), c)
        sources.append(Source(**{k: (str(v) if k != "year" else int(v)) for k, v in s.items()}))
    return NumberEntry(
        id=check_id(c.text(m["id"], (i, "id")), (i, "id"), c), label=c.text(m["label"], (i, "label")),
        value=c.text(m["value"], (i, "value")), unit=c.text(m["unit"], (i, "unit"), allow_empty=True),
        kind=kind, note=c.text(m["note"], (i, "note")), seed=seed, sources=sources,
        card=card, snippet=str(snippet) if snippet else None, line=c.lines.get((i,), 1))


def render_numbers_page(entries: list[NumberEntry], results: dict[str, SnippetResult],
                        card_titles: dict[str, str]) -> str:
    out = ["---", "title: Numbers", "---", "", "# Numbers", "",
           "Values worth knowing by heart, each with its unit and where it comes from. "
           "**Computed** values are derived by a snippet at build time; **reported** values are "
           "measurements or settings stated in a paper; **practice** values are rules of thumb, "
           "with the place that practice is documented.", "",
           "| Quantity | Value | Kind | Card |", "|---|---|---|---|"]
    for e in entries:
        card = f"[{markup.cell(card_titles[e.card])}](cards/{e.card}.md)" if e.card else ""
        value = f"{markup.cell(e.value)} {markup.cell(e.unit)}".strip()
        out.append(f"| [{markup.cell(e.label)}](#{e.id}) | {value} | {e.kind} | {card} |")
    out.append("")
    for e in entries:
        out += [f'## {markup.text(e.label)} {{ #{e.id} }}', "",
                f"**{markup.text_with_math(e.value)} {markup.text(e.unit)}** ({e.kind}). "
                f"{markup.prose_with_math(e.note)}", ""]
        out += [f"- {render_source(s)}" for s in e.sources]
        result = results.get(e.job_id)
        if result is not None:
            status = "Computed and checked" if result.ok else "Check failed"
            out += ["", f'??? success "{status} by snippets/{e.snippet}"', "", "    ```text",
                    *[f"    {line}" for line in result.stdout.rstrip().splitlines()], "    ```"]
        out.append("")  # which entry of the source documents a number realizes: the coverage table
    return "\n".join(out)


def render_numbers_section(entries: list[NumberEntry]) -> str:
    """The cheatsheet's numeric reference, in the same row layout as the formulas."""
    out = ['<section class="eqc-sheet-topic" markdown>', "", "## Numbers", ""]
    for e in entries:
        out += ['<div class="eqc-sheet-row" markdown>', "",
                f'<span class="eqc-sheet-label">[{markup.text(e.label)}](numbers.md#{e.id})</span> '
                f'<span class="eqc-sheet-formula">{markup.text_with_math(e.value)} '
                f"{markup.text(e.unit)}</span>", "", "</div>"]
    out += ["", "</section>", ""]
    return "\n".join(out)
