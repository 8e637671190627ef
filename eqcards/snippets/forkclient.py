"""The build's handle on the snippet server (eqcards/snippets/forkserver.py): start it, send it
snippets, stop it. The design, and why it exists, is told in that module."""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

# The snippets' heavy imports, loaded once.
LIBRARIES = ("numpy", "scipy", "matplotlib", "sklearn", "nltk", "networkx")
ALWAYS_PRELOAD = ("numpy", "matplotlib.pyplot")
SERVER_START_SECONDS = 120  # a loaded machine may take long to import everything
STATUS_SLACK_SECONDS = 10  # the server kills at timeout + grace; we give up waiting this much later


@dataclass(frozen=True)
class ChildExit:
    """How a snippet's child process ended, as the server reported it."""

    pid: int | None
    exit_code: int | None  # None: the server never reported (it died, or did not answer)
    killed: bool = False  # the server killed it at its deadline
    problem: str = ""


def preload_modules(snippets: Iterable[Path]) -> list[str]:
    """numpy and pyplot, plus every numpy, scipy or matplotlib module the snippets import."""
    modules = dict.fromkeys(ALWAYS_PRELOAD)
    for path in snippets:
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            continue  # the run reports it
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from scipy import stats` imports a submodule; `from scipy.stats import norm` a name.
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names
                                         if node.module in LIBRARIES]
            for name in names:
                if name.split(".")[0] in LIBRARIES:
                    modules.setdefault(name)
    return list(modules)


class ForkServer:
    """The build's handle on one snippet server; started on first use, stopped by close()."""

    def __init__(self, snippets_dir: Path, env: Mapping[str, str], modules: Iterable[str] = ALWAYS_PRELOAD,
                 ) -> None:
        self.snippets_dir = snippets_dir.resolve()
        self.env = dict(env)
        self.modules = list(modules)
        self.process: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None
        self._lock = threading.Lock()

    @property
    def socket_path(self) -> str:
        assert self._folder is not None
        return os.path.join(self._folder, "socket")

    def start(self) -> None:
        with self._lock:
            if self.process is not None:
                return
            self._folder = tempfile.mkdtemp(prefix="eqcards-forkserver-")
            # Bound and listening before the server exists: requests queue while it imports.
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(self.socket_path)
                listener.listen(64)
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "eqcards.snippets.forkserver", str(listener.fileno()),
                     str(self.snippets_dir), json.dumps(self.modules)],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=self._folder, env=self.env,
                    pass_fds=(listener.fileno(),))

    def wait_ready(self) -> None:
        """Start the server if needed and return once it has imported everything."""
        self.start()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(SERVER_START_SECONDS)
            conn.connect(self.socket_path)
            conn.sendall(b'{"ping": true}\n')
            if not conn.makefile("rb").readline():
                raise RuntimeError("the snippet server stopped while starting")

    def run(self, snippet: Path, workdir: Path, outdir: Path, timeout: float, grace: float) -> ChildExit:
        """Run one snippet in a fresh child; returns once the child is gone."""
        self.start()
        request = {"snippet": str(snippet.resolve()), "snippets_dir": str(self.snippets_dir),
                   "workdir": str(workdir), "outdir": str(outdir), "timeout": timeout,
                   "kill_after": timeout + grace}
        pid = None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            try:
                conn.settimeout(SERVER_START_SECONDS)
                conn.connect(self.socket_path)
                conn.sendall(json.dumps(request).encode() + b"\n")
                replies = conn.makefile("rb")
                first = json.loads(replies.readline() or "{}")
                if "pid" not in first:
                    return ChildExit(None, None, problem=first.get("error", "the snippet server stopped "
                                                                            "before starting it"))
                pid = first["pid"]
                conn.settimeout(timeout + grace + STATUS_SLACK_SECONDS)
                last = replies.readline()
                if not last:
                    return ChildExit(pid, None, problem="the snippet server stopped while it ran")
                status = json.loads(last)
                return ChildExit(pid, status["exit"], status["killed"])
            except (TimeoutError, OSError) as exc:
                if pid is not None:
                    kill_group(pid)
                return ChildExit(pid, None, problem=f"no answer from the snippet server ({exc})")

    def close(self) -> None:
        """Stop the server (closing its stdin is the signal) and remove its socket."""
        with self._lock:
            process, self.process = self.process, None
            if process is not None:
                assert process.stdin is not None
                process.stdin.close()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
