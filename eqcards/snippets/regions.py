"""A snippet's "In code" regions: where each library's own call is checked against the card's formula.

A region is the code between two comment lines of their own,

    # --- in code: torch ---
    ...
    # --- end in code ---

named by the library's distribution name (as pip spells it). Regions of the libraries the build
installs run in every run of the snippet; the others (torch, jax ...) are blanked, each line
replaced by an empty one so that every line number stays the snippet's own, and only `make libcheck`
(eqcards/incode/) runs them, with EQCARDS_WHOLE_SNIPPETS=1. The syntax lives in this stage because
the worker that runs a snippet is here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

BEGIN = re.compile(r"^\s*# --- in code: (?P<library>\S+) ---\s*$")
END = re.compile(r"^\s*# --- end in code ---\s*$")
ANY_MARKER = re.compile(r"^\s*# --- (?:end )?in code\b")
FORMULA_BEGIN = re.compile(r"^\s*# --- formula ---\s*$")
FORMULA_END = re.compile(r"^\s*# --- end formula ---\s*$")
# The libraries the build itself installs (requirements.txt): their regions run in every build.
BUILD_LIBRARIES = frozenset({"numpy", "scipy", "scikit-learn", "rank-bm25", "sacrebleu", "rouge-score",
                             "nltk", "networkx"})
WHOLE = "EQCARDS_WHOLE_SNIPPETS"  # "1": run every region, heavy ones too (make libcheck)


class RegionError(ValueError):
    """A malformed region marker, at its 1-based line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Region:
    library: str
    start: int  # 1-based line of the opening marker
    end: int  # 1-based line of the closing marker
    code: str  # the lines between the markers

    def holds(self, line: int | None) -> bool:
        return line is not None and self.start <= line <= self.end


def in_code_regions(source: str) -> list[Region]:
    """Every region in order; raises RegionError for a marker misspelt, unclosed, nested or stray."""
    regions: list[Region] = []
    lines = source.splitlines()
    opened: tuple[str, int] | None = None
    for number, line in enumerate(lines, start=1):
        if begin := BEGIN.match(line):
            if opened:
                raise RegionError(f"'# --- in code: {begin['library']} ---' opens inside the region of "
                                  f"line {opened[1]}: close that one first with '# --- end in code ---'",
                                  number)
            opened = (begin["library"], number)
        elif END.match(line):
            if not opened:
                raise RegionError("'# --- end in code ---' closes no region", number)
            library, start = opened
            regions.append(Region(library, start, number, "\n".join(lines[start:number - 1])))
            opened = None
        elif ANY_MARKER.match(line):
            raise RegionError("malformed marker: write '# --- in code: LIBRARY ---' (the library as "
                              "pip names it) or '# --- end in code ---' on a line of its own", number)
    if opened:
        raise RegionError(f"region '{opened[0]}' is never closed: end it with '# --- end in code ---'",
                          opened[1])
    return regions


def blanked(source: str, regions: list[Region]) -> str:
    """The source with these regions' lines (markers included) empty, every other line in place."""
    lines = source.split("\n")
    for region in regions:
        for index in range(region.start - 1, region.end):
            lines[index] = ""
    return "\n".join(lines)


def runnable(source: str) -> tuple[str, list[Region]]:
    """What a run of the snippet executes, and all its regions: regions of libraries the build lacks
    are blanked, unless EQCARDS_WHOLE_SNIPPETS=1 asks for the whole snippet."""
    regions = in_code_regions(source)
    if os.environ.get(WHOLE) == "1":
        return source, regions
    return blanked(source, [r for r in regions if r.library not in BUILD_LIBRARIES]), regions


def formula_code(source: str) -> str:
    """The code of the snippet's `# --- formula ---` regions (the card's formula), joined."""
    kept, inside = [], False
    for line in source.splitlines():
        if FORMULA_BEGIN.match(line):
            inside = True
        elif FORMULA_END.match(line):
            inside = False
        elif inside:
            kept.append(line)
    return "\n".join(kept)
