"""House rules for a snippet's process: no network, bounded memory, writes only in its own folder.

This is not a security boundary (a snippet is trusted code from this repository); it turns
accidents, such as a download, a runaway array or a file written into the repository, into a
clear error at the snippet's line instead of a slow, flaky or dirty build.
"""

from __future__ import annotations

import os
import resource
import socket
import sys
from pathlib import Path

MEMORY_LIMIT_MB = int(os.environ.get("EQCARDS_MEMORY_MB", "3072"))
WRITE_MODES = set("wax+")


def _refuse_network(*args: object, **kwargs: object) -> None:
    raise PermissionError("snippets may not use the network: compute or embed the data instead")


def limit_memory(megabytes: int = MEMORY_LIMIT_MB) -> None:
    """Cap the address space; numpy then raises MemoryError at the allocating line."""
    limit = megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit if hard == resource.RLIM_INFINITY else hard))


def confine_writes(allowed: list[Path]) -> None:
    """Refuse opening files for writing, and removing or renaming files, outside `allowed`."""
    roots = [str(p.resolve()) for p in allowed] + ["/dev/null"]

    def inside(path: object) -> bool:
        if isinstance(path, int):  # a file descriptor the process already holds
            return True
        text = os.path.realpath(os.fsdecode(path)) if isinstance(path, (str, bytes, os.PathLike)) else ""
        return any(text == root or text.startswith(root + os.sep) for root in roots)

    def hook(event: str, args: tuple) -> None:
        if event == "open" and args[1] and WRITE_MODES & set(str(args[1])) and not inside(args[0]):
            raise PermissionError(f"snippets may only write inside their working directory, not {args[0]}")
        if event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir") and not inside(args[0]):
            raise PermissionError(f"snippets may only change files inside their working directory, "
                                  f"not {args[0]}")

    sys.addaudithook(hook)


def refuse_network() -> None:
    socket.socket.connect = _refuse_network  # type: ignore[method-assign]
    socket.socket.connect_ex = _refuse_network  # type: ignore[method-assign]
    socket.create_connection = _refuse_network  # type: ignore[assignment]
    socket.getaddrinfo = _refuse_network  # type: ignore[assignment]


def apply(workdir: Path, result_dir: Path) -> None:
    """Everything at once, after the heavy imports (their caches live outside the workdir)."""
    refuse_network()
    limit_memory()
    confine_writes([workdir, result_dir])
