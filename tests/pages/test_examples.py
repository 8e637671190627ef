"""Worked examples: the percent-format source, its run by the snippet runner (cell by cell, at the
example's own line numbers), the executed notebook, and formulas kept away from nbconvert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eqcards.core.errors import CardError, CardErrors
from eqcards.pages.examples import (
    FormulaTokens,
    cell_outputs,
    describe_failure,
    executed_notebook,
    job,
    load_examples,
    parse_example,
    runnable_source,
)
from eqcards.snippets.runner import run_snippet

SOURCE = """# %% [markdown]
# # Two numbers
#
# Adds them, with [the softmax card](../../cards/softmax/) for company.
#
# ## The sum $a_1 + b_2$

# %%
import matplotlib.pyplot as plt
from cardcheck import check_close

total = 1 + 2
print("total", total)

# %% [markdown]
# Checked against $$3 = 1 + 2$$ and [softmax](../../cards/softmax/) again.

# %%
check_close("the sum", total, 3)
fig, ax = plt.subplots()
ax.plot([0, 1], [0, total])
print("plotted")
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_source_parses_into_numbered_cells_at_their_lines(tmp_path: Path) -> None:
    example = parse_example(write(tmp_path, "two-numbers", SOURCE))
    assert [(c.kind, c.line, c.number) for c in example.cells] == [
        ("markdown", 1, 1), ("code", 8, 2), ("markdown", 15, 3), ("code", 18, 4)]
    assert example.title == "Two numbers"
    assert example.intro == "Adds them, with [the softmax card](../../cards/softmax/) for company."
    assert example.cells[0].source.startswith("# Two numbers\n\nAdds them")  # comment marks gone
    assert example.cards == ("softmax",)  # once, in order of first use
    assert example.cell_at(12).number == 2 and example.cell_at(20).number == 4


@pytest.mark.parametrize(("text", "line", "message"), [
    ("import numpy\n# %%\n", 1, "starts with a cell marker"),
    ("# %% [markdown]\n# # T\nnot a comment\n", 3, "every line of a markdown cell"),
    ("# %% [raw]\nx = 1\n", 1, "unknown cell marker"),
    ("# %% [markdown]\n# Title without a hash\n", 1, "opening with the title"),
])
def test_a_malformed_source_is_one_error_at_its_line(tmp_path: Path, text: str, line: int,
                                                    message: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_example(write(tmp_path, "bad", text))
    assert caught.value.line == line and message in caught.value.message


def test_a_link_to_a_missing_card_names_the_example_and_line(tmp_path: Path) -> None:
    write(tmp_path, "linker", SOURCE.replace("(../../cards/softmax/) again", "(../../cards/sofmax/) again"))
    write(tmp_path, "Bad_Name", SOURCE)
    with pytest.raises(CardErrors) as caught:
        load_examples(tmp_path, {"softmax"})
    messages = sorted(str(e) for e in caught.value.errors)
    assert any("Bad_Name.py" in m and "lower-case words" in m for m in messages)
    assert any(m.endswith("linker.py:16: links card 'sofmax', which does not exist") for m in messages)


def test_the_runnable_copy_keeps_every_line_where_it_was(tmp_path: Path) -> None:
    example = parse_example(write(tmp_path, "two-numbers", SOURCE))
    source, runnable = SOURCE.splitlines(), runnable_source(example).splitlines()
    assert len(runnable) == len(source) + 1  # the end mark comes after the last line
    for number, (before, after) in enumerate(zip(source, runnable, strict=False), start=1):
        if before.startswith("# %%"):
            assert after.endswith(before) and ".mark(" in after, number
        else:
            assert after == before, number


def test_the_run_gives_each_code_cell_its_own_text_and_figures(tmp_path: Path, snippets: Path) -> None:
    example = parse_example(write(tmp_path / "docs" / "examples", "two-numbers", SOURCE))
    result = run_snippet(job(example, tmp_path / "stage"), snippets)
    assert result.ok, result.error
    outputs = cell_outputs(result)
    assert outputs[2]["text"] == "total 3\n" and outputs[2]["figures"] == []
    assert outputs[4]["text"].startswith("PASS  the sum") and outputs[4]["text"].endswith("plotted\n")
    assert len(outputs[4]["figures"]) == 1 and outputs[4]["figures"][0].lstrip().startswith("<?xml")
    notebook = json.loads(executed_notebook(example, result, preamble=[("code", "%matplotlib inline")]))
    kinds = [(c["cell_type"], len(c.get("outputs", []))) for c in notebook["cells"]]
    assert kinds == [("code", 0), ("markdown", 0), ("code", 1), ("markdown", 0), ("code", 2)]
    assert notebook["cells"][4]["outputs"][1]["data"]["image/svg+xml"]


def test_a_failing_step_names_the_example_line_and_cell(tmp_path: Path, snippets: Path) -> None:
    root = tmp_path
    example = parse_example(write(root / "docs" / "examples", "two-numbers", SOURCE.replace(
        'check_close("the sum", total, 3)', 'check_close("the sum", total, 4)')))
    result = run_snippet(job(example, tmp_path / "stage"), snippets)
    assert not result.ok
    message = describe_failure(example, result, root)
    assert message.startswith("docs/examples/two-numbers.py:19 (cell 4): worked example failed: "), message


def test_inline_math_may_wrap_a_line_but_a_lone_dollar_is_text() -> None:
    tokens = FormulaTokens([])
    text = tokens.protect("MRR is $\\frac{1}{|Q|}\n\\sum_q r_q$ here; it costs $5 and $6.\n\n$a\n\nb$")
    assert tokens.formulas == [("\\frac{1}{|Q|}\n\\sum_q r_q", False)]
    assert text.endswith("it costs $5 and $6.\n\n$a\n\nb$")


def test_formulas_skip_markdown_and_come_back_as_arithmatex() -> None:
    tokens = FormulaTokens([])
    text = tokens.protect("Sum $a_1 * b_2$ is\n\n$$\\frac{x}{y} < 1$$\n\nnot \\$5 or $.")
    assert "_" not in text and "\\frac" not in text and "\\$5" in text
    html = f"<p>{text.split()[0]} {text.split()[1]}</p>\n<p>{text.split()[3]}</p>"
    restored = tokens.restore(html)
    assert '<span class="arithmatex">\\(a_1 * b_2\\)</span>' in restored
    assert '<div class="arithmatex">\\[\\frac{x}{y} &lt; 1\\]</div>' in restored
    assert "<p><div" not in restored
