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

WRITE_MODES = set("wax+")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Audit events that change the file system, and the positions of their (path, dir_fd) pairs.
CHANGES: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.remove": ((0, 1),), "os.rmdir": ((0, 1),), "os.mkdir": ((0, 2),),
    "os.rename": ((0, 2), (1, 3)), "os.link": ((0, 2), (1, 3)), "os.symlink": ((1, 2),),
    "os.truncate": ((0, None),), "shutil.rmtree": ((0, 1),),
}


def memory_limit_mb() -> int:
    return int(os.environ.get("EQCARDS_MEMORY_MB", "3072"))


def _refuse_network(*args: object, **kwargs: object) -> None:
    raise PermissionError("snippets may not use the network: compute or embed the data instead")


def limit_memory(megabytes: int | None = None) -> None:
    """Cap the address space (EQCARDS_MEMORY_MB, default 3072); numpy then raises MemoryError at
    the allocating line."""
    limit = (megabytes or memory_limit_mb()) * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit if hard == resource.RLIM_INFINITY else hard))


def confine_writes(allowed: list[Path]) -> None:
    """Refuse opening files for writing, and creating, removing, renaming or truncating files or
    folders, outside `allowed`."""
    roots = [str(p.resolve()) for p in allowed] + ["/dev/null"]

    def inside(path: object, dir_fd: object = None, follow: bool = True) -> bool:
        if isinstance(path, int):  # a file descriptor the process already holds
            return True
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False
        name = os.fsdecode(path)
        if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(name):  # relative to a folder
            name = os.path.join(f"/proc/self/fd/{dir_fd}", name)
        folder, last = os.path.split(name)
        if follow or last in ("", ".", ".."):
            text = os.path.realpath(name)
        else:  # removing or renaming a symbolic link changes the link, not what it points to
            text = os.path.join(os.path.realpath(folder or "."), last)
        return any(text == root or text.startswith(root + os.sep) for root in roots)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (*args, None, None)[:3]
            writes = (isinstance(mode, str) and WRITE_MODES & set(mode)) or \
                (isinstance(flags, int) and flags & WRITE_FLAGS)
            if writes and not inside(path):
                raise PermissionError(f"snippets may only write inside their working directory, not {path}")
        elif event in CHANGES:
            for at, fd_at in CHANGES[event]:
                path = args[at] if at < len(args) else None
                dir_fd = args[fd_at] if fd_at is not None and fd_at < len(args) else None
                if not inside(path, dir_fd, follow=event == "os.truncate"):
                    raise PermissionError(f"snippets may only change files inside their working "
                                          f"directory, not {path}")

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
