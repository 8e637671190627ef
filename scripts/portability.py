"""Run every card's snippet under each BLAS kernel and thread count of eqcards.portability (make portability).

Prints one line per kernel (ran, cached, failed, seconds) and every failure with its kernel, card file
and snippet line, and every snippet whose result changed by itself between a kernel's one- and
two-thread runs; exits non-zero if there is any. Card ids limit the run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from eqcards.core.config import Settings
from eqcards.portability.kernels import (
    KERNELS,
    failures,
    portable_jobs,
    run_under,
    same_runs_as,
    unrepeatable,
    unsupported,
)

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ids", nargs="*", help="card ids (default: every card and numbers snippet)")
    parser.add_argument("--kernel", action="append", choices=[k.name for k in KERNELS],
                        help="only this configuration (repeatable)")
    parser.add_argument("--no-cache", action="store_true", help="run everything, caching nothing")
    args = parser.parse_args()
    settings = Settings.for_project(ROOT)
    cache_root = None if args.no_cache else settings.cache_dir.parent / "portability"
    jobs = portable_jobs(settings, settings.cache_dir.parent / "portability" / "examples")
    if args.ids:
        unknown = set(args.ids) - {j.card_id for j in jobs}
        if unknown:
            sys.exit(f"no such card: {', '.join(sorted(unknown))}")
        jobs = [j for j in jobs if j.card_id in args.ids]
    problems: list[str] = []
    reports = {}
    for kernel in KERNELS:
        if args.kernel and kernel.name not in args.kernel:
            continue
        if reason := unsupported(kernel):
            print(f"{kernel.name}: not run: {reason}")
            continue
        if twin := same_runs_as(kernel):
            print(f"{kernel.name}: OpenBLAS's own choice here is {twin.name}'s kernel, "
                  "whose run stands for it")
            continue
        started = time.perf_counter()
        report = run_under(kernel, jobs, settings, cache_root)
        seconds = time.perf_counter() - started
        print(f"{kernel.name}: {report.summary()} in {seconds:.1f} s ({kernel.description})", flush=True)
        problems += failures(kernel, report, ROOT)
        if (first := reports.get(kernel.family)) is not None:  # the family's other thread count ran
            problems += unrepeatable(first[0], first[1], report, settings, ROOT)
        reports[kernel.family] = (kernel, report)
    if problems:
        sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()
