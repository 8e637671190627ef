"""A card's `in_code:` entries held against its snippet's regions: one entry per region and back."""

from __future__ import annotations

from pathlib import Path

from ..cards.model import Card
from ..core.errors import CardError
from ..snippets.regions import RegionError, in_code_regions
from .libraries import known, known_names


def in_code_problems(cards: list[Card], snippets_dir: Path, pins: dict[str, str]) -> list[CardError]:
    """Every mismatch: a malformed or unknown region (at the snippet's line), an entry without a
    region and a region without an entry (at the card's line)."""
    problems: list[CardError] = []
    for card in cards:
        snippet = snippets_dir / card.snippet
        try:
            regions = in_code_regions(snippet.read_text(encoding="utf-8"))
        except RegionError as exc:
            problems.append(CardError(snippet, str(exc), exc.line))
            continue
        named = {r.library: r for r in regions}
        seen: set[str] = set()
        for region in regions:
            if not known(region.library, pins):
                problems.append(CardError(snippet, f"'# --- in code: {region.library} ---' names no "
                                          f"library the project knows; known: {known_names(pins)} (a heavy "
                                          "one is pinned in requirements-libcheck.txt)", region.start))
            elif region.library in seen:
                problems.append(CardError(snippet, f"a second region for {region.library}: keep one per "
                                          "library", region.start))
            elif region.library not in {e.library for e in card.in_code}:
                problems.append(CardError(card.path, f"snippets/{card.snippet}:{region.start} checks "
                                          f"{region.library} in code, but the card has no `in_code` entry "
                                          f"for it: add {{library: {region.library}, call, differs, fix}}",
                                          card.line_of("in_code") or card.line_of("snippet")))
            seen.add(region.library)
        for i, entry in enumerate(card.in_code):
            if entry.library not in named:
                problems.append(CardError(card.path, f"in_code entry '{entry.library}' has no region in "
                                          f"snippets/{card.snippet}: add '# --- in code: {entry.library} "
                                          "---' ... '# --- end in code ---' where it runs the call against "
                                          "the formula", card.line_of("in_code", i, "library")))
    return problems
