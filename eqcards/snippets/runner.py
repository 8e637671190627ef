"""Run card snippets in parallel child processes, with a timeout and a cache of successes."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from .cache import ResultCache
from .determinism import run_twice
from .forkclient import ForkServer, preload_modules
from .jobs import SnippetJob, SnippetResult
from .snippet_key import snippet_key
from .worker import unverified

PACKAGE_ROOT = Path(__file__).resolve().parents[2]

# The same for every snippet, so output depends on the snippet alone.
SNIPPET_ENV = {
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "SOURCE_DATE_EPOCH": "0",
}
GRACE_SECONDS = 5  # the child dumps its own traceback at the timeout; we kill it this much later


@dataclass
class RunReport:
    results: dict[str, SnippetResult]
    ran: int = 0
    cached: int = 0

    @property
    def failures(self) -> list[SnippetResult]:
        return [r for r in self.results.values() if not r.ok]

    def summary(self) -> str:
        return f"snippets: {self.ran} ran, {self.cached} cached, {len(self.failures)} failed"


def run_snippets(jobs: Iterable[SnippetJob], snippets_dir: Path, cache: ResultCache | None,
                 workers: int | None = None,
                 on_done: Callable[[SnippetResult], None] | None = None,
                 check_determinism: bool = False,
                 environment: Mapping[str, str | None] | None = None) -> RunReport:
    """Serve every job from the cache or run it; only successes are written back.
    With check_determinism, each job that runs runs twice and a changing result is a failure.
    `environment` changes the snippets' environment on top of SNIPPET_ENV (None unsets a variable):
    a cache given with it must be one for that environment alone (eqcards.portability)."""
    report = RunReport(results={})
    pending: list[tuple[SnippetJob, str]] = []
    for job in jobs:
        key = snippet_key(job.snippet_path, snippets_dir, job.timeout) if job.snippet_path.is_file() else ""
        stored = cache.get(key) if cache is not None and key else None
        result = verdict(SnippetResult(job, ok=True, cached=True, **stored)) if stored is not None else None
        if result is not None and result.ok:  # an entry that does not verify its card is run again
            report.results[job.card_id] = result
            report.cached += 1
            if on_done:
                on_done(result)
        else:
            pending.append((job, key))
    # Cards that share a snippet (same content hash) share one run.
    unique: dict[str, SnippetJob] = {}
    for job, key in pending:
        unique.setdefault(key or f"missing:{job.card_id}", job)
    workers = workers or os.cpu_count() or 1
    outcomes: dict[str, SnippetResult] = {}
    # One server per build, started only if something runs; children are forked from it.
    with snippet_server(snippets_dir, unique.values(), environment) as server, \
            ThreadPoolExecutor(max_workers=max(1, min(workers, len(unique) or 1))) as pool:
        one_run = partial(run_snippet, server=server)
        run = partial(run_twice, one_run) if check_determinism else one_run
        futures = {pool.submit(run, job, snippets_dir): key for key, job in unique.items()}
        for future in as_completed(futures):
            key, outcome = futures[future], future.result()
            outcomes[key] = outcome
            # Stored as soon as it succeeds: a build killed later keeps what it finished.
            if outcome.ok and cache is not None and not key.startswith("missing:"):
                cache.put(key, outcome.payload())
    for job, key in pending:
        outcome = outcomes[key or f"missing:{job.card_id}"]
        result = outcome if outcome.job == job else replace(outcome, job=job)
        report.results[job.card_id] = result
        if outcome.job == job:
            report.ran += 1
        else:
            report.cached += 1
        if on_done:
            on_done(result)
    return report


def run_snippet(job: SnippetJob, snippets_dir: Path, server: ForkServer | None = None) -> SnippetResult:
    """Run one snippet in a fresh child process inside a temporary working directory.

    The child is forked from `server` (see eqcards.forkserver), already holding numpy, scipy
    and matplotlib; without one, a server is started for this snippet alone."""
    if not job.snippet_path.is_file():
        return SnippetResult(job, ok=False, error=f"snippet file {job.snippet_path} does not exist")
    started = time.perf_counter()
    if server is None:
        with snippet_server(snippets_dir, [job]) as own:
            return replace(run_snippet(job, snippets_dir, own), duration=time.perf_counter() - started)
    with tempfile.TemporaryDirectory(prefix="eqcards-run-") as workdir, \
            tempfile.TemporaryDirectory(prefix="eqcards-out-") as outdir:
        result_path = Path(outdir) / "result.json"
        ended = server.run(job.snippet_path, Path(workdir), Path(outdir), job.timeout, GRACE_SECONDS)
        duration = time.perf_counter() - started
        if result_path.is_file():
            data = json.loads(result_path.read_text(encoding="utf-8"))
            return verdict(SnippetResult(job, ok=data.get("ok") is True, stdout=data.get("stdout", ""),
                                         checks=data.get("checks", []), figures=data.get("figures", []),
                                         table=data.get("table", []),
                                         duration=duration, error=data.get("error"),
                                         line=data.get("line"), traceback=data.get("traceback", "")))
        hang = result_path.with_suffix(".hang")
        hang_text = hang.read_text(errors="replace") if hang.is_file() else ""
        if "Timeout" in hang_text or ended.killed or duration >= job.timeout:
            return SnippetResult(job, ok=False, duration=duration,
                                 line=_innermost_line(hang_text, job.snippet_path),
                                 error=f"timed out after {job.timeout} s (set `timeout:` in the card "
                                       "if it really needs longer)")
        log = Path(outdir) / "output.log"
        tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
        if ended.exit_code is None:
            return SnippetResult(job, ok=False, duration=duration, error=f"{ended.problem}\n{tail}")
        return SnippetResult(job, ok=False, duration=duration,
                             error=f"the snippet process died (exit code {ended.exit_code}) "
                                   f"without a result\n{tail}")


def verdict(result: SnippetResult) -> SnippetResult:
    """A result verifies its card only if its process succeeded, it recorded at least one check
    and every check it recorded passed (a snippet may have caught a failed check and gone on);
    otherwise it is a failure at the failing check's line."""
    if not result.ok:
        return result
    problem = unverified(result.checks)
    return result if problem is None else replace(result, ok=False, traceback="", **problem)


def snippet_server(snippets_dir: Path, jobs: Iterable[SnippetJob],
                   environment: Mapping[str, str | None] | None = None) -> ForkServer:
    """A (not yet started) fork server for these jobs: the snippet environment, and their imports
    of numpy, scipy and matplotlib loaded up front. The BLAS kernel and thread count are fixed when
    the server imports numpy, so every child forked from it runs under `environment`'s."""
    env = {**os.environ, **SNIPPET_ENV}
    for name, value in (environment or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    return ForkServer(snippets_dir, env, preload_modules(j.snippet_path for j in jobs))


def _innermost_line(dump: str, snippet: Path) -> int | None:
    """faulthandler lists the most recent call first: the first frame in the snippet wins."""
    pattern = re.compile(r'File "(.+?)", line (\d+)')
    for match in pattern.finditer(dump):
        if Path(match.group(1)).resolve() == snippet.resolve():
            return int(match.group(2))
    return None
