"""A pre-forked snippet server: one process per build imports the libraries once, then forks per snippet.

Starting `python -m eqcards.snippets.worker` for every snippet costs an interpreter plus numpy, scipy and
matplotlib imports (about a second here), far more than most snippets take to run. Instead the
runner starts one server per build (`python -m eqcards.snippets.forkserver`, with the snippet environment:
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

A process that leaves the group (`subprocess.Popen(..., start_new_session=True)`, a daemon's
double fork) is still ended: the child and the server are both child subreapers
(PR_SET_CHILD_SUBREAPER), so whatever a snippet starts stays a descendant of its child while the
child lives and becomes the server's once the child is gone. The child kills and reaps all its
descendants when the snippet has finished, passed or failed; the server kills and reaps any
process handed to it by a child that died without doing so (killed at its deadline, crashed,
os._exit).

Lifetime: the build process holds the write end of the server's stdin. When the build ends, or is
killed with SIGKILL, the pipe reaches EOF and the server kills its running children and exits;
each child also asks the kernel for SIGKILL if the server dies (PR_SET_PDEATHSIG).

Protocol, one Unix-socket connection per snippet: the client sends one JSON line (snippet,
snippets_dir, workdir, outdir, timeout); the server answers {"pid": N} once the child exists
and {"exit": code, "killed": bool} once it has been reaped (code < 0: killed by that signal).
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import select
import signal
import socket
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..core.config import helpers_dir
from .forkclient import kill_group

HELPERS = ("cardcheck", "cardplot")  # snippets/lib/ helpers every card imports
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


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
    helpers = helpers_dir(snippets_dir)
    sys.path.insert(0, str(helpers))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import matplotlib

            matplotlib.use("Agg")
        except Exception:
            pass  # every child reports it
        for name in [*modules, *(h for h in HELPERS if (helpers / f"{h}.py").is_file())]:
            try:
                __import__(name)
            except Exception:
                continue  # a child importing it reports the error, at the snippet's line
        _warm_up()
    sys.path.remove(str(helpers))  # worker.run puts it first again in each child
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


def _prctl(option: int, value: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _die_with_server(server_pid: int) -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server_pid:  # the server died before prctl took effect
        os._exit(1)


def children_of(pid: int) -> list[int]:
    """The live child processes of `pid` (a process of ours)."""
    found: list[int] = []
    if os.path.exists(f"/proc/{pid}/task/{pid}/children"):
        for task in os.listdir(f"/proc/{pid}/task"):  # each thread lists the children it started
            try:
                with open(f"/proc/{pid}/task/{task}/children") as listing:
                    found += [int(p) for p in listing.read().split()]
            except OSError:
                continue  # a thread that has just ended
        return sorted(set(found))
    for entry in os.listdir("/proc"):  # a kernel without those lists: every process's parent
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    if int(stat.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _end_descendants() -> None:
    """In a snippet's child, once the snippet is done: kill and reap every process it started.
    The child is their subreaper, so each one is a child of ours by the time its parent is gone."""
    while True:
        for pid in children_of(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # gone already
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return  # none left
        except InterruptedError:
            continue


def _end_strays(snippet_children: set[int]) -> None:
    """In the server: kill and reap processes handed to us by snippet children that died without
    ending them (the server is their subreaper)."""
    while strays := [p for p in children_of(os.getpid()) if p not in snippet_children]:
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # gone already
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _child(request: dict, server_pid: int, server_cwd: str, inherited: list[int]) -> None:
    """In the forked child: become a process group, detach from the server, run, exit."""
    code = 1
    try:
        os.setsid()
        _die_with_server(server_pid)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
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
        try:
            _end_descendants()
        finally:
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
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
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
                    _reap(child, {c.pid for c in children.values()})
            now = time.monotonic()
            for child in children.values():
                if not child.killed and now >= child.deadline:
                    kill_group(child.pid)
                    child.killed = True
    finally:
        pids = {c.pid for c in children.values()}
        for child in children.values():
            kill_group(child.pid)
            _reap(child, pids - {child.pid})  # the others are reaped next, each by its pid


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


def _reap(child: _Child, running: set[int]) -> None:
    """End the child's group and reap it, end what it left to us (`running`: the other snippets'
    children, left alone), then tell the client."""
    kill_group(child.pid)  # anything the snippet left running in its group; the pid is not reused yet
    _, status = os.waitpid(child.pid, 0)
    _end_strays(running)
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
