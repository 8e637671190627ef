"""In-code regions: parsed with their lines, blanked in the build's run with every line number kept,
malformed markers reported at their line, and a failing light mapping named with its version."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import job

from eqcards.snippets.regions import WHOLE, RegionError, blanked, in_code_regions, runnable
from eqcards.snippets.runner import run_snippet

SOURCE = """import numpy as np
x = 2.0
# --- in code: torch ---
import torch
y = torch.tensor(x)
# --- end in code ---
# --- in code: scipy ---
z = x
# --- end in code ---
print("after", x)
"""


def test_regions_are_parsed_with_their_marker_lines_and_code() -> None:
    torch, scipy = in_code_regions(SOURCE)
    assert (torch.library, torch.start, torch.end) == ("torch", 3, 6)
    assert torch.code == "import torch\ny = torch.tensor(x)"
    assert (scipy.library, scipy.start, scipy.end, scipy.code) == ("scipy", 7, 9, "z = x")
    assert torch.holds(4) and not torch.holds(7) and not torch.holds(None)


def test_blanking_empties_the_region_and_keeps_every_other_line_where_it_was() -> None:
    regions = in_code_regions(SOURCE)
    out = blanked(SOURCE, regions[:1])
    assert out.count("\n") == SOURCE.count("\n")
    before, after = SOURCE.splitlines(), out.splitlines()
    assert after[2:6] == ["", "", "", ""] and "torch" not in out
    assert [a for n, a in enumerate(after) if not 3 <= n + 1 <= 6] == \
        [b for n, b in enumerate(before) if not 3 <= n + 1 <= 6]


def test_the_build_blanks_heavy_regions_only_and_libcheck_runs_them_all(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WHOLE, raising=False)
    code, _ = runnable(SOURCE)
    assert "torch" not in code and "z = x" in code
    monkeypatch.setenv(WHOLE, "1")
    assert runnable(SOURCE)[0] == SOURCE


@pytest.mark.parametrize(("source", "line", "words"), [
    ("a = 1\n# --- in code: torch ---\nb = 2\n", 2, "never closed"),
    ("a = 1\n# --- end in code ---\n", 2, "closes no region"),
    ("# --- in code: torch ---\n# --- in code: jax ---\n# --- end in code ---\n", 2,
     "inside the region of line 1"),
    ("x = 1\n# --- in code torch ---\n", 2, "malformed marker"),
])
def test_a_malformed_marker_is_an_error_at_its_line(source: str, line: int, words: str) -> None:
    with pytest.raises(RegionError, match=words) as caught:
        in_code_regions(source)
    assert caught.value.line == line


def test_a_heavy_region_does_not_run_in_the_build_and_line_numbers_stay_the_snippets(snippets: Path) -> None:
    source = ("from cardcheck import check_true\n"
              "# --- in code: torch ---\n"
              "import torch_is_not_installed_here\n"
              "# --- end in code ---\n"
              "check_true('after the region', True)\n"
              "raise ValueError('line five')\n")
    result = run_snippet(job(snippets, "heavy", source), snippets)
    assert not result.ok and result.line == 6 and "line five" in result.error


def test_a_wrong_light_mapping_fails_naming_the_library_and_its_version(snippets: Path) -> None:
    from importlib import metadata

    source = ("import numpy as np\n"
              "from cardcheck import check_close\n"
              "from scipy.special import logsumexp\n"
              "x = np.array([1.0, 2.0, 3.0])\n"
              "check_close('log-sum-exp', np.log(np.sum(np.exp(x))), 3.40760596444438)\n"
              "# --- in code: scipy ---\n"
              "check_close('b=2 is not the card', logsumexp(x, b=2), np.log(np.sum(np.exp(x))))\n"
              "# --- end in code ---\n")
    result = run_snippet(job(snippets, "wrong", source), snippets)
    assert not result.ok and result.line == 7
    assert f"in code: scipy {metadata.version('scipy')} disagrees with the card" in result.error
    assert "snippets/wrong.py:7 failed: in code: scipy" in result.describe_failure(snippets.parent)


def test_a_failure_outside_the_regions_names_no_library(snippets: Path) -> None:
    source = ("from cardcheck import check_true\n"
              "# --- in code: scipy ---\n"
              "check_true('fine', True)\n"
              "# --- end in code ---\n"
              "check_true('the formula itself', False)\n")
    result = run_snippet(job(snippets, "formula", source), snippets)
    assert not result.ok and result.line == 5 and "in code" not in result.error


def test_every_library_the_build_runs_regions_of_is_pinned_in_its_requirements() -> None:
    from conftest import ROOT

    from eqcards.snippets.regions import BUILD_LIBRARIES

    pinned = {line.split("==")[0].strip().lower().replace("_", "-")
              for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
              if "==" in line and not line.startswith("#")}
    assert BUILD_LIBRARIES <= pinned, BUILD_LIBRARIES - pinned
