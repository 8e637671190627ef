"""Mutation testing: each operator, the formula regions and equivalent markers, the ledger and its hash,
the score on the card and in cards.json, and the tool end to end through the real forked runner."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest
from conftest import ROOT, Project

from eqcards.cards.load import parse_card
from eqcards.mutants import mutation_run
from eqcards.mutants.mutation import FORMULA_END, FORMULA_START, MIN_MUTANTS, MutationError, plan
from eqcards.mutants.mutation_ledger import (
    LEDGER_NAME,
    TOOL_VERSION,
    MeasuredScore,
    content_hash,
    entry,
    measured,
    read_ledger,
    update_ledger,
)
from eqcards.mutants.mutation_run import Target, killed_by, measure, mutate, report
from eqcards.pages.export import card_records
from eqcards.pages.render import render_mutation_score
from eqcards.snippets.jobs import SnippetJob, SnippetResult

SNIPPETS = ROOT / "snippets"
FIXTURES = ROOT / "tests" / "mutants" / "fixtures"


def region(code: str, before: str = "import numpy as np\n", after: str = "") -> str:
    """`code` inside a formula region, with optional code outside it."""
    return f"{before}{FORMULA_START}\n{textwrap.dedent(code).strip()}\n{FORMULA_END}\n{after}"


def changes(source: str) -> list[str]:
    """Each mutant as `original -> replacement`, in order."""
    return [f"{m.original} -> {m.replacement}" for m in plan(source).mutants]


# --- operators ------------------------------------------------------------------------------

@pytest.mark.parametrize(("code", "expected"), [
    ("y = a + b", ["+ -> -"]),
    ("y = a - b", ["- -> +"]),
    ("y = a * b", ["* -> /"]),
    ("y = a / b", ["/ -> *"]),
    ("y = a // b", ["// -> /"]),
    ("y = a ** b", ["** -> *"]),
    ("y = a % b", ["% -> //"]),
    ("y = a @ b", ["@ -> *"]),
    ("y += b", ["+= -> -="]),
    ("y **= b", ["**= -> *="]),
    ("y = (a  # a comment with * and /\n     - b)", ["- -> +"]),
])
def test_arithmetic_operators_are_swapped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = 3", ["3 -> 4"]),
    ("y = 0", ["0 -> 1"]),
    ("y = 0.0", ["0.0 -> 1.0"]),
    ("y = 2.5", ["2.5 -> 2.525"]),
    ("y = 1e-6", ["1e-6 -> 1.01e-06"]),
    ("y = 100.0", ["100.0 -> 101.0"]),
    ("y = True", []),
    ("y = 'a'", []),
])
def test_numeric_constants_are_perturbed(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = np.log(x)", ["log -> log2"]),
    ("y = np.exp(x)", ["exp -> expm1"]),
    ("y = np.sum(x)", ["sum -> mean"]),
    ("y = np.max(x)", ["max -> min"]),
    ("y = np.argmax(x)", ["argmax -> argmin"]),
    ("y = np.cumsum(x)", ["cumsum -> cumprod"]),
    ("y = np.sqrt(x)", ["sqrt -> cbrt"]),
    ("y = x.mean()", ["mean -> sum"]),
    ("y = np.linalg.norm(x)", []),
    ("y = max(a, b)", ["max -> min"]),
    ("y = abs(a)", ["abs -> "]),
    ("y = np.pi", ["pi -> e"]),
    ("y = rng.normal(x)", []),
])
def test_functions_are_swapped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


def test_math_functions_are_swapped_only_to_names_the_module_has() -> None:
    assert changes(region("y = math.log(x) + math.fabs(x)", before="import math\n")) == \
        ["log -> log2", "+ -> -"]


def test_special_functions_resolve_through_from_imports() -> None:
    source = region("y = special.erf(x)", before="from scipy import special\n")
    assert changes(source) == ["erf -> erfc"]


@pytest.mark.parametrize(("code", "expected"), [
    ("y = x[i]", ["i -> i + 1"]),
    ("y = x[i - 1]", ["i - 1 -> (i - 1) + 1", "- -> +", "1 -> 2"]),
    ("y = x[2]", ["2 -> 3"]),
    ("y = x[:, k]", ["k -> k + 1"]),
    ("y = x[a:b]", ["a -> a + 1", "b -> b + 1"]),
    ("y = x[1:]", ["1 -> 2", "1: -> :-1"]),
    ("y = x[..., None]", []),
    ("y = [t for t in range(n)]", ["n -> n + 1"]),
    ("y = np.arange(n)", ["n -> n + 1"]),
])
def test_indices_and_bounds_are_shifted_by_one(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = a < b", ["< -> >="]),
    ("y = a <= b", ["<= -> >"]),
    ("y = a > b", ["> -> <="]),
    ("y = a >= b", [">= -> <"]),
    ("y = a == b", ["== -> !="]),
    ("y = a != b", ["!= -> =="]),
    ("y = a is None", ["is -> is not"]),
    ("y = a is not None", ["is not -> is"]),
    ("y = a in b", ["in -> not in"]),
    ("y = a not in b", ["not in -> in"]),
    ("y = a < b <= c", ["< -> >=", "<= -> >"]),
])
def test_comparisons_are_negated(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = -x", ["- -> "]),
    ("y = not x", ["not  -> "]),
    ("y = ~x", ["~ -> "]),
    ("y = -1.5", ["- -> ", "1.5 -> 1.515"]),
])
def test_unary_operators_are_dropped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = a & b", ["& -> |"]),
    ("y = a | b", ["| -> &"]),
    ("y = a ^ b", ["^ -> |"]),  # exclusive or read as or: they differ only where both hold
    ("m &= b", ["&= -> |="]),
    ("m |= b", ["|= -> &="]),
    ("m ^= b", ["^= -> |="]),
    ("y = (a > 0) & (b < 1)", ["> -> <=", "0 -> 1", "& -> |", "< -> >=", "1 -> 2"]),
    ("y = a and b", ["and -> or"]),
    ("y = a or b or c", ["or -> and", "or -> and"]),
    ("y = a and (b or c)", ["and -> or", "or -> and"]),
    ("y = ~m", ["~ -> "]),
    ("y = np.logical_not(m)", ["np.logical_not -> "]),
    ("y = np.logical_and(a, b)", ["logical_and -> logical_or"]),
    ("y = np.logical_xor(a, b)", ["logical_xor -> logical_or"]),
    ("y = np.intersect1d(a, b)", ["intersect1d -> union1d"]),
    ("y = a.intersection(b)", ["intersection -> union"]),
    ("y = a.union(b)", ["union -> intersection"]),
    ("y = a.symmetric_difference(b)", ["symmetric_difference -> union"]),
    ("y = a.issubset(b)", ["issubset -> issuperset"]),
])
def test_set_and_boolean_operations_are_swapped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = np.any(m)", ["any -> all"]),
    ("y = np.all(m, axis=0)", ["all -> any", "0 -> -1"]),
    ("y = m.any()", ["any -> all"]),
    ("y = m.all(axis=1)", ["all -> any", "1 -> 0"]),
    ("y = any(t > 0 for t in x)", ["any -> all", "> -> <=", "0 -> 1"]),
    ("y = all(flags)", ["all -> any"]),
])
def test_any_and_all_are_swapped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


def test_set_and_boolean_replacements_are_exact_bytes() -> None:
    source = region("keep = (a  &  b) | ~c and d")
    mutated = {m.replacement: m.apply(source) for m in plan(source).mutants}
    line = "keep = (a  &  b) | ~c and d"
    assert mutated["|"].count(line) == 0 and "keep = (a  |  b) | ~c and d" in mutated["|"]
    assert "keep = (a  &  b) & ~c and d" in mutated["&"]
    assert "keep = (a  &  b) | c and d" in mutated[""]
    assert "keep = (a  &  b) | ~c or d" in mutated["or"]


@pytest.mark.parametrize(("code", "expected"), [
    ("y = x[1:]", ["1 -> 2", "1: -> :-1"]),  # drop the first item -> drop the last
    ("y = x[:-1]", [":-1 -> 1:", "- -> ", "1 -> 2"]),
    ("y = x[:2]", [":2 -> -2:", "2 -> 3"]),  # the first two -> the last two
    ("y = x[-3:]", ["- -> ", "-3: -> :3", "3 -> 4"]),
    ("y = x[:, 1:]", ["1 -> 2", "1: -> :-1"]),
    ("y = x[1:] - x[:-1]", ["1 -> 2", "1: -> :-1", "- -> +", ":-1 -> 1:", "- -> ", "1 -> 2"]),
    ("y = x[1:-1]", ["1 -> 2", "- -> ", "1 -> 2"]),  # both bounds: no other end to take
    ("y = x[0:]", ["0 -> 1"]),  # k = 0 drops nothing at either end
    ("y = x[::-1]", ["- -> ", "1 -> 2"]),  # a step: not mirrored
    ("y = x[k:]", ["k -> k + 1"]),  # a bound that is not a literal: shifted, not mirrored
])
def test_a_slice_with_one_literal_bound_is_mirrored_to_the_other_end(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("y = np.subtract(a, b)", ["a, b -> b, a"]),
    ("y = kl(p, q)", ["p, q -> q, p"]),
    ("y = np.dot(A, x)", ["A, x -> x, A"]),  # symmetric only for two vectors: swapped
    ("y = np.linalg.solve(A, b)", ["A, b -> b, A"]),
    ("y = np.divide(a, b, out=z, where=b > 0)", ["a, b -> b, a", "> -> <=", "0 -> 1"]),
    ("y = f(a,  # first\n      b)", ["a,  # first\n      b -> b,  # first\n      a"]),
    ("y = f((a + b), c)", ["a + b), c -> c), a + b", "+ -> -"]),
])
def test_two_positional_arguments_are_swapped(code: str, expected: list[str]) -> None:
    assert changes(region(code)) == expected


@pytest.mark.parametrize("code", [
    "y = np.maximum(a, b)", "y = np.minimum(a, b)", "y = np.add(a, b)", "y = np.multiply(a, b)",
    "y = np.hypot(a, b)", "y = np.logaddexp(a, b)", "y = max(a, b)", "y = np.vdot(a, b)",
    "y = np.isclose(a, b)", "y = special.betaln(a, b)",
])
def test_a_symmetric_call_is_not_swapped(code: str) -> None:
    assert not [m for m in plan(region(code, before="import numpy as np\nfrom scipy import special\n"))
                .mutants if m.operator == "arguments"]


@pytest.mark.parametrize("code", [
    "y = f(a, a)",  # the same text
    "y = np.power(x, 2)", "y = f(x, 'mean')", "y = f(x, (2, 3))", "y = f(x, None)",  # literals
    "y = np.full(n, v)", "y = isinstance(x, t)", "y = np.percentile(x, q)",  # different kinds
    "y = f(a, b, c)", "y = f(a)", "y = f(*ab)", "y = f(a, *b)",  # not two positional arguments
])
def test_arguments_that_are_not_an_order_are_not_swapped(code: str) -> None:
    assert not [m for m in plan(region(code)).mutants if m.operator == "arguments"]


def test_a_swapped_call_still_parses_and_keeps_its_lines() -> None:
    source = region("y = g(\n    (a + b) * c,\n    d[1:],\n)")
    swapped = [m for m in plan(source).mutants if m.operator == "arguments"]
    assert len(swapped) == 1
    mutated = swapped[0].apply(source)
    assert "y = g(\n    d[1:],\n    (a + b) * c,\n)" in mutated
    assert len(mutated.splitlines()) == len(source.splitlines())


def test_a_reduction_axis_moves_and_is_mutated_once() -> None:
    assert changes(region("y = np.mean(x, axis=-1, keepdims=True)")) == ["mean -> sum", "-1 -> 0"]
    assert changes(region("y = x.sum(axis=0)")) == ["sum -> mean", "0 -> -1"]


def test_printing_annotations_and_docstrings_are_not_mutated() -> None:
    source = region('''
        def f(x: np.ndarray, n: int = 3) -> np.ndarray:
            """Returns x * 2."""
            print(f"{x + 1:.3f}", x * 2)
            return x
        ''')
    assert changes(source) == ["3 -> 4"]


def test_mutants_keep_every_line_and_change_one_site() -> None:
    source = (SNIPPETS / "softmax.py").read_text(encoding="utf-8")
    mutants = plan(source, "softmax.py").mutants
    assert mutants
    for mutant in mutants:
        mutated = mutant.apply(source).splitlines()
        original = source.splitlines()
        assert len(mutated) == len(original)
        changed = [i + 1 for i, (a, b) in enumerate(zip(original, mutated, strict=True)) if a != b]
        assert changed == [mutant.line]


def test_order_is_deterministic_and_numbered() -> None:
    source = (SNIPPETS / "rmsnorm.py").read_text(encoding="utf-8")
    first, second = plan(source).mutants, plan(source).mutants
    assert first == second
    assert [m.number for m in first] == list(range(1, len(first) + 1))
    assert [(m.start, m.end) for m in first] == sorted((m.start, m.end) for m in first)


# --- regions and markers ----------------------------------------------------------------------

def test_nothing_outside_a_region_is_mutated() -> None:
    source = region("y = a + 2", before="import numpy as np\nb = a * 3 - np.log(4)\n",
                    after="check(y - 1 < np.exp(a[i]))\n")
    mutants = plan(source).mutants
    assert {m.line for m in mutants} == {4}
    assert changes(source) == ["+ -> -", "2 -> 3"]


def test_several_regions() -> None:
    source = (f"{FORMULA_START}\na = 1\n{FORMULA_END}\nb = 2\n"
              f"{FORMULA_START}\nc = 3\n{FORMULA_END}\n")
    result = plan(source)
    assert result.regions == [(2, 2), (6, 6)]
    assert [m.line for m in result.mutants] == [2, 6]


def test_equivalent_marker_excludes_the_line_and_keeps_its_reason() -> None:
    source = region("""
        d = a - b
        s = np.abs(d) ** 2  # equivalent: squared, so the sign of d does not matter
        """)
    result = plan(source)
    marked = [m for m in result.mutants if m.equivalent]
    assert {m.line for m in marked} == {4}
    assert all(m.equivalent == "squared, so the sign of d does not matter" for m in marked)
    assert result.runnable == [m for m in result.mutants if m.line != 4]
    assert "# equivalent" not in marked[0].diff  # the diff shows code, not the comment


@pytest.mark.parametrize(("source", "message"), [
    ("import numpy as np\ny = 1\n", "no formula region: add a line `# --- formula ---`"),
    (f"{FORMULA_START}\ny = 1\n", "is never closed"),
    (f"y = 1\n{FORMULA_END}\n", "without a `# --- formula ---`"),
    (f"{FORMULA_START}\n{FORMULA_START}\n{FORMULA_END}\n", "inside the region opened at line 1"),
    (f"y = 1  # equivalent: why\n{FORMULA_START}\nz = 2\n{FORMULA_END}\n", "outside a formula region"),
    (f"{FORMULA_START}\nz = 2  # equivalent:\n{FORMULA_END}\n", "needs a reason"),
    (f"# few mutants: one sum\n{FORMULA_START}\nz = 2\n{FORMULA_END}\n", "outside a formula region"),
    (f"{FORMULA_START}\n# few mutants:\nz = 2\n{FORMULA_END}\n", "`# few mutants:` needs a reason"),
    (f"{FORMULA_START}\n# few mutants: a\nz = 2\n{FORMULA_END}\n{FORMULA_START}\n# few mutants: b\n"
     f"w = 3\n{FORMULA_END}\n", "a second `# few mutants:` (the first is at line 2)"),
])
def test_marker_errors_name_the_file_and_the_fix(source: str, message: str) -> None:
    with pytest.raises(MutationError) as caught:
        plan(source, "snippets/toy.py")
    assert str(caught.value).startswith("snippets/toy.py")
    assert message in str(caught.value)


# --- the count rule: at least MIN_MUTANTS mutants, or the snippet says why ------------------------

SHORT = ("import numpy as np\n\n\n{start}\n{reason}def ratio(a, b):\n    return len(a & b) / len(a | b)\n"
         "{end}\n")


def short_snippet(reason: str = "") -> str:
    return SHORT.format(start=FORMULA_START, end=FORMULA_END, reason=reason and f"# few mutants: {reason}\n")


def test_a_formula_with_few_mutants_and_no_reason_fails_naming_file_and_line() -> None:
    result = plan(short_snippet(), "snippets/ratio.py")
    assert len(result.runnable) == 3 < MIN_MUTANTS
    problem = result.count_problem("snippets/ratio.py")
    assert problem is not None
    assert problem.startswith("snippets/ratio.py:4: only 3 mutants in the formula (at least 5, or say why)")
    assert "`# few mutants: <reason>`" in problem
    assert result.few_reason is None


def test_a_formula_with_few_mutants_passes_when_the_snippet_says_why() -> None:
    result = plan(short_snippet("one ratio of two set sizes;  nothing else to break"), "snippets/ratio.py")
    assert result.count_problem("snippets/ratio.py") is None
    assert result.few_reason == "one ratio of two set sizes; nothing else to break"
    assert result.count_note("snippets/ratio.py") is None
    assert len(result.runnable) == 3  # the reason is a comment: nothing on it is mutated


def test_equivalent_mutants_do_not_count_towards_the_five() -> None:
    source = region("""
        d = a - b + c
        s = np.abs(d) ** 2  # equivalent: squared, so the sign of d does not matter
        """)
    result = plan(source, "snippets/toy.py")
    assert len(result.mutants) == 5 and len(result.runnable) == 2
    assert result.count_problem("snippets/toy.py") is not None


def test_a_reason_that_no_longer_applies_is_a_note_not_a_reason() -> None:
    source = region("# few mutants: a short one\ny = a + b - c * d / e ** f")
    result = plan(source, "snippets/toy.py")
    assert result.count_problem("snippets/toy.py") is None and result.few_reason is None
    assert result.count_note("snippets/toy.py") == ("snippets/toy.py:3: `# few mutants:` given, but 5 "
                                                    "mutants ran (at least 5); remove the line")


def test_the_report_fails_a_card_with_few_mutants_and_no_reason() -> None:
    killed = [{"line": 8, "operator": "boolean", "diff": "- a  + b", "status": "killed",
               "by": "check: x"}] * 3
    short = mutation_run.CardOutcome(Target("ratio", Path("ratio.py")), "snippets/ratio.py",
                                     mutants=killed, too_few_line=4)
    text, ok = report([short])
    assert not ok and not short.passes()
    assert ("ratio: 3 mutants, 3 killed, 0 survived, 0 equivalent: 100%  under 5 mutants, "
            "no reason given") in text
    assert "  too few     snippets/ratio.py:4: only 3 mutants in the formula" in text
    explained = mutation_run.CardOutcome(Target("ratio", Path("ratio.py")), "snippets/ratio.py",
                                         mutants=killed, few="one ratio of two set sizes")
    text, ok = report([explained])
    assert explained.passes() and "  few by nature: one ratio of two set sizes" in text
    assert explained.ledger_entry()["few"] == "one ratio of two set sizes"


def test_a_long_line_is_shown_around_its_change() -> None:
    long = "y = " + " + ".join(f"alpha_{i}" for i in range(30))
    diff = plan(region(long)).mutants[0].diff
    assert diff.startswith("- y = alpha_0 - alpha_1") is False and diff.startswith("- y = alpha_0 + alpha_1")
    assert "…" in diff and len(diff) < 200


# --- ledger, hash, score on the card ----------------------------------------------------------

def test_content_hash_covers_snippet_and_imported_helpers_only(tmp_path: Path) -> None:
    lib = tmp_path / "lib"  # the helpers, apart from the card snippets
    lib.mkdir()
    (lib / "helper.py").write_text("K = 1\n")
    (lib / "other.py").write_text("J = 1\n")
    snippet = tmp_path / "card.py"
    snippet.write_text("from helper import K\n")
    first = content_hash(snippet, tmp_path)
    (lib / "other.py").write_text("J = 2\n")
    (tmp_path / "helper.py").write_text("K = 3\n")  # beside the card snippets: not a helper
    assert content_hash(snippet, tmp_path) == first
    (lib / "helper.py").write_text("K = 2\n")
    second = content_hash(snippet, tmp_path)
    assert second != first
    snippet.write_text("from helper import K  # edited\n")
    third = content_hash(snippet, tmp_path)
    assert third != second
    (lib / "helper.py").write_text("import numpy as np, deeper\nK = 2\n")
    (lib / "deeper.py").write_text("D = 1\n")
    fourth = content_hash(snippet, tmp_path)
    (lib / "deeper.py").write_text("D = 2\n")  # a helper's helper counts too
    assert content_hash(snippet, tmp_path) not in (third, fourth)


def _entry(snippet: Path, snippets_dir: Path, statuses: list[str]) -> dict:
    mutants = [{"line": i + 1, "operator": "arithmetic", "diff": f"- a{i}  + b{i}", "status": s,
                **({"reason": "same number"} if s == "equivalent" else {})}
               for i, s in enumerate(statuses)]
    return entry("snippets/card.py", content_hash(snippet, snippets_dir), TOOL_VERSION, mutants)


def test_ledger_update_is_atomic_merged_and_pruned(tmp_path: Path) -> None:
    snippet = tmp_path / "card.py"
    snippet.write_text("x = 1\n")
    ledger = tmp_path / LEDGER_NAME
    update_ledger(ledger, {"a": _entry(snippet, tmp_path, ["killed", "survived"])}, tmp_path / "lock")
    update_ledger(ledger, {"b": _entry(snippet, tmp_path, ["killed", "timeout", "equivalent"])},
                  tmp_path / "lock")
    cards = read_ledger(ledger)
    assert sorted(cards) == ["a", "b"]
    assert (cards["b"]["tried"], cards["b"]["killed"], cards["b"]["timed_out"], cards["b"]["equivalent"]) == \
        (2, 2, 1, 1)
    text = ledger.read_text()
    assert '{"diff": "- a0  + b0", "line": 1, "operator": "arithmetic", "status": "killed"}' in text
    update_ledger(ledger, {}, tmp_path / "lock", keep={"b"})
    assert sorted(read_ledger(ledger)) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.py", "lock", LEDGER_NAME]  # no temp file


def test_a_failed_write_leaves_the_ledger_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = tmp_path / "card.py"
    snippet.write_text("x = 1\n")
    ledger = tmp_path / LEDGER_NAME
    update_ledger(ledger, {"a": _entry(snippet, tmp_path, ["killed"])}, tmp_path)
    before = ledger.read_text()

    def broken(*args: object) -> None:
        raise OSError("disk full")
    monkeypatch.setattr("eqcards.core.files.os.replace", broken)
    with pytest.raises(OSError):
        update_ledger(ledger, {"b": _entry(snippet, tmp_path, ["killed"])}, tmp_path)
    assert ledger.read_text() == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_score_is_shown_only_for_the_snippet_it_was_measured_on(tmp_path: Path) -> None:
    snippet = tmp_path / "card.py"
    snippet.write_text("x = 1\n")
    ledger = {"card": _entry(snippet, tmp_path, ["killed"] * 11 + ["survived", "equivalent"])}
    score = measured("card", snippet, tmp_path, ledger)
    assert score is not None and (score.killed, score.tried, score.equivalent) == (11, 12, 1)
    assert measured("other", snippet, tmp_path, ledger) is None
    snippet.write_text("x = 2\n")
    assert measured("card", snippet, tmp_path, ledger) is None


def test_a_score_measured_by_an_older_tool_reads_as_not_measured(tmp_path: Path) -> None:
    """New operators make every older score stale: the card then says "not measured"."""
    snippet = tmp_path / "card.py"
    snippet.write_text("x = 1\n")
    current = _entry(snippet, tmp_path, ["killed"] * 5)
    assert measured("card", snippet, tmp_path, {"card": current}) is not None
    for stale in ({**current, "tool": TOOL_VERSION - 1}, {k: v for k, v in current.items() if k != "tool"}):
        assert measured("card", snippet, tmp_path, {"card": stale}) is None


def test_the_ledger_keeps_the_reason_for_few_mutants(tmp_path: Path) -> None:
    snippet = tmp_path / "card.py"
    snippet.write_text("x = 1\n")
    mutants = [{"line": 2, "operator": "boolean", "diff": "- a & b  + a | b", "status": "killed"}] * 3
    ledger = tmp_path / LEDGER_NAME
    update_ledger(ledger, {"card": entry("snippets/card.py", content_hash(snippet, tmp_path), TOOL_VERSION,
                                         mutants, few="one ratio of two set sizes")}, tmp_path / "lock")
    score = measured("card", snippet, tmp_path, read_ledger(ledger))
    assert score is not None and score.few == "one ratio of two set sizes"
    assert score.record()["few_by_nature"] == "one ratio of two set sizes"
    assert "few" not in entry("snippets/card.py", "h", TOOL_VERSION, mutants)


def test_card_page_and_cards_json_show_the_measured_score_or_say_not_measured() -> None:
    card = parse_card(ROOT / "docs" / "cards" / "softmax.md")
    mutants = [{"line": 12, "operator": "function", "status": "survived", "diff": "- max(z)  + min(z)"},
               {"line": 13, "operator": "arithmetic", "status": "killed", "diff": "- e / s  + e * s",
                "by": "check: vs scipy"},
               {"line": 13, "operator": "function", "status": "equivalent", "diff": "- a  + b",
                "reason": "x*2 is x+x"}]
    score = MeasuredScore(killed=1, tried=2, equivalent=1, mutants=mutants, snippet="snippets/softmax.py")
    page = "\n".join(render_mutation_score(card, score))
    assert "1 of 2 deliberate errors in the formula was caught by the checks" in page
    assert "`snippets/softmax.py:12` `- max(z)  + min(z)`" in page
    assert r"because x\*2 is x+x" in page
    few = MeasuredScore(killed=3, tried=3, equivalent=0, mutants=[{**mutants[1], "line": 13}] * 3,
                        snippet="snippets/softmax.py", few="one ratio of |A & B| to |A | B|, *nothing* else")
    title = render_mutation_score(card, few)[0]
    assert title == ('??? abstract "3 of 3 deliberate errors in the formula were caught by the checks — '
                     r'few by nature: one ratio of |A &amp; B| to |A | B|, \*nothing\* else"')
    assert "few by nature" not in page
    unmeasured = "\n".join(render_mutation_score(card, None))
    assert "not measured for this version of the snippet" in unmeasured
    assert not any(ch.isdigit() for ch in unmeasured)
    records = card_records([card], {}, "", {"softmax": score})
    assert records[0]["verification"]["mutation"] == {
        "measured": True, "tried": 2, "killed": 1, "survived": 1, "equivalent": 1, "timed_out": 0,
        "score": 0.5, "survivors": ["snippets/softmax.py:12: - max(z)  + min(z)"]}
    assert card_records([card], {}, "")[0]["verification"]["mutation"] == {"measured": False}


def test_a_caught_failed_check_kills_the_mutant() -> None:
    job = SnippetJob("x", Path("x.md"), Path("x.py"))
    swallowed = SnippetResult(job, ok=True, checks=[{"what": "a", "passed": True},
                                                    {"what": "b", "passed": False}])
    assert killed_by(swallowed) == ("killed", "check: b")
    assert killed_by(SnippetResult(job, ok=True, checks=[{"what": "a", "passed": True}])) is None
    assert killed_by(SnippetResult(job, ok=False, error="timed out after 3 s")) == ("timeout", "timeout")


# --- end to end, through the real forked runner -------------------------------------------------

def test_the_tool_scores_weak_strong_and_real_snippets(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutation_run, "TIMEOUT_MIN", 2)
    monkeypatch.setattr(mutation_run, "TIMEOUT_PADDING", 1.0)
    targets = [Target(name, FIXTURES / f"{name}.py") for name in ("weak", "strong", "loop")]
    targets += [Target(card, SNIPPETS / f"{card}.py") for card in ("rmsnorm", "softmax")]
    cache = tmp_path / "mutants"
    outcomes = {o.target.card_id: o for o in mutate(targets, SNIPPETS, cache, ROOT, workers=2)}
    assert not [o.error for o in outcomes.values() if o.error]
    weak, strong, loop = outcomes["weak"], outcomes["strong"], outcomes["loop"]
    assert weak.tried >= 6 and weak.score is not None and weak.score < 0.5
    assert strong.score == 1.0 and strong.count("equivalent") == 1
    assert [m["reason"] for m in strong.mutants if m["status"] == "equivalent"] == \
        ["squared below, so dropping abs changes nothing"]
    assert [m["diff"] for m in loop.mutants if m["status"] == "timeout"] == ["- k += 1  + k -= 1"]
    for card in ("rmsnorm", "softmax"):
        assert outcomes[card].tried >= 5 and outcomes[card].killed >= 4, report([outcomes[card]])[0]
    text, ok = report(list(outcomes.values()))
    assert not ok
    assert "weak: 8 mutants, 0 killed, 8 survived" in text
    assert "  survived    tests/mutants/fixtures/weak.py:9: - m = np.mean(x)  + m = np.sum(x)" in text
    assert "  timed out   tests/mutants/fixtures/loop.py:10: - k += 1  + k -= 1  (counted as killed)" in text

    # An unchanged snippet is never mutated again: everything comes from the cache.
    started = time.perf_counter()
    again = mutate(targets, SNIPPETS, cache, ROOT, workers=2)
    assert all(o.cached for o in again) and time.perf_counter() - started < 5
    assert [o.mutants for o in again] == [outcomes[t.card_id].mutants for t in targets]

    # The ledger records the measured cards, and the build then finds their scores.
    ledger = tmp_path / LEDGER_NAME
    update_ledger(ledger, {o.target.card_id: o.ledger_entry() for o in again}, cache)
    score = measured("strong", FIXTURES / "strong.py", SNIPPETS, read_ledger(ledger))
    assert score is not None and (score.killed, score.tried, score.equivalent) == (8, 8, 1)
    assert json.loads(ledger.read_text())["cards"]["weak"]["killed"] == 0


def test_measure_records_cards_and_reports_errors(project: Project) -> None:
    """What `scripts/mutants.py` and `make mutants` do, on a throw-away project."""
    entropy = region("h = -np.sum(p * np.log2(p))",
                     before="import numpy as np\nfrom cardcheck import check_close\n"
                            "p = np.array([0.5, 0.25, 0.25])\n",
                     after="check_close('entropy of (1/2, 1/4, 1/4) in bits', h, 1.5)\n")
    reason = "# few mutants: one sum of p log p, negated: nothing else to break\n"
    project.add_card("good", entropy.replace(f"{FORMULA_START}\n", f"{FORMULA_START}\n{reason}"))
    project.add_card("short", entropy)
    project.add_card("broken", entropy.replace("1.5)", "1.6)"))
    project.add_card("plain", "from cardcheck import check_true\ncheck_true('one', 1 == 1)\n")
    snippets, cache = project.root / "snippets", project.root / ".cache" / "mutants"
    text, ok = measure(project.root, project.root / "docs" / "cards", snippets, cache, [], workers=2)
    assert not ok
    assert "good: 4 mutants, 4 killed, 0 survived, 0 equivalent: 100%\n" in text
    assert "  few by nature: one sum of p log p, negated: nothing else to break" in text
    assert ("short: 4 mutants, 4 killed, 0 survived, 0 equivalent: 100%  under 5 mutants, "
            "no reason given") in text
    assert "  too few     snippets/short.py:4: only 4 mutants in the formula (at least 5, or say why)" in text
    assert "broken: ERROR snippets/broken.py: the snippet fails without any mutation" in text
    assert "plain: ERROR snippets/plain.py: no formula region: add a line `# --- formula ---`" in text
    ledger = read_ledger(snippets / LEDGER_NAME)
    assert sorted(ledger) == ["good", "short"] and ledger["good"]["snippet"] == "snippets/good.py"
    assert ledger["good"]["few"] == "one sum of p log p, negated: nothing else to break"
    assert ledger["good"]["tool"] == TOOL_VERSION and "few" not in ledger["short"]
    score = measured("good", snippets / "good.py", snippets, ledger)
    assert score is not None and score.score == 1.0 and score.few is not None
    text, ok = measure(project.root, project.root / "docs" / "cards", snippets, cache, ["short"], workers=2)
    assert not ok and "(cached)" in text and "  too few     snippets/short.py:4:" in text
    text, ok = measure(project.root, project.root / "docs" / "cards", snippets, cache, ["good"], workers=2)
    assert ok and "(cached)" in text and "total: 4 of 4 mutants killed (100.0%) over 1 card(s)" in text
    assert "  few by nature: one sum of p log p" in text  # kept in the cache, too
