"""The runner's input and output, a snippet job and its result; the determinism check reads both."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SnippetJob:
    card_id: str
    card_path: Path
    snippet_path: Path
    timeout: int = 30


@dataclass
class SnippetResult:
    job: SnippetJob
    ok: bool
    stdout: str = ""
    checks: list[dict[str, Any]] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    duration: float = 0.0  # seconds of the run that produced this result (cached: the original run)
    cached: bool = False
    error: str | None = None
    line: int | None = None
    traceback: str = ""
    # The snippet's formula on its calculator's grid: [{"in": {...}, "out": {...}}] (cardcalc.table).
    table: list[dict[str, dict[str, float]]] = field(default_factory=list)

    def describe_failure(self, root: Path | None = None) -> str:
        """One error naming the card file and the snippet line, then the snippet's traceback."""
        card = _relative(self.job.card_path, root)
        snippet = _relative(self.job.snippet_path, root)
        where = f"{snippet}:{self.line}" if self.line else snippet
        text = f"{card}: snippet {where} failed: {self.error}"
        return text + ("\n" + self.traceback.rstrip() if self.traceback else "")

    def payload(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "checks": self.checks, "figures": self.figures,
                "duration": self.duration, "table": self.table}


def _relative(path: Path, root: Path | None) -> str:
    if root is not None and path.is_relative_to(root):
        return str(path.relative_to(root))
    return str(path)
