"""The build-time check of calculators: the card's JavaScript, run in QuickJS, against the snippet's
formula on the grid the snippet records (a real snippet run through the runner)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, card_markdown, job

from eqcards.calculators.jscheck import check_card, evaluate, instrument
from eqcards.cards.calculator import load_presets
from eqcards.cards.load import parse_card
from eqcards.core.errors import CardError
from eqcards.snippets.runner import run_snippet

SNIPPET = '''from cardcheck import check_true
import cardcalc

def bubble(p, m):
    return (p - 1) / (m + p - 1)

def capped(p, m):
    return min(p, m) if p > 2 else 0.0

check_true("an empty pipeline has no bubble", bubble(1, 8) == 0, "0")
cardcalc.table(lambda p, m: {"f": bubble(p, m), "c": capped(p, m)}, cardcalc.grid(p=GRID_P, m=(1, 4, 32)))
'''


def calculator(f: str = "(p - 1) / (m + p - 1)", c: str = "p > 2 ? Math.min(p, m) : 0", presets=None) -> dict:
    block = {"inputs": [{"name": n, "symbol": n, "meaning": n, "unit": "", "default": 4, "min": 1, "max": 100,
                         "step": 1} for n in ("p", "m")],
             "outputs": [{"name": "f", "symbol": "f", "meaning": "bubble", "unit": "fraction", "expr": f},
                         {"name": "c", "symbol": "c", "meaning": "capped", "unit": "count", "expr": c}]}
    if presets:
        block["presets"] = presets
    return block


@pytest.fixture
def run(snippets: Path, tmp_path: Path):
    shutil.copy(ROOT / "snippets" / "lib" / "cardcalc.py", snippets / "lib" / "cardcalc.py")
    cards = tmp_path / "cards"
    cards.mkdir()

    def check(block: dict, grid_p: str = "(1, 2, 3, 8)", presets: Path | None = None) -> list[CardError]:
        path = cards / "toy-entropy.md"
        path.write_text(card_markdown(calculator=block), encoding="utf-8")
        card = parse_card(path)
        result = run_snippet(job(snippets, "toy-entropy", SNIPPET.replace("GRID_P", grid_p)), snippets)
        assert result.ok, result.error
        chosen = load_presets(presets) if presets else {}
        return check_card(card, result, chosen, presets or tmp_path / "presets.yml")

    return check


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_a_right_calculator_passes(run) -> None:
    assert run(calculator()) == []


def test_a_wrong_expression_fails_naming_the_file_and_its_line(run, tmp_path: Path) -> None:
    errors = run(calculator(f="(p - 1) / (m + p)"))
    assert len(errors) == 1
    path = tmp_path / "cards" / "toy-entropy.md"
    assert errors[0].path == path
    assert errors[0].line == line_of(path, "(p - 1) / (m + p)")
    assert "calculator output f" in errors[0].message and "snippet's formula gives" in errors[0].message


def test_a_wrong_branch_fails(run) -> None:
    errors = run(calculator(c="p > 2 ? Math.max(p, m) : 0"))
    assert [e.message.split(" =")[0] for e in errors] == ["calculator output c"]


def test_a_branch_the_grid_never_takes_fails(run) -> None:
    # With p > 2 on every row, the false side of the condition is never compared with the snippet.
    errors = run(calculator(), grid_p="(3, 8)")
    assert len(errors) == 1 and "the condition p > 2" in errors[0].message and "false" in errors[0].message


def test_an_input_that_never_varies_fails(run) -> None:
    errors = run(calculator(), grid_p="(3,)")
    assert any("input p takes one value" in e.message for e in errors)


def test_a_published_figure_is_recomputed(run, tmp_path: Path) -> None:
    presets = tmp_path / "presets.yml"
    text = ('- id: toy\n  title: Toy\n  source: {title: T, url: "https://example.org", locator: Fig. 1}\n'
            "  values: {p: 4, m: 12}\n  published:\n"
            "    - {card: toy-entropy, output: f, value: 0.2, digits: 2, where: Fig. 1}\n")
    presets.write_text(text, encoding="utf-8")
    assert run(calculator(presets=["toy"]), presets=presets) == []  # 3 / 15 = 0.20
    presets.write_text(text.replace("value: 0.2,", "value: 0.25,"), encoding="utf-8")
    errors = run(calculator(presets=["toy"]), presets=presets)
    assert len(errors) == 1 and errors[0].path == presets and errors[0].line == 6
    assert "prints 0.25" in errors[0].message


def test_an_expression_naming_something_else_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=calculator(f="fetch(p)")), encoding="utf-8")
    with pytest.raises(CardError) as caught:
        parse_card(path)
    assert caught.value.line == line_of(path, "fetch(p)")
    assert "'fetch' is not an input" in caught.value.message
    # The digits that end a name are part of it: m1 is not the input m.
    path.write_text(card_markdown(calculator=calculator(f="m1 + p")), encoding="utf-8")
    with pytest.raises(CardError, match="'m1' is not an input"):
        parse_card(path)
    path.write_text(card_markdown(calculator=calculator(f="p = 3")), encoding="utf-8")
    with pytest.raises(CardError, match="assigns"):
        parse_card(path)


def test_instrumenting_keeps_the_value_and_marks_each_branch_point() -> None:
    text, sites = instrument("a > 1 ? Math.min(a, (b ? 2 : 3)) : c", 0)
    assert [s[1] for s in sites] == ["the condition a > 1", "Math.min(...)", "the condition b"]
    assert text == '__br(0, a > 1 )? __pick(1, "min", a, (__br(2, b )? 2 : 3)) : c'


def test_comb_is_defined_in_the_checked_function_and_gives_binomial_coefficients(tmp_path: Path) -> None:
    """comb() is a helper the function body defines, so the page and QuickJS run the same loop; it
    gives C(m, p) to within the rounding of its running product, and 0 outside 0 <= p <= m."""
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=calculator(f="comb(m, p)")), encoding="utf-8")
    calc = parse_card(path).calculator
    assert calc is not None and "function comb(" in calc.function_body()
    rows = [{"p": p, "m": m} for m in (0, 1, 5, 30, 60, 200) for p in (-1, 0, 1, 2, 7, 30, 61)]
    for row, got in zip(rows, evaluate(calc, rows), strict=True):
        want = math.comb(row["m"], row["p"]) if 0 <= row["p"] <= row["m"] else 0
        # One rounding per factor of the product: p ulps at most, far inside 1e-12 for p <= 61.
        assert got["f"] == pytest.approx(want, rel=1e-12, abs=0), row
    path.write_text(card_markdown(calculator=calculator(c="0")), encoding="utf-8")
    calc = parse_card(path).calculator
    assert calc is not None and "comb" not in calc.function_body()


def test_roundeven_rounds_halves_to_the_even_integer_as_numpy_does(tmp_path: Path) -> None:
    """Math.round sends halves up (-2.5 to -2, 2.5 to 3); quantization codes follow NumPy's round,
    which sends them to the even neighbour. The helper must agree with np.round everywhere,
    halves of both signs included."""
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=calculator(f="roundeven(m + p)")), encoding="utf-8")
    calc = parse_card(path).calculator
    assert calc is not None and "function roundeven(" in calc.function_body()
    values = [-3.5, -2.5, -1.5, -0.5, -0.49999, 0.0, 0.5, 1.5, 2.5, 2.5000001, 3.5, 126.5, 127.49, 1e15 + 0.5]
    rows = [{"m": v, "p": 0} for v in values]
    got = [out["f"] for out in evaluate(calc, rows)]
    assert got == [float(np.round(v)) for v in values]


def test_softplus_is_log1p_exp_without_overflow(tmp_path: Path) -> None:
    """A logistic loss is softplus(-m); written as log(1 + exp(x)) it overflows to Infinity past
    x = 709 and loses every digit below x = -37. The helper matches np.logaddexp(0, x) across both."""
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=calculator(f="softplus(m + p)")), encoding="utf-8")
    calc = parse_card(path).calculator
    assert calc is not None and "function softplus(" in calc.function_body()
    values = [-1000.0, -40.0, -1.0, 0.0, 1e-9, 1.0, 40.0, 800.0]
    got = [out["f"] for out in evaluate(calc, [{"m": v, "p": 0} for v in values])]
    # A few roundings in each route: relative 1e-15, plus the tiny values' own scale.
    assert got == pytest.approx([float(np.logaddexp(0.0, v)) for v in values], rel=1e-15, abs=0)


def test_sigmoid_is_the_logistic_function_on_both_sides_without_overflow(tmp_path: Path) -> None:
    """The helper never exponentiates a positive number, so neither side overflows; it agrees with
    scipy.special.expit from -700 (where the result is near the smallest normal double) to 800."""
    from scipy.special import expit

    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=calculator(f="sigmoid(m + p)")), encoding="utf-8")
    calc = parse_card(path).calculator
    assert calc is not None and "function sigmoid(" in calc.function_body()
    values = [-700.0, -40.0, -1.0, 0.0, 1e-9, 1.0, 40.0, 800.0]
    got = [out["f"] for out in evaluate(calc, [{"m": v, "p": 0} for v in values])]
    assert got == pytest.approx([float(expit(v)) for v in values], rel=1e-15, abs=0)
