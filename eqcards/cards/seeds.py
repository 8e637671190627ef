"""Index the seed documents' entries as the keys that cards cite in their `seeds` field."""

from __future__ import annotations

import os
import re
from pathlib import Path

SECTION = re.compile(r"^## (\d+)\. ")
HEADING = re.compile(r"^#### (.+?)\s*$")
TABLE_HEADING = re.compile(r"^## (.+?)\s*$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
# The seed documents live outside the repository (the team keeps them in ../shared/seeds);
# EQCARDS_SEEDS points elsewhere, e.g. for a checkout that is not beside them.
SEEDS_ENV = "EQCARDS_SEEDS"


def seeds_dir(project_root: Path) -> Path:
    """Where the seed documents are: $EQCARDS_SEEDS, else ../shared/seeds beside the project."""
    return Path(os.environ.get(SEEDS_ENV) or project_root.parent / "shared" / "seeds")


def handbook_entries(text: str) -> list[str]:
    """Keys 'handbook/<section number>/<#### heading>' in document order."""
    keys, section = [], None
    for line in text.splitlines():
        if m := SECTION.match(line):
            section = m.group(1)
        elif (m := HEADING.match(line)) and section is not None:
            keys.append(f"handbook/{section}/{m.group(1)}")
    return keys


def cheatsheet_entries(text: str) -> list[str]:
    """Keys 'cheatsheet/<table heading>/<row label without bold>' for every table body row."""
    keys, heading, row_in_table = [], None, 0
    for line in text.splitlines():
        if m := TABLE_HEADING.match(line):
            heading, row_in_table = m.group(1), 0
        elif line.startswith("|") and heading is not None:
            row_in_table += 1
            if row_in_table <= 2:  # the header row and the |---| separator
                continue
            label = CELL_SPLIT.split(line)[1].strip().replace("**", "")
            keys.append(f"cheatsheet/{heading}/{label}")
        else:
            row_in_table = 0 if not line.startswith("|") else row_in_table
    return keys


def seed_entries(seeds_dir: Path) -> list[str]:
    """Every entry key of both seed documents."""
    return (handbook_entries((seeds_dir / "handbook.md").read_text(encoding="utf-8"))
            + cheatsheet_entries((seeds_dir / "cheatsheet.md").read_text(encoding="utf-8")))


def read_keys(path: Path) -> list[str]:
    """The committed index's keys in document order (handbook first, then the cheatsheet)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_index(path: Path) -> set[str]:
    """The committed index (one key a line), so builds need no copy of the seed documents."""
    return {line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
