"""The snippet server: clean state per snippet, crashes, leftovers, parallel runs, parent death."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import GOOD_SNIPPET, job

from eqcards.snippets.forkclient import ForkServer, preload_modules
from eqcards.snippets.runner import (
    GRACE_SECONDS,
    PACKAGE_ROOT,
    SNIPPET_ENV,
    RunReport,
    run_snippet,
    run_snippets,
    snippet_server,
)


@pytest.fixture
def server(snippets: Path) -> Iterator[ForkServer]:
    with snippet_server(snippets, []) as running:
        running.wait_ready()
        yield running


def alive(pid: int) -> bool:
    """True while the process exists and has not exited (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in command and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# Changes every kind of process-wide state a snippet can touch; the next snippet checks for each.
POLLUTER = """import os, random, sys, warnings
import matplotlib.pyplot as plt
import numpy as np
import cardcheck, cardplot
from cardcheck import check_true
plt.rcParams['lines.linewidth'] = 9.0
np.set_printoptions(precision=2)
np.seterr(all='raise')
sys.modules['leaked_module'] = sys
cardplot.LEAK = True
os.environ['LEAKED'] = '1'
warnings.simplefilter('error')
sys.path.append('/leaked')
import statistics
statistics.mean = None
plt.figure()
check_true('polluted', True)
"""
CLEAN = """import os, statistics, sys, warnings
import matplotlib.pyplot as plt
import numpy as np
import cardplot
from cardcheck import RESULTS, check_true
check_true('fresh check list', len(RESULTS) == 0)
check_true('rcParams', plt.rcParams['lines.linewidth'] == 1.5)
check_true('print options', np.get_printoptions()['precision'] == 8)
check_true('error handling', np.geterr()['divide'] == 'warn')
check_true('sys.modules', 'leaked_module' not in sys.modules)
check_true('helper globals', not hasattr(cardplot, 'LEAK'))
check_true('environment', 'LEAKED' not in os.environ)
check_true('warning filters', not any(f[0] == 'error' for f in warnings.filters))
check_true('sys.path', '/leaked' not in sys.path)
check_true('stdlib module', callable(statistics.mean))
check_true('no open figures', plt.get_fignums() == [])
"""


def test_nothing_a_snippet_changes_reaches_the_next(snippets: Path, server: ForkServer) -> None:
    polluter = run_snippet(job(snippets, "polluter", POLLUTER), snippets, server)
    assert polluter.ok, polluter.error
    assert len(polluter.figures) == 1
    clean = run_snippet(job(snippets, "clean", CLEAN), snippets, server)
    assert clean.ok, clean.describe_failure() + clean.stdout
    assert len(clean.checks) == 11 and clean.figures == []


def test_a_crashing_snippet_does_not_stop_the_server(snippets: Path, server: ForkServer) -> None:
    assert server.process is not None
    crashes = {"killed": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", -9),
               "segfault": ("import ctypes\nctypes.string_at(0)\n", -11),
               "exits": ("import os\nos._exit(3)\n", 3)}
    for name, (source, code) in crashes.items():
        result = run_snippet(job(snippets, name, source), snippets, server)
        assert not result.ok
        assert f"the snippet process died (exit code {code}) without a result" in result.error
    assert server.process.poll() is None
    after = run_snippet(job(snippets, "good", GOOD_SNIPPET), snippets, server)
    assert after.ok, after.error


def test_a_process_left_behind_is_killed_with_its_snippet(snippets: Path, server: ForkServer) -> None:
    marker = f"{time.time_ns() % 10**6}.5"  # a sleep no other process has
    source = ("import subprocess\nfrom cardcheck import check_true\n"
              f"subprocess.Popen(['sleep', '{marker}'])\ncheck_true('started', True)\n")
    result = run_snippet(job(snippets, "leaver", source), snippets, server)
    assert result.ok, result.error
    assert wait_until(lambda: processes_with(f"sleep {marker}") == [], 10)


def test_a_snippet_past_its_deadline_is_killed_with_its_group(snippets: Path, server: ForkServer) -> None:
    marker = f"{time.time_ns() % 10**6}.25"
    # It switches off its own traceback dump (which would end it at the timeout): only the
    # server's SIGKILL of the process group, at timeout + grace, can stop it and its `sleep`.
    source = ("import faulthandler, subprocess, time\nfaulthandler.cancel_dump_traceback_later()\n"
              f"subprocess.Popen(['sleep', '{marker}'])\nwhile True:\n    time.sleep(0.05)\n")
    started = time.monotonic()
    result = run_snippet(job(snippets, "hang", source, timeout=1), snippets, server)
    assert not result.ok and "timed out after 1 s" in result.error
    assert 1 + GRACE_SECONDS <= time.monotonic() - started < 1 + GRACE_SECONDS + 15
    assert wait_until(lambda: processes_with(f"sleep {marker}") == [], 10)


# How a snippet that has started `sleep` ends: each must take the sleep with it.
ENDINGS = {
    "returns": "",
    "fails": "raise ValueError('after starting a process')\n",
    "exits without cleaning up": "os._exit(0)\n",
    "times out": "while True:\n    time.sleep(0.05)\n",
}


@pytest.mark.parametrize("new_session", [False, True], ids=["same group", "own session"])
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_no_process_a_snippet_starts_outlives_it(snippets: Path, server: ForkServer, ending: str,
                                                  new_session: bool) -> None:
    """`sleep 300` started with subprocess.Popen, in the snippet's process group or in a session of
    its own (which the group kill does not reach): gone, by its pid, once the run has returned."""
    marker = f"300.{time.time_ns() % 10**9}"
    source = ("import os, subprocess, time\nfrom cardcheck import check_true\n"
              f"sleeper = subprocess.Popen(['sleep', '{marker}'], start_new_session={new_session})\n"
              "print('started', sleeper.pid, flush=True)\ntime.sleep(1.5)\n"
              "check_true('sleep is running', sleeper.poll() is None)\n" + ENDINGS[ending])
    seen: set[int] = set()
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(run_snippet, job(snippets, "starter", source, timeout=4), snippets, server)
        while not running.done():
            seen.update(processes_with(f"sleep {marker}"))
            time.sleep(0.02)
        result = running.result()
    assert result.ok == (ending == "returns"), result.describe_failure()
    if ending == "returns":
        assert [int(result.stdout.split()[1])] == sorted(seen)
    assert len(seen) == 1, "the snippet's sleep was never seen running"
    [pid] = seen
    assert not alive(pid), f"sleep {marker} (pid {pid}) outlived its snippet ({ending})"
    assert server.process is not None and server.process.poll() is None
    assert children_of(server.process.pid) == []  # nothing left for the server to reap either


SLEEPER = ("import time\nfrom cardcheck import check_true\nstart = time.time()\ntime.sleep(1.5)\n"
           "print('interval', start, time.time())\ncheck_true('slept', True)\n")


def intervals(report: RunReport) -> list[tuple[float, float]]:
    found = [r.stdout.split("interval ")[1].split() for r in report.results.values()]
    return sorted((float(start), float(end)) for start, end, *_ in found)


@pytest.mark.parametrize("workers", [1, 2])
def test_snippets_run_in_parallel_up_to_the_worker_count(snippets: Path, workers: int) -> None:
    jobs = [job(snippets, f"sleeper{i}", SLEEPER + f"# {i}\n") for i in range(2)]
    report = run_snippets(jobs, snippets, None, workers=workers)
    assert not report.failures, [f.error for f in report.failures]
    (_, first_end), (second_start, _) = intervals(report)
    assert (second_start < first_end) == (workers == 2)


DETERMINISTIC = ("import random, numpy as np\nfrom cardcheck import check_true\nfrom cardplot import figure\n"
                 "print(hash('equation cards'), sorted({'b', 'a', 'c'}), list({'x', 'y', 'z'}))\n"
                 "print(random.random(), np.random.rand())\n"
                 "fig, ax = figure(r'$\\sqrt{\\alpha_t}$', 'x', 'y')\n"
                 "ax.plot([0, 1], [1, 0], label='$x^2$')\nax.legend()\ncheck_true('ran', True)\n")


def test_forked_run_equals_a_fresh_interpreter(snippets: Path, server: ForkServer, tmp_path: Path) -> None:
    """The same output, byte for byte, as `python -m eqcards.snippets.worker` in a fresh process (the
    runner before the server): hash seed, random seeds, SVG ids, warmed matplotlib caches."""
    snippet = job(snippets, "same", DETERMINISTIC)
    forked = run_snippet(snippet, snippets, server)
    again = run_snippet(snippet, snippets, server)
    assert forked.ok, forked.error
    workdir, out = tmp_path / "eqcards-run-fresh", tmp_path / "out"
    workdir.mkdir()
    out.mkdir()
    env = {**os.environ, **SNIPPET_ENV, "PYTHONPATH": str(PACKAGE_ROOT)}
    subprocess.run([sys.executable, "-m", "eqcards.snippets.worker", str(snippet.snippet_path), str(snippets),
                    str(out / "result.json"), "30"], cwd=workdir, env=env, check=True)
    fresh = json.loads((out / "result.json").read_text())
    assert fresh["ok"]
    assert (forked.stdout, forked.figures) == (fresh["stdout"], fresh["figures"])
    assert (again.stdout, again.figures) == (forked.stdout, forked.figures)


BUILD = """import sys, threading, time
from pathlib import Path
from eqcards.snippets.jobs import SnippetJob
from eqcards.snippets.runner import run_snippet, snippet_server
snippets = Path(sys.argv[1])
job = SnippetJob('sleepy', Path('sleepy.md'), snippets / 'sleepy.py', timeout=600)
server = snippet_server(snippets, [job])
threading.Thread(target=run_snippet, args=(job, snippets, server), daemon=True).start()
while server.process is None:
    time.sleep(0.01)
print(server.process.pid, flush=True)
time.sleep(600)
"""


def test_server_and_snippets_die_with_a_killed_build(snippets: Path) -> None:
    (snippets / "sleepy.py").write_text("import time\ntime.sleep(600)\n")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    build = subprocess.Popen([sys.executable, "-c", BUILD, str(snippets)], stdout=subprocess.PIPE, env=env,
                             text=True)
    try:
        assert build.stdout is not None
        server_pid = int(build.stdout.readline())
        assert wait_until(lambda: children_of(server_pid) != [], 120), "the snippet never started"
        [snippet_pid] = children_of(server_pid)
        build.send_signal(signal.SIGKILL)
        build.wait()
        assert wait_until(lambda: not alive(server_pid) and not alive(snippet_pid), 30)
    finally:
        build.kill()
        build.wait()


def test_preload_lists_the_library_modules_snippets_import(tmp_path: Path) -> None:
    snippet = tmp_path / "s.py"
    snippet.write_text("import numpy as np\nimport itertools\nfrom scipy.stats import norm\n"
                       "from scipy import integrate\nimport matplotlib.ticker\n"
                       "from cardcheck import check_true\n")
    modules = preload_modules([snippet, tmp_path / "missing.py"])
    assert modules[:2] == ["numpy", "matplotlib.pyplot"]
    assert {"scipy.stats", "scipy.integrate", "matplotlib.ticker"} <= set(modules)
    assert not {"itertools", "cardcheck", "scipy.stats.norm"} & set(modules)
