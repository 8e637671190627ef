"""Front matter `in_code:` against the snippet's regions, the libcheck ledger, the page section,
the notebook and the search field."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, card_markdown

from eqcards.cards.load import load_cards, load_topics, parse_card
from eqcards.cards.seeds import read_index
from eqcards.incode import ledger
from eqcards.incode.libraries import REQUIREMENTS, heavy_pins
from eqcards.incode.problems import in_code_problems
from eqcards.pages.in_code import render_in_code
from eqcards.pages.search import library_calls
from eqcards.snippets.jobs import SnippetJob, SnippetResult
from eqcards.snippets.notebook import helper_sources, snippet_notebook
from eqcards.snippets.regions import in_code_regions

ENTRIES = [{"library": "scipy", "call": "scipy.stats.entropy(P)", "differs": "normalizes P first"},
           {"library": "torch", "call": "torch.special.entr(P).sum()", "differs": "nothing",
            "fix": "none needed"}]
SNIPPET = """from cardcheck import check_true
check_true('formula', True)
# --- in code: scipy ---
check_true('scipy', True)
# --- end in code ---
# --- in code: torch ---
check_true('torch', True)
# --- end in code ---
"""
PINS = {"torch": "2.13.0"}
TOY = "toy-entropy"


def toy(tmp_path: Path, snippet: str = SNIPPET, entries: list[dict] = ENTRIES) -> tuple[Path, Path]:
    (tmp_path / "snippets").mkdir(exist_ok=True)
    (tmp_path / "snippets" / "toy-entropy.py").write_text(snippet, encoding="utf-8")
    card = tmp_path / "toy-entropy.md"
    card.write_text(card_markdown(in_code=entries), encoding="utf-8")
    return card, tmp_path / "snippets"


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_entries_and_regions_that_match_are_accepted(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path)
    parsed = parse_card(card)
    assert [e.library for e in parsed.in_code] == ["scipy", "torch"]
    assert parsed.in_code[1].fix == "none needed"
    assert in_code_problems([parsed], snippets, PINS) == []


def test_an_entry_without_a_region_fails_at_the_entrys_line(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path, snippet=SNIPPET.split("# --- in code: torch")[0])
    [problem] = in_code_problems([parse_card(card)], snippets, PINS)
    assert problem.path == card and problem.line == line_of(card, "library: torch")
    assert "'torch' has no region" in problem.message


def test_a_region_without_an_entry_fails_at_the_cards_in_code_line(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path, entries=ENTRIES[:1])
    [problem] = in_code_problems([parse_card(card)], snippets, PINS)
    assert problem.path == card and problem.line == line_of(card, "in_code:")
    assert "toy-entropy.py:6 checks torch" in problem.message


def test_a_region_of_an_unknown_library_fails_at_the_snippets_line(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path, snippet=SNIPPET.replace("in code: torch", "in code: pytorch"),
                         entries=ENTRIES[:1])
    [problem] = in_code_problems([parse_card(card)], snippets, PINS)
    assert problem.path == snippets / "toy-entropy.py" and problem.line == 6
    assert "'pytorch ---' names no library" in problem.message.replace("# --- in code: ", "'")


def test_an_entry_missing_its_call_names_the_line(tmp_path: Path) -> None:
    card, _ = toy(tmp_path, entries=[{"library": "scipy", "differs": "x"}])
    try:
        parse_card(card)
    except Exception as exc:
        assert "missing required key 'call'" in str(exc) and f":{line_of(card, 'library: scipy')}" in str(exc)
    else:
        raise AssertionError("an in_code entry without `call` loaded")


def test_the_ledger_says_a_changed_heavy_region_is_stale(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path)
    parsed = parse_card(card)
    [region] = [r for r in in_code_regions(SNIPPET)
                if r.library == "torch"]
    recorded = {"toy-entropy": {"torch": {"code": ledger.mapping_hash(SNIPPET, region),
                                          "versions": {"torch": "2.13.0"}, "outcome": ledger.AGREES}}}
    assert ledger.stale([parsed], snippets, recorded) == []
    (snippets / "toy-entropy.py").write_text(SNIPPET.replace("'torch', True", "'torch', 1 == 1"))
    [problem] = ledger.stale([parsed], snippets, recorded)
    assert problem.line == line_of(card, "library: torch")
    assert "torch mapping of snippets/toy-entropy.py has changed since `make libcheck`" in problem.message
    assert "run `make libcheck`" in problem.message


def test_a_changed_helper_module_makes_the_mapping_that_imports_it_stale(tmp_path: Path) -> None:
    """A fixture or model wrapper in snippets/lib/ feeds the heavy region as much as its own code."""
    card, snippets = toy(tmp_path)
    (snippets / "toy-entropy.py").write_text("from toy_table import P0\n" + SNIPPET)
    (snippets / "lib").mkdir(exist_ok=True)
    (snippets / "lib" / "toy_table.py").write_text("P0 = [0.5, 0.5]\n")
    parsed = parse_card(card)
    source = (snippets / "toy-entropy.py").read_text()
    [region] = [r for r in in_code_regions(source) if r.library == "torch"]
    helpers = ledger.helper_texts(snippets / "toy-entropy.py", snippets)
    assert helpers == {"toy_table.py": "P0 = [0.5, 0.5]\n"}
    recorded = {"toy-entropy": {"torch": {"code": ledger.mapping_hash(source, region, helpers),
                                          "versions": {"torch": "2.13.0"}, "outcome": ledger.AGREES}}}
    assert ledger.stale([parsed], snippets, recorded) == []
    (snippets / "lib" / "toy_table.py").write_text("P0 = [0.25, 0.75]\n")
    [problem] = ledger.stale([parsed], snippets, recorded)
    assert "torch mapping of snippets/toy-entropy.py has changed since `make libcheck`" in problem.message


def test_every_heavy_mapping_of_the_real_cards_is_current_in_the_ledger() -> None:
    """`make test` fails here when a torch/jax region, or the formula it checks, changed since
    `make libcheck` last ran it."""
    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                       read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")
    recorded = ledger.load(ROOT / "snippets" / ledger.LEDGER_FILE)
    problems = ledger.stale(cards, ROOT / "snippets", recorded)
    assert not problems, "\n".join(str(p) for p in problems)
    assert in_code_problems(cards, ROOT / "snippets", heavy_pins(ROOT / REQUIREMENTS)) == []
    assert recorded, "no heavy mapping recorded: the ledger should hold at least kl-divergence's torch"


def test_the_section_shows_call_difference_fix_code_and_where_it_was_checked(tmp_path: Path) -> None:
    card, snippets = toy(tmp_path)
    parsed = parse_card(card)
    result = SnippetResult(SnippetJob("toy-entropy", card, snippets / "toy-entropy.py"), ok=True)
    recorded = {"toy-entropy": {"torch": {"code": "old", "versions": {}, "outcome": ledger.AGREES}}}
    text = "\n".join(render_in_code(parsed, SNIPPET, result, ledger.statuses(SNIPPET, TOY, recorded)))
    assert "## In code" in text and "### scipy" in text and "`scipy.stats.entropy(P)`" in text
    assert "**Differs from the card:** normalizes P first" in text and "**Fix:** none needed" in text
    assert "Checked in this build (scipy " in text and "check_true('scipy', True)" in text
    assert "Not checked: changed since `make libcheck` last ran it" in text
    region = next(r for r in in_code_regions(SNIPPET)
                  if r.library == "torch")
    recorded["toy-entropy"]["torch"] = {"code": ledger.mapping_hash(SNIPPET, region),
                                        "versions": {"torch": "2.13.0"}, "outcome": ledger.AGREES}
    text = "\n".join(render_in_code(parsed, SNIPPET, result, ledger.statuses(SNIPPET, TOY, recorded)))
    assert "Checked against torch 2.13.0 by `make libcheck`" in text


def test_search_indexes_each_called_name_but_not_a_method_of_its_result(tmp_path: Path) -> None:
    card, _ = toy(tmp_path)
    assert library_calls(parse_card(card)) == ["scipy.stats.entropy", "torch.special.entr"]


def test_the_notebook_carries_each_mapping_in_a_cell_of_its_own_after_the_snippet(tmp_path: Path) -> None:
    """tests/snippets/test_notebook.py runs this notebook up to its torch cell."""
    path = tmp_path / "kl-divergence.md"
    path.write_text((ROOT / "docs" / "cards" / "kl-divergence.md").read_text(), encoding="utf-8")
    snippet = ROOT / "snippets" / "kl-divergence.py"
    notebook = json.loads(snippet_notebook(parse_card(path), snippet.read_text(),
                                           helper_sources(snippet, ROOT / "snippets"), "https://x.org/c/"))
    sources = ["".join(c["source"]) for c in notebook["cells"]]
    torch_at = sources.index(next(s for s in sources if s.startswith("## In code: torch")))
    assert sources[torch_at + 1].startswith("import torch")
    assert "F.kl_div(log_q, target" in sources[torch_at + 1]
    assert not any("import torch" in s for s in sources[:torch_at])
    scipy_at = sources.index(next(s for s in sources if s.startswith("## In code: scipy")))
    assert "entropy(3 * p, q)" in sources[scipy_at + 1] and scipy_at < torch_at
