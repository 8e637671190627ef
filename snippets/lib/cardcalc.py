"""The table a card's calculator is checked against: the snippet's own formula on a grid of inputs.

A snippet whose card has a `calculator:` block calls `table(formula, rows)` once, where `formula`
takes the calculator's inputs by name and returns the value of each output (a number for a
single output, else a dict by output name). The build evaluates the card's JavaScript expressions
on the same rows and fails the card where they differ (eqcards.calculators).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

# The rows the build reads after the snippet has run (eqcards/snippets/worker.py).
TABLE: list[dict[str, dict[str, float]]] = []
MAX_ROWS = 20_000  # the grid is a check, not a sweep: this keeps the result small to cache


def grid(**axes: Iterable[float]) -> list[dict[str, float]]:
    """Every combination of the values given for each input (a Cartesian product)."""
    names = list(axes)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*axes.values())]


def table(formula: Callable[..., Any], rows: Iterable[Mapping[str, float]]) -> int:
    """Record `formula` at every row; returns the number of rows. Each value must be a finite
    real number: a calculator shows numbers."""
    count = 0
    for row in rows:
        inputs = {name: _real(value, name) for name, value in row.items()}
        value = formula(**row)
        outputs = value if isinstance(value, Mapping) else {"": value}
        TABLE.append({"in": inputs, "out": {name: _real(v, name or "output") for name, v in outputs.items()}})
        count += 1
        if len(TABLE) > MAX_ROWS:
            raise ValueError(f"the calculator table has more than {MAX_ROWS} rows: use fewer grid values")
    print(f"calculator table: {count} rows recorded for the build's check of the page's expressions")
    return count


def _real(value: Any, name: str) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} = {value!r} is not a finite number: "
                         "keep the grid inside the formula's domain")
    return number
