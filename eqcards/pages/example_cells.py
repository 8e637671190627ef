"""Run inside a worked example's process: marks where each cell starts in the printed output."""

from __future__ import annotations

import sys


def mark(number: int) -> None:
    """Print the cell's mark and the figures open so far (eqcards.pages.examples splits the output by
    these marks; cell 0 is the end of the run)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    figures = ",".join(str(n) for n in pyplot.get_fignums()) if pyplot else ""
    sys.stdout.write(f"\x1eeqc-cell {number} {figures}\x1e\n")
    sys.stdout.flush()
