"""A card's "In code" section: its formula as each library computes it, with what differs from the
card's equation, the fix, the code that checked it and where it was checked (the build, or the
libcheck ledger for a library the build does not install)."""

from __future__ import annotations

import textwrap
from importlib import metadata

from ..cards.model import Card, InCode
from ..incode.ledger import Status
from ..incode.libraries import is_heavy
from ..snippets.jobs import SnippetResult
from ..snippets.regions import Region, in_code_regions
from . import markup


def checked_where(entry: InCode, result: SnippetResult | None, status: Status | None) -> tuple[bool, str]:
    """Whether the mapping is checked for the code shown, and the sentence that says by what."""
    if is_heavy(entry.library):
        if status is not None and status.checked:
            version = status.versions.get(entry.library, "")
            return True, f"checked against {entry.library} {version} by `make libcheck`"
        if status is not None and status.current:
            return False, f"not checked: its last `make libcheck` failed ({status.outcome})"
        return False, "not checked: changed since `make libcheck` last ran it"
    if result is not None and result.ok:
        return True, f"checked in this build ({entry.library} {metadata.version(entry.library)})"
    return False, "not checked: the snippet did not run to its end in this build"


def render_in_code(card: Card, source: str, result: SnippetResult | None,
                   statuses: dict[str, Status]) -> list[str]:
    """The section's Markdown lines; none for a card without `in_code` entries."""
    if not card.in_code:
        return []
    regions: dict[str, Region] = {r.library: r for r in in_code_regions(source)}
    lines = ["## In code { data-search-exclude }", "",
             "The formula as libraries compute it, with their defaults. Each call below ran on this "
             "card's inputs against the card's own formula, its pitfalls included.", ""]
    # An entry without its region fails the build (eqcards.incode.problems); `make serve` reports it
    # on the page and shows the others.
    for entry in (e for e in card.in_code if e.library in regions):
        checked, where = checked_where(entry, result, statuses.get(entry.library))
        lines += [f"### {markup.text(entry.library)}", "",
                  f"**Call:** {markup.code_span(entry.call)}", "",
                  f"**Differs from the card:** {markup.prose_with_math(entry.differs)}", ""]
        if entry.fix:
            lines += [f"**Fix:** {markup.prose_with_math(entry.fix)}", ""]
        lines += [f'<p class="eqc-incode-status" data-checked="{"yes" if checked else "no"}" markdown>'
                  f"{'&#10003;' if checked else '&#9888;'} {where[0].upper()}{where[1:]}.</p>", ""]
        code = textwrap.dedent(regions[entry.library].code).strip("\n")
        fence = "````" if "```" in code else "```"
        lines += [f"{fence}python", *code.splitlines(), fence, ""]
    return lines
