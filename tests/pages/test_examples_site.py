"""Worked examples in the built site: their pages, the links both ways, the download that runs as
it is, and a broken step that stops the build at its cell."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, Project, run_notebook

from eqcards.pages.examples import load_examples

pytestmark = pytest.mark.build

CARD_IDS = {p.stem for p in (ROOT / "docs" / "cards").glob("*.md")}
EXAMPLES = load_examples(ROOT / "docs" / "examples", CARD_IDS)
HREF = re.compile(r'href="([^"#]+)"')


def test_there_are_at_least_five_worked_examples() -> None:
    assert len(EXAMPLES) >= 5, [e.slug for e in EXAMPLES]


def test_the_examples_page_lists_every_example(built_site: Path) -> None:
    index = (built_site / "examples" / "index.html").read_text(encoding="utf-8")
    for example in EXAMPLES:
        assert f'href="{example.slug}/"' in index, example.slug


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.slug for e in EXAMPLES])
def test_an_example_page_is_the_executed_notebook_without_clutter(built_site: Path, example) -> None:
    page = (built_site / "examples" / example.slug / "index.html").read_text(encoding="utf-8")
    body = page[page.index('<article'):page.index('</article>')]
    assert "PASS " in body  # the checks ran and printed, cell by cell
    assert "<svg" in body  # formulas typeset at build time; figures inline
    assert not re.search(r"In&nbsp;\[|In\s*\[\s*\d*\s*\]:", body)  # no input prompts
    assert "mathjax" not in page.lower()  # no MathJax, no CDN
    # Code and printed output (and the copy button's copy of the code) may hold "$"; the prose may not.
    code = re.compile(r"<pre\b.*?</pre>|<div class=\"clipboard-copy-txt\"[^>]*>.*?</div>", re.S)
    prose = re.sub(r"<[^>]*>", " ", code.sub("", body))
    assert not re.search(r"\$[^$<>]{1,80}\$", prose.replace("\\$", "")), "raw TeX left in the prose"
    assert "EQCMATH" not in page
    for card_id in example.cards:
        assert f'href="../../cards/{card_id}/"' in body, card_id
    assert f'href="../downloads/{example.slug}.ipynb"' in page


def test_each_card_lists_the_examples_that_use_it(built_site: Path) -> None:
    for example in EXAMPLES:
        for card_id in example.cards:
            page = (built_site / "cards" / card_id / "index.html").read_text(encoding="utf-8")
            assert f'href="../../examples/{example.slug}/"' in page, (card_id, example.slug)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.slug for e in EXAMPLES])
def test_the_downloaded_notebook_runs_as_it_is(built_site: Path, example, tmp_path: Path) -> None:
    notebook = json.loads((built_site / "examples" / "downloads" / f"{example.slug}.ipynb").read_text())
    assert notebook["nbformat"] == 4
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert any(c["outputs"] for c in code)  # executed: it carries the build's outputs
    text = json.dumps(notebook)
    assert "../../cards/" not in text  # card links point at the site, not at a relative path
    result = run_notebook(notebook, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "PASS " in result.stdout and "FAIL" not in result.stdout


BROKEN = """# %% [markdown]
# # A broken example
#
# Its second step is wrong.

# %%
from cardcheck import check_close

# %%
check_close("one plus one", 1 + 1, 3)
"""


def test_a_broken_step_fails_the_build_with_its_example_line_and_cell(project: Project) -> None:
    folder = project.root / "docs" / "examples"
    folder.mkdir(parents=True)
    (folder / "broken.py").write_text(BROKEN, encoding="utf-8")
    result = project.build()
    assert result.returncode != 0
    expected = "docs/examples/broken.py:10 (cell 3): worked example failed: "
    assert expected in result.stderr, result.stderr[-3000:]
    (folder / "broken.py").write_text(BROKEN.replace("1 + 1, 3)", "1 + 1, 2)"), encoding="utf-8")
    fixed = project.build()
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    page = (project.root / "site" / "examples" / "broken" / "index.html").read_text(encoding="utf-8")
    assert "PASS  one plus one" in page
