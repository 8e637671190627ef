"""Run every card's snippet under other BLAS kernels and thread counts: a check must hold on any machine.

A reader's machine picks its own BLAS kernel (OpenBLAS chooses one per CPU; a Mac uses Accelerate)
and numpy its own SIMD loops, and each rounds differently. A tolerance that holds for one of them
only is a bug in the card, so the test suite runs every snippet under each configuration below;
the build itself runs them under whatever the machine sets. Results are cached per configuration
(successes only, keyed by content as the build's cache is, in a folder of that configuration's own),
so the build's cache can never stand in for a run under another kernel.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..cards.load import load_cards, load_parts
from ..cards.seeds import read_index
from ..core.config import Settings
from ..pages.examples import job as example_job
from ..pages.examples import load_examples
from ..pages.numbers import load_numbers
from ..snippets.cache import ResultCache
from ..snippets.determinism import ADVICE, first_difference
from ..snippets.jobs import SnippetJob
from ..snippets.runner import RunReport, run_snippets
from ..snippets.worker import FIGURE_DIGESTS, SKIP_FIGURES

# numpy's runtime-dispatched SIMD targets above its x86-64-v2 baseline: disabling them runs the
# loops (exp, log, sum ...) of a CPU without AVX2 or AVX-512.
NUMPY_ABOVE_BASELINE = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"


@dataclass(frozen=True)
class Kernel:
    """One machine configuration: the variables set (a value) or removed (None) for the snippets."""

    name: str
    description: str
    env: tuple[tuple[str, str | None], ...]
    needs: str = ""  # the x86 CPU flag (as /proc/cpuinfo names it; "pni" is SSE3) the kernel needs
    family: str = ""  # the configurations that differ only in their thread count share one

    @property
    def threads(self) -> int:
        return int(self.environment["OPENBLAS_NUM_THREADS"] or 1)

    @property
    def environment(self) -> dict[str, str | None]:
        return dict(self.env)

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.env).encode()).hexdigest()[:12]


# The variables that say how a kernel was chosen or what a run skips, not which kernel runs.
NOT_THE_KERNEL = ("OPENBLAS_CORETYPE", SKIP_FIGURES)


def _kernel(family: str, description: str, coretype: str | None, threads: int, *, old_numpy: bool = False,
            needs: str = "", figures: str = "1") -> Kernel:
    env: list[tuple[str, str | None]] = [
        ("OPENBLAS_CORETYPE", coretype),
        # A forced L2 size belongs to the forced kernel: "the library's own choice" drops both.
        ("OPENBLAS_L2_SIZE", None),
        ("OPENBLAS_NUM_THREADS", str(threads)),
        ("OMP_NUM_THREADS", str(threads)),
        ("MKL_NUM_THREADS", str(threads)),
        ("NPY_DISABLE_CPU_FEATURES", NUMPY_ABOVE_BASELINE if old_numpy else None),
        (SKIP_FIGURES, figures),
    ]
    return Kernel(f"{family}-{threads}t", description, tuple(env), needs, family)


# Every OpenBLAS core type the issue of record names, each at one thread and at two (a threaded
# BLAS splits long reductions, so their sums round differently). Prescott goes with numpy's
# baseline loops: together, a CPU of 2005. OpenBLAS builds without their oldest kernels run
# Prescott's request on their generic SSE kernels (threadpoolctl then reports "Katmai").
# No run renders figures (no BLAS work, ~40% of a run; the build renders them): Prescott's runs, and
# the library's own choice where it runs, record a hash of each figure's plotted data instead, so a
# figure that changes by itself between the one- and two-thread runs is still caught; SkylakeX's
# runs record nothing of their figures.
KERNELS: tuple[Kernel, ...] = tuple(
    _kernel(key, f"{text}, {threads} thread{'s' if threads > 1 else ''}", coretype, threads,
            old_numpy=coretype == "Prescott", needs=needs, figures=figures)
    for key, text, coretype, needs, figures in (
        ("prescott", "OpenBLAS Prescott (SSE3) kernels and numpy without AVX2/AVX-512 loops", "Prescott",
         "pni", FIGURE_DIGESTS),
        ("skylakex", "OpenBLAS SkylakeX (AVX-512) kernels", "SkylakeX", "avx512f", "1"),
        ("auto", "OpenBLAS's own choice for this CPU", None, "", FIGURE_DIGESTS),
    )
    for threads in (1, 2)
)
FAMILIES: dict[str, tuple[Kernel, ...]] = {
    family: tuple(k for k in KERNELS if k.family == family)
    for family in dict.fromkeys(k.family for k in KERNELS)}


def unsupported(kernel: Kernel) -> str | None:
    """Why this machine cannot run the kernel, or None when it can. A named OpenBLAS kernel exists
    on x86-64 only (elsewhere, as on a Mac's Accelerate, only the library's own choice runs), and
    forcing AVX-512 code on a CPU without it is an illegal instruction, not a rounding difference."""
    if not kernel.needs:
        return None
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"{kernel.name} needs an x86-64 CPU with {kernel.needs}; this is {platform.machine()}"
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"{kernel.name}: cannot read /proc/cpuinfo to see whether the CPU has {kernel.needs}"
    if f" {kernel.needs}" in flags:
        return None
    return f"{kernel.name} needs {kernel.needs}, which this CPU lacks"


def blas_core(kernel: Kernel) -> str | None:
    """The kernel OpenBLAS really runs under this configuration (threadpoolctl's name for it), read
    from a fresh Python with the configuration's environment; None where numpy's BLAS is another."""
    env = {k: v for k, v in os.environ.items() if k not in kernel.environment}
    env.update({k: v for k, v in kernel.environment.items() if v is not None})
    probe = ("import numpy, threadpoolctl; print(next((i.get('architecture') for i in "
             "threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas'), ''))")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True,
                         timeout=120).stdout.strip()
    return out or None


def same_runs_as(kernel: Kernel) -> Kernel | None:
    """The named configuration that runs exactly what `kernel` runs, if any: where OpenBLAS's own
    choice for this CPU is one of the named kernels (SkylakeX on an AVX-512 machine), the two
    configurations differ only in how the kernel was chosen, and one run stands for both. (Whether
    figures are rendered does not matter here: the Prescott runs render them.)"""
    if kernel.environment["OPENBLAS_CORETYPE"] is not None:
        return None
    core = blas_core(kernel)
    for other in KERNELS:
        env = other.environment
        if (env["OPENBLAS_CORETYPE"] == core and other.environment.keys() == kernel.environment.keys()
                and all(env[k] == v for k, v in kernel.environment.items() if k not in NOT_THE_KERNEL)):
            return other
    return None


def portable_jobs(settings: Settings, stage: Path) -> list[SnippetJob]:
    """Every card's snippet, every numbers snippet and every worked example (each written, runnable,
    to `stage`, a folder of these runs' own, so that a build running at the same time never reads a
    half-written copy)."""
    parts = load_parts(settings.topics_file)
    topics = [t for part in parts for t in part.topics]
    cards = load_cards(settings.cards_dir, topics, read_index(settings.seed_index), settings.snippets_dir)
    jobs = [SnippetJob(c.id, c.path, settings.snippets_dir / c.snippet, c.timeout) for c in cards]
    if settings.numbers_file.is_file():
        numbers = load_numbers(settings.numbers_file, read_index(settings.seed_index), {c.id for c in cards},
                               settings.snippets_dir)
        jobs += list({n.job_id: SnippetJob(n.job_id, settings.numbers_file, settings.snippets_dir / n.snippet)
                      for n in numbers if n.snippet}.values())
    jobs += [example_job(e, stage) for e in load_examples(settings.examples_dir, {c.id for c in cards})]
    return jobs


def cache_for(kernel: Kernel, cache_root: Path) -> ResultCache:
    """The kernel's own result cache: a folder per configuration, never the build's."""
    return ResultCache(cache_root / f"{kernel.name}-{kernel.fingerprint}")


def run_under(kernel: Kernel, jobs: list[SnippetJob], settings: Settings, cache_root: Path | None,
              workers: int | None = None) -> RunReport:
    cache = cache_for(kernel, cache_root) if cache_root is not None else None
    # A two-thread BLAS in every one of N parallel snippets would ask for 2N cores: run fewer at once.
    workers = workers or max(1, settings.workers // kernel.threads)
    return run_snippets(jobs, settings.snippets_dir, cache, workers, environment=kernel.environment)


def failures(kernel: Kernel, report: RunReport, root: Path) -> list[str]:
    """One error per failed snippet, naming the kernel, the card file and the snippet's line."""
    return [f"under {kernel.name} ({kernel.description}): {result.describe_failure(root)}"
            for result in sorted(report.failures, key=lambda r: r.job.card_id)]


def unrepeatable(kernel: Kernel, first: RunReport, second: RunReport, settings: Settings,
                 root: Path) -> list[str]:
    """Snippets whose result changes by itself from one run to the next, one error each.

    A card must show the same output on every build. `first` and `second` are two runs of the same
    snippets (a family's one-thread and two-thread runs); where a snippet passed both and they differ,
    a third run under `kernel`, never cached, tells the two causes apart: a thread count's rounding
    repeats the run under the same configuration, a result that changes by itself does not."""
    differing = [a.job for a in first.results.values()
                 if a.ok and (b := second.results.get(a.job.card_id)) is not None and b.ok
                 and first_difference(a, b) is not None]
    if not differing:
        return []
    again = run_under(kernel, differing, settings, None)
    problems = []
    for job in differing:
        before, after = first.results[job.card_id], again.results[job.card_id]
        difference = (first_difference(before, after) if after.ok else
                      f"it passed once and then failed: {after.error}")
        if difference is not None:
            where = job.card_path.relative_to(root) if job.card_path.is_relative_to(root) else job.card_path
            problems.append(f"under {kernel.name}: {where}: snippet {job.snippet_path.name} is "
                            f"non-deterministic: {difference}; {ADVICE}")
    return problems
