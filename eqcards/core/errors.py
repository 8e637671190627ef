"""The one error type of card processing (it names the file, the line and what to fix), and
how an error message quotes what it is about."""

from __future__ import annotations

from pathlib import Path


class CardError(Exception):
    """A problem in a card, a snippet or a topic file, located as precisely as we can."""

    def __init__(self, path: Path | str, message: str, line: int | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        path = self.path
        if path.is_absolute() and path.is_relative_to(Path.cwd()):
            path = path.relative_to(Path.cwd())
        where = f"{path}:{self.line}" if self.line else f"{path}"
        return f"{where}: {self.message}"


class CardErrors(Exception):
    """Several card errors found in one pass, reported together so one build shows them all."""

    def __init__(self, errors: list[CardError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def shorten(text: str, limit: int = 60) -> str:
    """Text short enough to quote in an error message (a formula, an output line)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."
