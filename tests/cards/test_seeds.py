"""The committed seed index matches the seed documents, and the first topic covers its seeds."""

from __future__ import annotations

import pytest
from conftest import ROOT

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.seeds import (
    SEEDS_ENV,
    cheatsheet_entries,
    handbook_entries,
    read_index,
    seed_entries,
    seeds_dir,
)
from eqcards.pages.numbers import load_numbers

SHARED_SEEDS = seeds_dir(ROOT)


def test_index_has_every_entry_of_both_documents() -> None:
    keys = (ROOT / "seeds" / "entries.txt").read_text().splitlines()
    assert len(keys) == len(set(keys)) == 363 + 101 + 22
    assert "cheatsheet/Gaussians/KL to $\\mathcal{N}(0,I)$" in keys  # bold markers removed


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(),
                    reason=f"no seed documents at {SHARED_SEEDS} (set {SEEDS_ENV}); "
                    "the other tests use the committed index seeds/entries.txt")
def test_committed_index_matches_the_seed_documents() -> None:
    assert seed_entries(SHARED_SEEDS) == (ROOT / "seeds" / "entries.txt").read_text().splitlines()


def test_parsers_on_small_documents() -> None:
    handbook = "## 1. Basics\n\n#### First thing\n\ntext\n\n## 2. More\n#### Second | thing\n"
    assert handbook_entries(handbook) == ["handbook/1/First thing", "handbook/2/Second | thing"]
    sheet = ("## Table A\n\n| Quantity | Formula |\n|---|---|\n| **Bold** | $a\\|b$ |\n| Plain | x |\n\n"
             "## Table B\n| Q | V |\n|---|---|\n| One | 1 |\n")
    assert cheatsheet_entries(sheet) == ["cheatsheet/Table A/Bold", "cheatsheet/Table A/Plain",
                                         "cheatsheet/Table B/One"]


def test_first_topic_realizes_handbook_section_1_and_the_information_theory_table() -> None:
    index = read_index(ROOT / "seeds" / "entries.txt")
    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"), index,
                       ROOT / "snippets")
    referenced = {seed for card in cards for seed in card.seeds}
    wanted = {k for k in index if k.startswith(("handbook/1/", "cheatsheet/Information theory/"))}
    assert len(wanted) == 16 + 8
    assert wanted - referenced == set()


def test_every_quick_numeric_reference_row_is_on_the_numbers_page() -> None:
    index = read_index(ROOT / "seeds" / "entries.txt")
    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"), index,
                       ROOT / "snippets")
    numbers = load_numbers(ROOT / "docs" / "numbers.yml", index, {c.id for c in cards}, ROOT / "snippets")
    wanted = {k for k in index if k.startswith("cheatsheet/Quick numeric reference/")}
    assert len(wanted) == 22
    assert {n.seed for n in numbers} == wanted
    assert all(n.snippet for n in numbers if n.kind == "computed")


def test_every_row_of_the_seed_cheatsheet_is_realized_by_a_card() -> None:
    index = read_index(ROOT / "seeds" / "entries.txt")
    cards = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"), index,
                       ROOT / "snippets")
    referenced = {seed for card in cards for seed in card.seeds}
    rows = {k for k in index if k.startswith("cheatsheet/") and "/Quick numeric reference/" not in k}
    assert len(rows) == 101
    assert sorted(rows - referenced) == []
