"""A pre-forked snippet server: one process per build imports the libraries once, then forks per snippet.

Starting `python -m eqcards.worker` for every snippet costs an interpreter plus numpy, scipy and
matplotlib imports (about a second here), far more than most snippets take to run. Instead the
runner starts one server per build (`python -m eqcards.forkserver`, with the snippet environment:
PYTHONHASHSEED and the BLAS thread counts must be set before an interpreter starts). The server
imports numpy, matplotlib (Agg, pyplot), the scipy and numpy submodules the build's snippets
import and the helpers `cardcheck` and `cardplot`, freezes that heap for the garbage collector,
and then, single-threaded, forks one child per request. A child starts from this clean,
already-imported state, so nothing one snippet changes (rcParams, print options, sys.modules, a
helper's globals) can reach the next; it then does exactly what the old per-snippet process did
(`worker.run`: seeds, sandbox, timeout dump, output cap, figures) and writes its result file.

Why our own `os.fork` loop rather than multiprocessing's forkserver with
`set_forkserver_preload`: that server is one per build process, inherits the build process's
environment and sys.path, lives as long as the build process (mkdocs serve rebuilds with edited
helpers) and gives no control over process groups. Here each child calls setsid, so the server
can SIGKILL the child's whole process group at the deadline and once the child has exited (any
process it left behind), and it does so before reaping the child, so the group id cannot have been
reused. The server learns of exits through pidfds, in one poll loop with its listening socket
and its stdin.

Lifetime: the build process holds the write end of the server's stdin. When the build ends, or is
killed with SIGKILL, the pipe reaches EOF and the server kills its running children and exits;
each child also asks the kernel for SIGKILL if the server dies (PR_SET_PDEATHSIG).

Protocol, one Unix-socket connection per snippet: the client sends one JSON line (snippet,
snippets_dir, workdir, outdir, timeout); the server answers {"pid": N} once the child exists
and {"exit": code, "killed": bool} once it has been reaped (code < 0: killed by that signal).
"""

from __future__ import annotations

import ast
import ctypes
import gc
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

LIBRARIES = ("numpy", "scipy", "matplotlib")
ALWAYS_PRELOAD = ("numpy", "matplotlib.pyplot")
HELPERS = ("cardcheck", "cardplot")  # snippets/ helpers every card imports
PR_SET_PDEATHSIG = 1
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
                    [sys.executable, "-m", "eqcards.forkserver", str(listener.fileno()),
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
                    _kill_group(pid)
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


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---- the server side --------------------------------------------------------------------------

@dataclass
class _Child:
    pid: int
    pidfd: int
    conn: socket.socket
    deadline: float
    killed: bool = False


def _preload(snippets_dir: Path, modules: list[str]) -> None:
    """Import what every child would otherwise import itself. Failures are left to the child,
    which reports them at the snippet's line; warnings at import are not the snippets' output."""
    sys.path.insert(0, str(snippets_dir))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import matplotlib

            matplotlib.use("Agg")
        except Exception:
            pass  # every child reports it
        for name in [*modules, *(h for h in HELPERS if (snippets_dir / f"{h}.py").is_file())]:
            try:
                __import__(name)
            except Exception:
                continue  # a child importing it reports the error, at the snippet's line
        _warm_up()
    sys.path.remove(str(snippets_dir))  # worker.run puts it first again in each child
    from . import worker  # noqa: F401 - what every child runs


def _warm_up() -> None:
    """Draw and save one throw-away figure as a snippet would: font files, the mathtext parser
    and the SVG writer then load once here, not in every child. Only caches of pure functions
    fill up (a snippet's second figure finds them filled too); no figure stays open."""
    import io

    import matplotlib.pyplot as plt

    try:
        fig, ax = plt.subplots(layout="constrained")
        ax.plot([0, 1], [0, 1], label=r"$\alpha_t^2$")
        ax.set_title(r"$\sqrt{x}\,\log \frac{p}{q}$ text")
        ax.set_xlabel("x")
        ax.legend()
        ax.grid(True)
        fig.savefig(io.StringIO(), format="svg")
    except Exception:
        pass  # only a head start
    finally:
        plt.close("all")


def _die_with_server(server_pid: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != server_pid:  # the server died before prctl took effect
        os._exit(1)


def _child(request: dict, server_pid: int, server_cwd: str, inherited: list[int]) -> None:
    """In the forked child: become a process group, detach from the server, run, exit."""
    code = 1
    try:
        os.setsid()
        _die_with_server(server_pid)
        gc.enable()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in inherited:
            os.close(fd)
        outdir, workdir = Path(request["outdir"]), Path(request["workdir"])
        devnull = os.open(os.devnull, os.O_RDONLY)
        log = os.open(outdir / "output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(devnull)
        os.close(log)
        os.chdir(workdir)
        if sys.path and sys.path[0] == server_cwd:  # as for `python -m`: the working directory first
            sys.path[0] = str(workdir)
        from . import worker

        result = worker.run(Path(request["snippet"]), Path(request["snippets_dir"]),
                            float(request["timeout"]), outdir / "result.hang")
        (outdir / "result.json").write_text(json.dumps(result), encoding="utf-8")
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass  # exiting anyway
        os._exit(code)


def _reply(conn: socket.socket, message: dict) -> None:
    try:
        conn.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass  # the client gave up; the child is handled all the same


def serve(listener_fd: int, snippets_dir: Path, modules: list[str]) -> None:
    """The server loop: fork on request, kill at deadlines, reap, stop when stdin closes."""
    listener = socket.socket(fileno=listener_fd)
    # As the gc module advises for fork without exec: no collections while importing, then
    # the whole heap frozen, so children's collections neither scan nor copy it.
    gc.disable()
    _preload(snippets_dir, modules)
    gc.freeze()
    server_pid, server_cwd = os.getpid(), os.getcwd()
    poller = select.poll()
    poller.register(0, select.POLLIN)
    poller.register(listener, select.POLLIN)
    children: dict[int, _Child] = {}  # by pidfd
    try:
        while True:
            now = time.monotonic()
            wait = min((c.deadline for c in children.values() if not c.killed), default=now + 3600) - now
            for fd, _ in poller.poll(max(0, wait) * 1000 + 1):
                if fd == 0:
                    if not os.read(0, 4096):
                        return  # the build is gone (ended, or killed): so are we
                elif fd == listener.fileno():
                    conn, _ = listener.accept()
                    child = _fork(conn, server_pid, server_cwd, [listener.fileno()] +
                                  [c.conn.fileno() for c in children.values()] + list(children))
                    if child is not None:
                        children[child.pidfd] = child
                        poller.register(child.pidfd, select.POLLIN)
                else:
                    child = children.pop(fd)
                    poller.unregister(fd)
                    _reap(child)
            now = time.monotonic()
            for child in children.values():
                if not child.killed and now >= child.deadline:
                    _kill_group(child.pid)
                    child.killed = True
    finally:
        for child in children.values():
            _kill_group(child.pid)
            _reap(child)


def _fork(conn: socket.socket, server_pid: int, server_cwd: str, inherited: list[int]) -> _Child | None:
    try:
        conn.settimeout(5)
        request = json.loads(conn.makefile("rb").readline())
    except (OSError, ValueError):
        conn.close()
        return None
    if request.get("ping"):
        _reply(conn, {"ready": True})
        conn.close()
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError as exc:
        _reply(conn, {"error": f"could not fork a snippet process: {exc}"})
        conn.close()
        return None
    if pid == 0:
        _child(request, server_pid, server_cwd, [*inherited, conn.fileno()])
    child = _Child(pid, os.pidfd_open(pid), conn, time.monotonic() + float(request["kill_after"]))
    _reply(conn, {"pid": pid})
    return child


def _reap(child: _Child) -> None:
    _kill_group(child.pid)  # anything the snippet left running in its group; the pid is not reused yet
    _, status = os.waitpid(child.pid, 0)
    os.close(child.pidfd)
    _reply(child.conn, {"exit": os.waitstatus_to_exitcode(status), "killed": child.killed})
    child.conn.close()


def main() -> None:
    listener_fd, snippets_dir, modules = sys.argv[1:4]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        serve(int(listener_fd), Path(snippets_dir), json.loads(modules))
    except KeyboardInterrupt:  # Ctrl-C on the build reaches its whole process group
        pass
    os._exit(0)  # children are reaped; tearing down the imported libraries would only take time


if __name__ == "__main__":
    main()
