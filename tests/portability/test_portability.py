"""Every card's snippet passes under each BLAS kernel and thread count of eqcards.portability.

A check whose tolerance holds for one CPU only fails here, naming the kernel, before it fails a
reader's build on another machine. Each configuration runs every snippet from its own cache, never
the build's, so a snippet the build served from its cache still runs under every kernel. A kernel's
one-thread and two-thread runs are also the suite's two runs of every snippet: a result that changes
by itself between runs fails here (the test build runs each snippet once).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GOOD_SNIPPET, ROOT, job

from eqcards.core.config import Settings
from eqcards.portability.kernels import (
    FAMILIES,
    KERNELS,
    NOT_THE_KERNEL,
    blas_core,
    cache_for,
    failures,
    portable_jobs,
    run_under,
    same_runs_as,
    unrepeatable,
    unsupported,
)
from eqcards.snippets.jobs import SnippetJob
from eqcards.snippets.runner import RunReport, run_snippets

pytestmark = pytest.mark.portability

# What each configuration must really give a snippet, read inside the snippet itself.
PROBE = """import json
import numpy
import threadpoolctl
from numpy._core._multiarray_umath import __cpu_features__
from cardcheck import check_true
blas = [i for i in threadpoolctl.threadpool_info() if i["internal_api"] == "openblas"] or [{}]
check_true("the probe ran", True)
print(json.dumps({"core": blas[0].get("architecture"), "threads": blas[0].get("num_threads"),
                  "avx2_loops": __cpu_features__.get("X86_V3")}))
"""


def probe(kernel, snippets: Path) -> dict:
    report = run_snippets([job(snippets, "probe", PROBE)], snippets, None, workers=1,
                          environment=kernel.environment)
    result = report.results["probe"]
    assert result.ok, result.describe_failure()
    return json.loads(result.stdout.splitlines()[-1])


# Each family's runs go in this many parts, each a test of its own, so that pytest-xdist can share
# them out between the workers (a family whole is minutes on one worker while the other waits).
SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda i: f"part-{i + 1}-of-{SHARDS}")
@pytest.mark.parametrize("family", FAMILIES)
def test_every_snippet_passes_and_repeats_itself_under(family: str, shard: int) -> None:
    """Every card, numbers and worked-example snippet (a quarter of them in each part), under the
    kernel at one thread and at two: each run passes, and where the two differ a third run shows
    whether the thread count or the snippet itself changed the result."""
    kernels = FAMILIES[family]
    if reason := unsupported(kernels[0]):
        pytest.skip(reason)
    if twin := same_runs_as(kernels[0]):
        # Not a gap: the other configuration's test runs every snippet under this very kernel.
        pytest.skip(f"OpenBLAS's own choice on this CPU is {blas_core(kernels[0])}: "
                    f"{twin.family} runs the same")
    settings = Settings.for_project(ROOT)
    cache_root = settings.cache_dir.parent / "portability"
    # A stage of this part's own: parts running at once never write the same example file.
    every = portable_jobs(settings, cache_root / "examples" / f"{family}-{shard}")
    assert len(every) > 300 and sum(j.card_id.startswith("example:") for j in every) >= 5
    jobs = in_shard(every, shard)
    problems, reports = [], []
    for kernel in kernels:
        report = run_under(kernel, jobs, settings, cache_root)
        assert report.results.keys() == {j.card_id for j in jobs}
        problems += failures(kernel, report, ROOT)
        reports.append(report)
    problems += unrepeatable(kernels[0], *reports, settings, ROOT)
    assert not problems, "\n".join(problems)


def in_shard(jobs: list[SnippetJob], shard: int) -> list[SnippetJob]:
    """Every SHARDS-th job by id, from the shard-th on: the parts share the costly snippets out."""
    return sorted(jobs, key=lambda j: j.card_id)[shard::SHARDS]


def test_the_parts_run_every_snippet_once() -> None:
    settings = Settings.for_project(ROOT)
    every = portable_jobs(settings, settings.cache_dir.parent / "portability" / "examples" / "all")
    parts = [[j.card_id for j in in_shard(every, i)] for i in range(SHARDS)]
    assert sorted(i for part in parts for i in part) == sorted(j.card_id for j in every)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_a_result_that_changes_by_itself_fails_and_a_thread_counts_rounding_does_not(snippets: Path) -> None:
    """The probe prints its BLAS thread count, so its one- and two-thread runs differ but each repeats;
    an unseeded generator's output differs on every run."""
    settings = Settings.for_project(ROOT)
    one, two = FAMILIES["prescott"]
    unseeded = job(snippets, "unseeded", "import numpy as np\nfrom cardcheck import check_true\n"
                   "check_true('ran', True)\nprint(np.random.default_rng().random())\n")
    jobs = [job(snippets, "probe", PROBE), unseeded]
    first, second = (run_under(k, jobs, settings, None, workers=1) for k in (one, two))
    assert not first.failures and not second.failures
    assert first.results["probe"].stdout != second.results["probe"].stdout
    (problem,) = unrepeatable(one, first, second, settings, ROOT)
    assert problem.startswith("under prescott-1t: ")
    assert "unseeded.py is non-deterministic: output line 2" in problem
    assert "np.random.default_rng(0)" in problem
    same = RunReport(dict(first.results))
    assert unrepeatable(one, first, same, settings, ROOT) == []


# A figure whose data is random on every run, its printed output and checks the same each time.
UNSEEDED_FIGURE = GOOD_SNIPPET + "ax.plot(np.random.default_rng().random(5))\n"
# The same figure on every run, but drawn from sums a thread count may round differently: a float32
# hash of the data ignores last-bit differences.
ROUNDED_FIGURE = GOOD_SNIPPET + "ax.plot([0.1 + 0.2, 1 / 3])\n"


def test_no_run_renders_figures_but_prescott_hashes_what_they_plot(snippets: Path) -> None:
    """Rendering SVG is no BLAS work and the build does it; the Prescott runs record each figure's
    plotted data as a hash, the SkylakeX runs nothing of it."""
    settings = Settings.for_project(ROOT)
    drawn = job(snippets, "drawn", GOOD_SNIPPET)
    figures = {k.name: run_under(k, [drawn], settings, None, workers=1).results["drawn"].figures
               for k in (FAMILIES["prescott"][0], FAMILIES["skylakex"][0])}
    assert len(figures["prescott-1t"]) == 1 and figures["prescott-1t"][0].startswith("figure data sha256:")
    assert figures["skylakex-1t"] == []
    assert all(k.environment["EQCARDS_SKIP_FIGURES"] == "digest" for k in FAMILIES["prescott"])


def test_a_figure_that_changes_by_itself_fails_and_a_steady_one_does_not(snippets: Path) -> None:
    settings = Settings.for_project(ROOT)
    one, two = FAMILIES["prescott"]
    jobs = [job(snippets, "unseeded-figure", UNSEEDED_FIGURE), job(snippets, "steady", ROUNDED_FIGURE)]
    first, second = (run_under(k, jobs, settings, None, workers=1) for k in (one, two))
    assert not first.failures and not second.failures
    assert first.results["unseeded-figure"].stdout == second.results["unseeded-figure"].stdout
    (problem,) = unrepeatable(one, first, second, settings, ROOT)
    assert "unseeded-figure.py is non-deterministic: figure 1 differs (the data it plots" in problem
    # The hash reads the data, not only the kind of artist: another line, another hash.
    again = job(snippets, "steady", ROUNDED_FIGURE.replace("1 / 3", "1 / 4"))
    other = run_under(one, [again], settings, None, workers=1).results["steady"].figures
    assert other != first.results["steady"].figures


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_each_configuration_is_what_the_snippet_really_runs_under(kernel, snippets: Path) -> None:
    if reason := unsupported(kernel):
        pytest.skip(reason)
    seen = probe(kernel, snippets)
    env = kernel.environment
    if env["OPENBLAS_CORETYPE"] is None and seen["core"] is None:
        pytest.skip("numpy's BLAS here is not OpenBLAS (a Mac's Accelerate): its own choice is all there is")
    assert seen["threads"] == int(env["OPENBLAS_NUM_THREADS"])
    if env["OPENBLAS_CORETYPE"] == "SkylakeX":
        assert seen["core"] == "SkylakeX"
    elif env["OPENBLAS_CORETYPE"] == "Prescott":
        # OpenBLAS builds without their oldest kernels serve Prescott with the generic SSE ones.
        assert seen["core"] in ("Prescott", "Katmai")
        assert seen["avx2_loops"] is False
    else:
        auto = next(k for k in KERNELS if k.environment["OPENBLAS_CORETYPE"] is None)
        assert kernel.environment == {**auto.environment, "OPENBLAS_NUM_THREADS": env["OPENBLAS_NUM_THREADS"],
                                      "OMP_NUM_THREADS": env["OMP_NUM_THREADS"],
                                      "MKL_NUM_THREADS": env["MKL_NUM_THREADS"]}
        assert seen["core"] not in ("Prescott", "Katmai")


def test_a_snippet_that_fails_under_one_kernel_fails_naming_it(snippets: Path, tmp_path: Path) -> None:
    """A tolerance that holds on one kernel only, staged: the snippet passes unless it runs on SkylakeX."""
    only_elsewhere = 'check_true("not on SkylakeX", blas[0]["architecture"] != "SkylakeX")\n'
    fragile = job(snippets, "fragile", PROBE.replace("print(json.dumps", only_elsewhere + "print(json.dumps"))
    settings = Settings.for_project(ROOT)
    by_name = {k.name: k for k in KERNELS}
    if unsupported(by_name["skylakex-1t"]):
        pytest.skip(unsupported(by_name["skylakex-1t"]))
    passing = run_under(by_name["prescott-1t"], [fragile], settings, tmp_path, workers=1)
    assert not passing.failures
    failing = run_under(by_name["skylakex-1t"], [fragile], settings, tmp_path, workers=1)
    (problem,) = failures(by_name["skylakex-1t"], failing, ROOT)
    assert problem.startswith("under skylakex-1t (OpenBLAS SkylakeX (AVX-512) kernels, 1 thread): ")
    assert "fragile.py:8 failed" in problem and "not on SkylakeX" in problem


def test_no_configuration_shares_a_cache_with_another_or_with_the_build(tmp_path: Path) -> None:
    folders = {cache_for(k, tmp_path).directory for k in KERNELS}
    assert len(folders) == len(KERNELS)
    build_cache = Settings.for_project(ROOT).cache_dir
    assert all(not f.is_relative_to(build_cache) and f != build_cache for f in folders)


def test_the_configurations_cover_both_named_kernels_the_default_and_two_thread_counts() -> None:
    cores = {k.environment["OPENBLAS_CORETYPE"] for k in KERNELS}
    threads = {k.environment["OPENBLAS_NUM_THREADS"] for k in KERNELS}
    assert cores == {"Prescott", "SkylakeX", None} and threads == {"1", "2"}
    assert len(KERNELS) == len(cores) * len(threads)
    assert all({k.threads for k in family} == {1, 2} for family in FAMILIES.values())


def test_a_configuration_stands_for_another_only_when_it_runs_the_same_kernel() -> None:
    for kernel in KERNELS:
        twin = same_runs_as(kernel)
        if twin is None:
            continue
        assert kernel.environment["OPENBLAS_CORETYPE"] is None
        assert blas_core(kernel) == blas_core(twin) == twin.environment["OPENBLAS_CORETYPE"]
        assert {k: v for k, v in kernel.environment.items() if k not in NOT_THE_KERNEL} == \
            {k: v for k, v in twin.environment.items() if k not in NOT_THE_KERNEL}
    named = [k for k in KERNELS if k.environment["OPENBLAS_CORETYPE"] is not None]
    assert all(same_runs_as(k) is None for k in named)
