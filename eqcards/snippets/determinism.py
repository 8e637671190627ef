"""Run a snippet twice and report, as a failure, the first output that differs between the runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..core.errors import shorten
from .jobs import SnippetJob, SnippetResult

ADVICE = ("a card must show the same output on every build: seed every random generator "
          "(np.random.default_rng(0), torch.manual_seed(0)), do not print dates, times, process ids "
          "or temporary paths, and sort set or dict items before printing them")


def first_difference(first: SnippetResult, second: SnippetResult) -> str | None:
    """What differs between two successful runs (output line, check, figure), or None if nothing."""
    if first.stdout != second.stdout:
        one, two = first.stdout.splitlines(), second.stdout.splitlines()
        for number, (a, b) in enumerate(zip(one, two, strict=False), start=1):
            if a != b:
                return (f"output line {number} was {shorten(a, 80)!r} on the first run "
                        f"and {shorten(b, 80)!r} on the second")
        if len(one) != len(two):
            return f"the output had {len(one)} lines on the first run and {len(two)} on the second"
        return "the output differs in its line endings or trailing whitespace"
    if first.checks != second.checks:
        if len(first.checks) != len(second.checks):
            return f"{len(first.checks)} checks ran on the first run and {len(second.checks)} on the second"
        pairs = enumerate(zip(first.checks, second.checks, strict=True), start=1)
        number, check = next((i, a) for i, (a, b) in pairs if a != b)
        return f"check {number} ({shorten(str(check.get('what', '')), 80)!r}) recorded different results"
    if len(first.figures) != len(second.figures):
        return f"{len(first.figures)} figures on the first run and {len(second.figures)} on the second"
    for number, (a, b) in enumerate(zip(first.figures, second.figures, strict=True), start=1):
        if a != b:
            what = "the data it plots" if a.startswith("figure data") else "its SVG bytes"
            return f"figure {number} differs ({what} not the same on both runs)"
    return None


def run_twice(run: Callable[[SnippetJob, Path], SnippetResult], job: SnippetJob,
              snippets_dir: Path) -> SnippetResult:
    """Run the job twice; a result that changes between the runs becomes a failure (never cached)."""
    first = run(job, snippets_dir)
    if not first.ok:
        return first
    second = run(job, snippets_dir)
    if not second.ok:
        return replace(second, error=f"non-deterministic: passed on the first run and failed on the "
                                     f"second: {second.error}; {ADVICE}")
    difference = first_difference(first, second)
    if difference is None:
        return first
    return replace(first, ok=False, line=None, traceback="",
                   error=f"non-deterministic: its result changes between two runs: {difference}; {ADVICE}")
