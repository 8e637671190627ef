"""Mutation testing: each operator, the formula regions and equivalent markers, the ledger and its hash,
the score on the card and in cards.json, and the tool end to end through the real forked runner."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest
from conftest import Project

from eqcards import mutation_run
from eqcards.cards import parse_card
from eqcards.export import card_records
from eqcards.mutation import FORMULA_END, FORMULA_START, MutationError, plan
from eqcards.mutation_ledger import (
    LEDGER_NAME,
    MeasuredScore,
    content_hash,
    entry,
    measured,
    read_ledger,
    update_ledger,
)
from eqcards.mutation_run import Target, killed_by, measure, mutate, report
from eqcards.render import render_mutation_score
from eqcards.runner import SnippetJob, SnippetResult

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
FIXTURES = ROOT / "tests" / "fixtures" / "mutation"


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
    ("y = x[1:]", ["1 -> 2"]),
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
])
def test_marker_errors_name_the_file_and_the_fix(source: str, message: str) -> None:
    with pytest.raises(MutationError) as caught:
        plan(source, "snippets/toy.py")
    assert str(caught.value).startswith("snippets/toy.py")
    assert message in str(caught.value)


def test_a_long_line_is_shown_around_its_change() -> None:
    long = "y = " + " + ".join(f"alpha_{i}" for i in range(30))
    diff = plan(region(long)).mutants[0].diff
    assert diff.startswith("- y = alpha_0 - alpha_1") is False and diff.startswith("- y = alpha_0 + alpha_1")
    assert "…" in diff and len(diff) < 200


# --- ledger, hash, score on the card ----------------------------------------------------------

def test_content_hash_covers_snippet_and_imported_helpers_only(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("K = 1\n")
    (tmp_path / "other.py").write_text("J = 1\n")
    snippet = tmp_path / "card.py"
    snippet.write_text("from helper import K\n")
    first = content_hash(snippet, tmp_path)
    (tmp_path / "other.py").write_text("J = 2\n")
    assert content_hash(snippet, tmp_path) == first
    (tmp_path / "helper.py").write_text("K = 2\n")
    second = content_hash(snippet, tmp_path)
    assert second != first
    snippet.write_text("from helper import K  # edited\n")
    third = content_hash(snippet, tmp_path)
    assert third != second
    (tmp_path / "helper.py").write_text("import numpy as np, deeper\nK = 2\n")
    (tmp_path / "deeper.py").write_text("D = 1\n")
    fourth = content_hash(snippet, tmp_path)
    (tmp_path / "deeper.py").write_text("D = 2\n")  # a helper's helper counts too
    assert content_hash(snippet, tmp_path) not in (third, fourth)


def _entry(snippet: Path, snippets_dir: Path, statuses: list[str]) -> dict:
    mutants = [{"line": i + 1, "operator": "arithmetic", "diff": f"- a{i}  + b{i}", "status": s,
                **({"reason": "same number"} if s == "equivalent" else {})}
               for i, s in enumerate(statuses)]
    return entry("snippets/card.py", content_hash(snippet, snippets_dir), 1, mutants)


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
    monkeypatch.setattr("eqcards.files.os.replace", broken)
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
    assert "  survived    tests/fixtures/mutation/weak.py:9: - m = np.mean(x)  + m = np.sum(x)" in text
    assert "  timed out   tests/fixtures/mutation/loop.py:10: - k += 1  + k -= 1  (counted as killed)" in text

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
    project.add_card("good", entropy)
    project.add_card("broken", entropy.replace("1.5)", "1.6)"))
    project.add_card("plain", "from cardcheck import check_true\ncheck_true('one', 1 == 1)\n")
    snippets, cache = project.root / "snippets", project.root / ".cache" / "mutants"
    text, ok = measure(project.root, project.root / "docs" / "cards", snippets, cache, [], workers=2)
    assert not ok
    assert "good: 4 mutants, 4 killed, 0 survived, 0 equivalent: 100%" in text
    assert "broken: ERROR snippets/broken.py: the snippet fails without any mutation" in text
    assert "plain: ERROR snippets/plain.py: no formula region: add a line `# --- formula ---`" in text
    ledger = read_ledger(snippets / LEDGER_NAME)
    assert sorted(ledger) == ["good"] and ledger["good"]["snippet"] == "snippets/good.py"
    score = measured("good", snippets / "good.py", snippets, ledger)
    assert score is not None and score.score == 1.0
    text, ok = measure(project.root, project.root / "docs" / "cards", snippets, cache, ["good"], workers=2)
    assert ok and "(cached)" in text and "total: 4 of 4 mutants killed (100.0%) over 1 card(s)" in text
