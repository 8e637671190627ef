"""Shared checks for card snippets: each check prints one uniform line and raises if it fails."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

# Every check appends here: what it compared, whether it passed and the line that called it. The
# build reads it: a snippet that verifies nothing, or records a failed check (even one it caught),
# fails its card at that line.
RESULTS: list[dict[str, Any]] = []


class CheckFailed(AssertionError):
    """A card's formula disagreed with its independent reference."""


def _caller_line() -> int | None:
    """The line that called the check: in the snippet being run (sys.argv[0], as the build sets
    it) if it is on the stack, else the first caller outside this module."""
    here = os.path.normcase(os.path.abspath(__file__))
    snippet = os.path.normcase(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else None
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        name = os.path.normcase(os.path.abspath(frame.f_code.co_filename))
        if name != here:
            if first is None:
                first = frame.f_lineno
            if name == snippet or snippet is None:
                return frame.f_lineno
        frame = frame.f_back
    return first


def _record(what: str, passed: bool, detail: str) -> None:
    RESULTS.append({"what": what, "passed": passed, "detail": detail, "line": _caller_line()})
    print(f"{'PASS' if passed else 'FAIL'}  {what}: {detail}")
    if not passed:
        raise CheckFailed(f"{what}: {detail}")


def check_close(what: str, got: Any, expected: Any, *, rtol: float = 1e-9, atol: float = 0.0) -> float:
    """Compare a formula's value with an independent reference, elementwise.

    Passes when |got - expected| <= atol + rtol * |expected| everywhere (numpy.isclose).
    Returns the largest absolute error.
    """
    got_a = np.asarray(got, dtype=float)
    exp_a = np.asarray(expected, dtype=float)
    if got_a.shape != exp_a.shape:
        _record(what, False, f"shape {got_a.shape} != reference shape {exp_a.shape}")
    err = float(np.max(np.abs(got_a - exp_a))) if got_a.size else 0.0
    ok = bool(np.all(np.isclose(got_a, exp_a, rtol=rtol, atol=atol)))
    tol = f"rtol {rtol:.0e}" + (f", atol {atol:.0e}" if atol else "")
    _record(what, ok, f"max abs error {err:.2e} ({tol})")
    return err


def check_true(what: str, condition: bool, detail: str = "") -> None:
    """Assert a property that is not a numeric comparison (an inequality, an argmax, a sign)."""
    _record(what, bool(condition), detail or ("holds" if condition else "does not hold"))
