"""The downloadable notebook of a card runs as it is: helpers first, then the snippet."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, card_markdown, run_notebook

from eqcards.cards.load import parse_card
from eqcards.snippets.notebook import helper_sources, snippet_notebook


def test_notebook_of_a_real_card_runs_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "kl-divergence.md"
    path.write_text((ROOT / "docs" / "cards" / "kl-divergence.md").read_text(), encoding="utf-8")
    card = parse_card(path)
    snippet = ROOT / "snippets" / "kl-divergence.py"
    text = snippet_notebook(card, snippet.read_text(), helper_sources(snippet, ROOT / "snippets"),
                            "https://example.org/cards/kl-divergence/")
    notebook = json.loads(text)
    assert notebook["nbformat"] == 4 and notebook["cells"][0]["cell_type"] == "markdown"
    assert {c["id"] for c in notebook["cells"]} == {f"cell-{i}" for i in range(len(notebook["cells"]))}
    # Its torch mapping comes last, in cells of its own; the build's environment has no torch, so the
    # notebook runs up to them (tests/incode/ holds what those cells carry).
    heavy = next(i for i, c in enumerate(notebook["cells"])
                 if "".join(c["source"]).startswith("## In code: torch"))
    notebook["cells"] = notebook["cells"][:heavy]
    result = run_notebook(notebook, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "PASS  KL(P||Q) vs scipy.special.rel_entr" in result.stdout
    assert "PASS  pitfall: entropy(3P, Q) normalizes 3P back to P" in result.stdout  # the scipy cell


def test_notebook_title_cell_carries_the_equation(tmp_path: Path) -> None:
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(), encoding="utf-8")
    notebook = json.loads(snippet_notebook(parse_card(path), "print(1)\n", {}, "https://x.org/c/"))
    title = "".join(notebook["cells"][0]["source"])
    assert title.startswith("# Toy entropy") and "H(P) = -\\sum_x P(x) \\log P(x)" in title
