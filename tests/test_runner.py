"""The snippet runner: success, failure lines, no-check, timeout, and the cache of successes."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

from conftest import GOOD_SNIPPET, job, snapshot

from eqcards.cache import ResultCache
from eqcards.determinism import first_difference, run_twice
from eqcards.runner import SnippetJob, SnippetResult, run_snippet, run_snippets
from eqcards.snippet_key import snippet_key


def test_success_records_checks_output_and_figures(snippets: Path) -> None:
    result = run_snippet(job(snippets, "good", GOOD_SNIPPET), snippets)
    assert result.ok, result.error
    assert [c["passed"] for c in result.checks] == [True]
    assert "PASS  entropy of (1/2, 1/4, 1/4) in bits" in result.stdout
    assert len(result.figures) == 1 and result.figures[0].lstrip().startswith("<?xml")
    assert "<dc:date>" not in result.figures[0]


def test_figures_are_byte_identical_across_runs(snippets: Path) -> None:
    first = run_snippet(job(snippets, "good", GOOD_SNIPPET), snippets)
    second = run_snippet(job(snippets, "good", GOOD_SNIPPET), snippets)
    assert first.figures == second.figures


def test_failed_check_reports_the_snippet_line(snippets: Path) -> None:
    source = "import numpy as np\nfrom cardcheck import check_close\n\n" \
             "check_close('wrong formula', np.log(2.0), 0.7)\n"
    result = run_snippet(job(snippets, "bad", source), snippets)
    assert not result.ok
    assert result.line == 4
    assert "CheckFailed: wrong formula" in result.error
    message = result.describe_failure()
    assert "bad.md: snippet" in message and "bad.py:4 failed" in message


def test_exception_and_syntax_error_lines(snippets: Path) -> None:
    raising = run_snippet(job(snippets, "raises", "x = 1\n\nraise ValueError('boom')\n"), snippets)
    assert (raising.ok, raising.line, raising.error) == (False, 3, "ValueError: boom")
    syntax = run_snippet(job(snippets, "syntax", "x = 1\ny = (\n"), snippets)
    assert not syntax.ok and syntax.line == 2 and "SyntaxError" in syntax.error


def test_snippet_without_a_check_is_rejected(snippets: Path) -> None:
    result = run_snippet(job(snippets, "nocheck", "print('hello')\n"), snippets)
    assert not result.ok
    assert "ran no check" in result.error


def test_timeout_kills_the_snippet_and_names_the_line(snippets: Path) -> None:
    source = "import time\nfrom cardcheck import check_true\n\nwhile True:\n    time.sleep(0.05)\n"
    result = run_snippet(job(snippets, "slow", source, timeout=2), snippets)
    assert not result.ok
    assert "timed out after 2 s" in result.error
    assert result.line in (4, 5)
    assert result.duration < 2 + 6


def test_snippet_runs_in_a_temporary_directory_with_fixed_settings(snippets: Path) -> None:
    source = ("import os, sys\nfrom pathlib import Path\nfrom cardcheck import check_true\n"
              "check_true('cwd is a temp dir', 'eqcards-run-' in os.getcwd())\n"
              "check_true('one BLAS thread', os.environ['OPENBLAS_NUM_THREADS'] == '1')\n"
              "check_true('Agg backend', __import__('matplotlib').get_backend().lower() == 'agg')\n"
              "Path('scratch.txt').write_text('x')\n")
    result = run_snippet(job(snippets, "env", source), snippets)
    assert result.ok, result.error
    assert not (snippets / "scratch.txt").exists()


def test_output_is_capped(snippets: Path) -> None:
    source = "from cardcheck import check_true\nprint('x' * 300_000)\ncheck_true('ran', True)\n"
    result = run_snippet(job(snippets, "loud", source), snippets)
    assert result.ok
    assert len(result.stdout) < 110_000 and "output truncated" in result.stdout


def test_cache_hits_misses_and_stores_only_successes(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    good = job(snippets, "good", GOOD_SNIPPET)
    bad = job(snippets, "bad", "from cardcheck import check_true\ncheck_true('fails', False)\n")
    first = run_snippets([good, bad], snippets, cache)
    assert (first.ran, first.cached, len(first.failures)) == (2, 0, 1)
    assert first.summary() == "snippets: 2 ran, 0 cached, 1 failed"
    second = run_snippets([good, bad], snippets, cache)
    assert (second.ran, second.cached) == (1, 1)  # the failure is never served from the cache
    assert second.results["good"].cached and second.results["good"].figures == first.results["good"].figures


def test_editing_a_snippet_or_its_helper_changes_the_key(snippets: Path) -> None:
    good = job(snippets, "good", GOOD_SNIPPET)
    other = job(snippets, "other", "import numpy\nprint(1)\n")
    before = snippet_key(good.snippet_path, snippets, 30), snippet_key(other.snippet_path, snippets, 30)
    with (snippets / "cardcheck.py").open("a") as handle:
        handle.write("\n# changed\n")
    after = snippet_key(good.snippet_path, snippets, 30), snippet_key(other.snippet_path, snippets, 30)
    assert before[0] != after[0]  # imports cardcheck
    assert before[1] == after[1]  # does not
    assert snippet_key(good.snippet_path, snippets, 31) != after[0]


def test_corrupted_cache_entry_is_rerun_not_served(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    good = job(snippets, "good", GOOD_SNIPPET)
    run_snippets([good], snippets, cache)
    key = snippet_key(good.snippet_path, snippets, good.timeout)
    entry = next((tmp_path / "cache").rglob(f"{key}.json"))
    entry.write_text(entry.read_text().replace("PASS", "FAKE"))
    assert cache.get(key) is None
    report = run_snippets([good], snippets, cache)
    assert report.ran == 1 and "PASS" in report.results["good"].stdout


def test_sweep_removes_only_old_temporaries_left_by_a_killed_build(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    cache.put("ab" + "0" * 62, {"stdout": "kept"})
    folder = tmp_path / "cache" / "ab"
    old, fresh = folder / ".tmp-old.json", folder / ".tmp-fresh.json"
    old.write_text("{half")
    fresh.write_text("{half")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert cache.sweep() == 1
    assert sorted(p.name for p in folder.iterdir()) == [".tmp-fresh.json", "ab" + "0" * 62 + ".json"]
    assert cache.get("ab" + "0" * 62) == {"stdout": "kept"}


def test_cards_sharing_a_snippet_share_one_run(snippets: Path, tmp_path: Path) -> None:
    first = job(snippets, "good", GOOD_SNIPPET)
    twin = SnippetJob("twin", snippets.parent / "cards" / "twin.md", first.snippet_path, first.timeout)
    report = run_snippets([first, twin], snippets, ResultCache(tmp_path / "cache"))
    assert (report.ran, report.cached) == (1, 1)
    assert report.results["twin"].ok and report.results["twin"].job.card_id == "twin"


def test_network_is_refused_at_the_snippet_line(snippets: Path) -> None:
    source = "import socket\n\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\n"
    result = run_snippet(job(snippets, "net", source), snippets)
    assert not result.ok and result.line == 3
    assert "may not use the network" in result.error


def test_memory_is_bounded(snippets: Path) -> None:
    source = "import numpy as np\nfrom cardcheck import check_true\nbig = np.ones(10**10)\n"
    result = run_snippet(job(snippets, "hog", source), snippets)
    assert not result.ok and result.line == 3
    assert result.error.startswith(("MemoryError", "numpy._core._exceptions._ArrayMemoryError"))


def test_writes_outside_the_working_directory_are_refused(snippets: Path, tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    source = ("from pathlib import Path\nPath('inside.txt').write_text('ok')\n"
              f"Path({str(outside)!r}).write_text('x')\n")
    result = run_snippet(job(snippets, "escape", source), snippets)
    assert not result.ok and result.line == 3
    assert "may only write inside their working directory" in result.error
    assert not outside.exists()


def test_a_figure_that_cannot_be_saved_fails_the_snippet(snippets: Path) -> None:
    source = ("from cardcheck import check_true\nfrom cardplot import figure\ncheck_true('ran', True)\n"
              "fig, ax = figure('broken', 'x', 'y')\nax.set_title(r'$\\frac{a$')\n")
    result = run_snippet(job(snippets, "badfig", source), snippets)
    assert not result.ok
    assert result.error.startswith("figure 1 could not be saved as SVG")


# Unseeded on purpose: the worker seeds `random` and numpy's legacy global generator, but a
# fresh default_rng() and the clock differ on every run.
UNSEEDED = ("import numpy as np\nfrom cardcheck import check_true\n"
            "print('sample', np.random.default_rng().random())\ncheck_true('ran', True)\n")


def test_non_deterministic_output_fails_and_is_not_cached(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    unseeded = job(snippets, "unseeded", UNSEEDED)
    assert run_snippets([unseeded], snippets, None).failures == []  # unnoticed without the check
    report = run_snippets([unseeded], snippets, cache, check_determinism=True)
    [failure] = report.failures
    message = failure.describe_failure()
    assert "unseeded.md: snippet" in message and "unseeded.py failed: non-deterministic" in message
    assert "output line 1 was 'sample 0." in message and "seed every random generator" in message
    assert not (tmp_path / "cache").exists()  # nothing stored



def test_deterministic_snippet_passes_the_check_and_is_cached(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    good = job(snippets, "good", GOOD_SNIPPET)  # prints checks and draws a figure
    report = run_snippets([good], snippets, cache, check_determinism=True)
    assert report.failures == [] and report.ran == 1
    assert run_snippets([good], snippets, cache, check_determinism=True).cached == 1


def test_first_difference_names_the_line_check_or_figure(snippets: Path) -> None:
    base = SnippetResult(job(snippets, "x", ""), ok=True, stdout="a\nb\n",
                         checks=[{"what": "w", "passed": True, "detail": "1"}], figures=["<svg/>"])
    assert first_difference(base, replace(base)) is None
    assert first_difference(base, replace(base, stdout="a\nc\n")) == \
        "output line 2 was 'b' on the first run and 'c' on the second"
    assert "2 lines on the first run and 3" in first_difference(base, replace(base, stdout="a\nb\nc\n"))
    other_check = [{"what": "w", "passed": True, "detail": "2"}]
    assert first_difference(base, replace(base, checks=other_check)) == \
        "check 1 ('w') recorded different results"
    assert first_difference(base, replace(base, figures=["<svg />"])).startswith("figure 1 differs")
    assert first_difference(base, replace(base, figures=[])) == \
        "1 figures on the first run and 0 on the second"


def test_run_twice_runs_twice_and_reports_a_flaky_check(snippets: Path) -> None:
    flaky = job(snippets, "flaky", "")
    outcomes = [SnippetResult(flaky, ok=True, stdout="PASS\n"),
                SnippetResult(flaky, ok=False, stdout="FAIL\n", error="CheckFailed: c", line=7)]
    calls = []

    def fake(j: SnippetJob, folder: Path) -> SnippetResult:
        calls.append(j)
        return outcomes[len(calls) - 1]

    result = run_twice(fake, flaky, snippets)
    assert len(calls) == 2 and not result.ok and result.line == 7
    assert result.error.startswith("non-deterministic: passed on the first run and failed on the second: "
                                   "CheckFailed: c")


BAD_SNIPPETS = {
    "raises": "x = 1\nraise ValueError('boom')\n",
    "syntax": "x = (\n",
    "nocheck": "print('hello')\n",
    "failing": "from cardcheck import check_true\ncheck_true('fails', False)\n",
    "slow": "import time\nwhile True:\n    time.sleep(0.05)\n",
    "hog": "import numpy as np\nbig = np.ones(10**10)\n",
    "net": "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\n",
    "badfig": "from cardcheck import check_true\nfrom cardplot import figure\ncheck_true('ran', True)\n"
              "fig, ax = figure('broken', 'x', 'y')\nax.set_title(r'$\\frac{a$')\n",
    "unseeded": UNSEEDED,
}


def test_bad_snippets_leave_the_cache_as_it_was(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    assert run_snippets([job(snippets, "good", GOOD_SNIPPET)], snippets, cache).failures == []
    before = snapshot(tmp_path / "cache")
    sources = {**BAD_SNIPPETS, "escape": f"open({str(tmp_path / 'escaped.txt')!r}, 'w').write('x')\n"}
    bad = [job(snippets, name, source, timeout=2) for name, source in sources.items()]
    missing = SnippetJob("missing", snippets.parent / "cards" / "missing.md", snippets / "missing.py")
    report = run_snippets([*bad, missing], snippets, cache, check_determinism=True)
    assert sorted(r.job.card_id for r in report.failures) == sorted([*sources, "missing"])
    assert snapshot(tmp_path / "cache") == before
