"""The snippet runner: success, failure lines, no-check, timeout, and the cache of successes."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import GOOD_SNIPPET, ROOT, job, snapshot

from eqcards.snippets import snippet_key as key_module
from eqcards.snippets.cache import ResultCache
from eqcards.snippets.determinism import first_difference, run_twice
from eqcards.snippets.forkclient import ForkServer
from eqcards.snippets.jobs import SnippetJob, SnippetResult
from eqcards.snippets.runner import run_snippet, run_snippets, snippet_server, verdict
from eqcards.snippets.snippet_key import snippet_key


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


# A snippet that catches its own failed check and goes on to pass another: not verified.
SWALLOWED = """import numpy as np
from cardcheck import check_close

try:
    check_close('wrong formula', np.log(2.0), 0.7)
except Exception:
    pass
check_close('right formula', np.log(2.0), 0.6931471805599453)
"""


def test_a_caught_failed_check_fails_the_snippet_at_its_line(snippets: Path, tmp_path: Path) -> None:
    swallowed = job(snippets, "swallowed", SWALLOWED)
    result = run_snippet(swallowed, snippets)
    assert [(c["what"], c["passed"], c["line"]) for c in result.checks] == \
        [("wrong formula", False, 5), ("right formula", True, 8)]
    assert "FAIL  wrong formula" in result.stdout and "PASS  right formula" in result.stdout
    assert not result.ok and result.line == 5
    assert result.error.startswith("check 'wrong formula' failed (max abs error ")
    assert "do not catch CheckFailed" in result.error
    assert "swallowed.md: snippet" in result.describe_failure()
    assert "swallowed.py:5 failed: check 'wrong formula' failed" in result.describe_failure()
    cache = ResultCache(tmp_path / "cache")
    report = run_snippets([swallowed], snippets, cache)
    assert [r.job.card_id for r in report.failures] == ["swallowed"]
    assert not (tmp_path / "cache").exists()  # never stored as a success


def test_checks_record_the_line_that_called_them(snippets: Path) -> None:
    source = ("from cardcheck import check_close, check_true\n\n\ndef verify(x):\n"
              "    check_close('inside a function', x, 1.0)\n\n\ncheck_true('top level', True)\n"
              "verify(1.0)\n")
    result = run_snippet(job(snippets, "lines", source), snippets)
    assert result.ok, result.describe_failure()
    assert [c["line"] for c in result.checks] == [8, 5]


def test_a_result_verifies_only_with_every_check_passed_and_at_least_one(snippets: Path) -> None:
    """The runner's own rule, whatever the child reported (a cache entry, an older worker)."""
    ok = SnippetResult(job(snippets, "x", ""), ok=True, stdout="")
    passed = {"what": "a", "passed": True, "detail": "", "line": 3}
    failed = {"what": "b", "passed": False, "detail": "off by one", "line": 7}
    assert verdict(replace(ok, checks=[passed])).ok
    none = verdict(ok)
    assert not none.ok and "ran no check" in none.error
    caught = verdict(replace(ok, checks=[failed, passed]))
    assert (caught.ok, caught.line) == (False, 7)
    assert caught.error.startswith("check 'b' failed (off by one)")
    assert not verdict(replace(ok, checks=[{**passed, "passed": "yes"}])).ok
    crashed = replace(ok, ok=False, checks=[passed], error="ValueError: boom", line=2)
    assert verdict(crashed) == crashed


def test_a_cached_result_with_a_failed_check_is_run_again(snippets: Path, tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    good = job(snippets, "good", GOOD_SNIPPET)
    key = snippet_key(good.snippet_path, snippets, good.timeout)
    forged = {"stdout": "FAIL  x\n", "figures": [], "duration": 0.1,
              "checks": [{"what": "x", "passed": False, "detail": "", "line": 5}]}
    cache.put(key, forged)
    report = run_snippets([good], snippets, cache)
    assert (report.ran, report.cached, report.failures) == (1, 0, [])
    assert "PASS  entropy" in report.results["good"].stdout
    assert cache.get(key)["checks"][0]["passed"] is True  # the honest result replaced it


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
    with (snippets / "lib" / "cardcheck.py").open("a") as handle:
        handle.write("\n# changed\n")
    after = snippet_key(good.snippet_path, snippets, 30), snippet_key(other.snippet_path, snippets, 30)
    assert before[0] != after[0]  # imports cardcheck
    assert before[1] == after[1]  # does not
    assert snippet_key(good.snippet_path, snippets, 31) != after[0]


@pytest.mark.parametrize("changed", ["python", "numpy", "scipy", "matplotlib"])
def test_a_new_python_or_library_version_changes_the_key(snippets: Path, monkeypatch: pytest.MonkeyPatch,
                                                          changed: str) -> None:
    """A new numpy may change a printed digit or a figure: its cached results must not be served."""
    good = job(snippets, "good", GOOD_SNIPPET)
    real_version, real_python = key_module.metadata.version, key_module.platform.python_version

    def key_with(versions: dict[str, str]) -> str:
        monkeypatch.setattr(key_module.metadata, "version",
                            lambda name: versions.get(name) or real_version(name))
        monkeypatch.setattr(key_module.platform, "python_version",
                            lambda: versions.get("python") or real_python())
        key_module.environment_fingerprint.cache_clear()
        try:
            return snippet_key(good.snippet_path, snippets, good.timeout)
        finally:
            key_module.environment_fingerprint.cache_clear()

    before = key_with({})
    assert key_with({}) == before
    assert key_with({changed: "999.0.0"}) != before


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


# 3 GB, allocated and not touched (calloc maps it lazily): the address space grows by 3 GB but
# the machine's memory does not, so it succeeds on any machine where no cap is in the way.
HOG = ("import numpy as np\nfrom cardcheck import check_true\n"
       "big = np.zeros(3 * 2**30, dtype=np.uint8)\ncheck_true('3 GB allocated', big.nbytes == 3 * 2**30)\n")


def test_memory_cap_refuses_what_succeeds_without_it(snippets: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hog = job(snippets, "hog", HOG)
    monkeypatch.setenv("EQCARDS_MEMORY_MB", str(64 * 1024))  # far above the allocation: no cap in the way
    uncapped = run_snippet(hog, snippets)
    assert uncapped.ok, uncapped.describe_failure()
    assert [c["passed"] for c in uncapped.checks] == [True] and "PASS  3 GB allocated" in uncapped.stdout
    monkeypatch.setenv("EQCARDS_MEMORY_MB", "1024")  # read by each new snippet server
    capped = run_snippet(hog, snippets)
    assert not capped.ok and capped.line == 3 and capped.checks == []
    assert capped.error.startswith(("MemoryError", "numpy._core._exceptions._ArrayMemoryError"))


def test_writes_outside_the_working_directory_are_refused(snippets: Path, tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    source = ("from pathlib import Path\nPath('inside.txt').write_text('ok')\n"
              f"Path({str(outside)!r}).write_text('x')\n")
    result = run_snippet(job(snippets, "escape", source), snippets)
    assert not result.ok and result.line == 3
    assert "may only write inside their working directory" in result.error
    assert not outside.exists()


# Each changes the file system outside the working directory at line 6 of its snippet; OUT is a
# folder outside, holding a file, an empty folder and a folder with a file in it.
ESCAPES = {
    "open for writing": "open(OUT / 'new.txt', 'w')",
    "os.open for writing": "os.open(OUT / 'new.txt', os.O_WRONLY | os.O_CREAT)",
    "os.open to truncate": "os.open(OUT / 'victim.txt', os.O_RDWR | os.O_TRUNC)",
    "os.remove": "os.remove(OUT / 'victim.txt')",
    "os.unlink": "Path(OUT / 'victim.txt').unlink()",
    "os.remove relative to an open folder": "os.remove('victim.txt', dir_fd=os.open(OUT, os.O_RDONLY))",
    "os.rename out of the folder": "os.rename(OUT / 'victim.txt', 'taken.txt')",
    "os.rename into the folder": "os.rename('mine.txt', OUT / 'new.txt')",
    "os.replace over a file": "os.replace('mine.txt', OUT / 'victim.txt')",
    "os.rmdir": "os.rmdir(OUT / 'empty')",
    "os.mkdir": "os.mkdir(OUT / 'new')",
    "os.makedirs": "os.makedirs(OUT / 'new' / 'deeper')",
    "shutil.rmtree": "shutil.rmtree(OUT / 'tree')",
    "shutil.move": "shutil.move(OUT / 'tree', 'tree')",
    "os.symlink": "os.symlink('mine.txt', OUT / 'link')",
    "os.link": "os.link('mine.txt', OUT / 'hard')",
    "os.truncate": "os.truncate(OUT / 'victim.txt', 0)",
}


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ForkServer]]:
    """One snippets folder and one snippet server for many short runs."""
    folder = tmp_path_factory.mktemp("shared") / "snippets"
    (folder / "lib").mkdir(parents=True)
    for helper in ("cardcheck.py", "cardplot.py"):
        shutil.copy(ROOT / "snippets" / "lib" / helper, folder / "lib" / helper)
    with snippet_server(folder, []) as server:
        yield folder, server


@pytest.mark.parametrize("escape", list(ESCAPES))
def test_changes_outside_the_working_directory_are_refused(shared_server: tuple[Path, ForkServer],
                                                            tmp_path: Path, escape: str) -> None:
    snippets, server = shared_server
    outside = tmp_path / "outside"
    (outside / "empty").mkdir(parents=True)
    (outside / "tree").mkdir()
    (outside / "tree" / "leaf.txt").write_text("leaf")
    (outside / "victim.txt").write_text("keep me")
    before = snapshot(outside)
    source = ("import os, shutil\nfrom pathlib import Path\nfrom cardcheck import check_true\n"
              f"OUT = Path({str(outside)!r})\nPath('mine.txt').write_text('mine')\n"
              f"{ESCAPES[escape]}\ncheck_true('escaped', True)\n")
    name = "escape-" + escape.replace(" ", "-").replace(".", "-")
    result = run_snippet(job(snippets, name, source), snippets, server)
    assert not result.ok and result.line == 6, result.describe_failure()
    assert result.error.startswith("PermissionError: snippets may only "), result.error
    assert "inside their working directory" in result.error
    assert snapshot(outside) == before


def test_the_same_changes_inside_the_working_directory_are_allowed(snippets: Path) -> None:
    source = """import os, shutil, tempfile
from pathlib import Path
from cardcheck import check_true
Path('a.txt').write_text('a')
os.close(os.open('b.txt', os.O_WRONLY | os.O_CREAT))
os.rename('a.txt', 'c.txt')
os.replace('c.txt', 'b.txt')
os.link('b.txt', 'hard.txt')
os.symlink('b.txt', 'link.txt')
os.truncate('b.txt', 0)
os.remove('hard.txt')
os.makedirs('d/e')
os.rmdir('d/e')
Path('d/f.txt').write_text('f')
shutil.move('d', 'g')
shutil.rmtree('g')
with tempfile.NamedTemporaryFile('w') as handle:
    handle.write('scratch')
check_true('all done in the working directory', sorted(os.listdir('.')) == ['b.txt', 'link.txt'])
"""
    result = run_snippet(job(snippets, "tidy", source), snippets)
    assert result.ok, result.describe_failure()


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
    "swallowed": SWALLOWED,
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
