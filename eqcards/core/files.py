"""Writing a file so that no reader ever sees half of it: a temporary file beside it, renamed over it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, prefix: str | None = None) -> None:
    """Write `text` to a temporary file in `path`'s folder (named `prefix`..., so a sweep can find
    one a killed process left), flush it to disk and rename it over `path`. The file gets the mode
    any file the user writes gets (mkstemp's own is owner-only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
