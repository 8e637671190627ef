"""The libraries an In-code region may name, declared once: the build's own, and the heavy ones.

The build's libraries (eqcards.snippets.regions.BUILD_LIBRARIES) run their regions in every build.
The heavy ones (torch, jax ...) are those pinned in requirements-libcheck.txt: only `make libcheck`
installs them, into .venv-libcheck, and runs their regions.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core.errors import CardError
from ..snippets.regions import BUILD_LIBRARIES

REQUIREMENTS = "requirements-libcheck.txt"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)$")


def canonical(name: str) -> str:
    """A distribution name as pip compares them (PEP 503): lower case, runs of -_. as one -."""
    return re.sub(r"[-_.]+", "-", name).lower()


def heavy_pins(path: Path) -> dict[str, str]:
    """Each library pinned in requirements-libcheck.txt, by canonical name, with its version; none
    where the project has no such file (its regions may then name only the build's libraries)."""
    pins: dict[str, str] = {}
    if not path.is_file():
        return pins
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if (pin := PIN.match(line)) is None:
            raise CardError(path, f"'{line}' is not a pin NAME==VERSION: pin every heavy library exactly, "
                            "so the ledger's versions are the ones that ran", number)
        pins[canonical(pin["name"])] = pin["version"]
    return pins


def is_heavy(library: str) -> bool:
    """Whether the build lacks this library, so that only `make libcheck` runs its region."""
    return library not in BUILD_LIBRARIES


def known(library: str, pins: dict[str, str]) -> bool:
    return library in BUILD_LIBRARIES or library in pins


def known_names(pins: dict[str, str]) -> str:
    return ", ".join(sorted(BUILD_LIBRARIES | set(pins)))
