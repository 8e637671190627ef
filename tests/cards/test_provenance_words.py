"""Card text a reader sees never speaks of the documents the site was built from (the seed handbook and
cheatsheet): a correction of one reads as a common mistake, and provenance is for the About page only."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from conftest import ROOT

from eqcards.cards.load import parse_card

# A mention of a source document, not the word in its other senses (a random seed, the seed nodes of
# Personalized PageRank, a seed vocabulary, a matrix row, a vector entry, an entry point).
DOCUMENT = re.compile(r"""
    \b(?:handbook|cheat[\s-]?sheet)s?\b
  | \b(?:the|this|that|each)\s+seed\b(?![\s-]+(?:distribution|vocabular|node|set|vector|value|specific))
  | \bseed's\b
  | \bthe\s+seeds\s+(?:give|write|say|state|cite|credit|leave|omit|use|print)\b
  | \bseed\s+(?:entr(?:y|ies)|tables?|rows?|documents?|forms?|formulas?|sources?)\b
  | \b(?:the|this|that)\s+(?:row|entry)(?:'s)?\s+(?:
        leaves|gives|writes|states|says|calls|credits|cites|attributes|presents|omits|reads|names
      | multiplies|joins|compares|equates|conditions|defines|prints|applies|takes|treats|drops|never
      | uses|shows|scores|packs|also|does\s+not|is\s+(?:labell?ed|titled|right|correct|wrong|this)
      | form|use\s+case)\b
  | \b(?:neighbou?ring|next|previous)\s+(?:row|entry)\b
""", re.IGNORECASE | re.VERBOSE)


@pytest.mark.parametrize("text", [
    "The seed gives only the noise form (Ho et al., Eq. 10).",
    "The row is labelled \"Softmax gradient\", but p − y is the gradient of the loss.",
    "The entry leaves G_w as \"n-grams of w\".",
    "The seed cites only Newman (2006).",
    "collapses to the policy given the single best memory, the seed's plug-in form.",
    "both seed tables have a row called \"Cosine schedule\".",
    "the handbook's seven-element tuple puts $\\gamma$ inside.",
    "Same as the cheatsheet row, the decay is the framework convention.",
    "With the LoRA shapes of the neighbouring entry a row vector x needs (BA)^T.",
    "The row's form is the PyTorch convention.",
    "The entry's use case, \"safer on-policy learning\", is an informal reading.",
    "tuning, so both seed entries land on this card.",
    "The row packs three facts. The entry is this factorization with the input x = (tool, context).",
])
def test_a_mention_of_a_source_document_is_found(text: str) -> None:
    assert DOCUMENT.search(text)


@pytest.mark.parametrize("text", [
    "The walk starts from the seed distribution $v$.",
    "Short paths from the seeds dominate; a hub attracts mass from any seed.",
    "push algorithms approximate PPR around a seed and surface seed-specific nodes.",
    "start from a large seed vocabulary; the result depends on the seed vocabulary.",
    "Distributed agents built on it (SEED RL) and off-policy variants.",
    "Use a seeded generator, or a fixed random seed; libraries differ (re-seeding).",
    "Read it one query row at a time. The row of $QK^\\top$ holds that query's dot products.",
    "the row is added to the token embedding before the first block.",
    "the row player's equilibrium mix comes from the column player's payoff matrix.",
    "running averages of the row sums and column sums; subtract the row maximum.",
    "the entry's own logit, and the entry of the token that actually follows.",
    "the current node of the walk (starting from the entry point).",
])
def test_other_senses_of_the_words_are_not_taken_for_a_document(text: str) -> None:
    assert not DOCUMENT.search(text)


def reader_texts() -> Iterator[tuple[str, str]]:
    """(where, text) for each card's errata notes, common-mistake notes, symbol meanings and body."""
    for path in sorted((ROOT / "docs" / "cards").glob("*.md")):
        card = parse_card(path)
        for i, erratum in enumerate(card.errata):
            yield f"{path.name}: errata[{i}].note", erratum.note
        for i, mistake in enumerate(card.mistakes):
            yield f"{path.name}: mistakes[{i}].note", mistake.note
            yield f"{path.name}: mistakes[{i}].where", mistake.where or ""
        for i, symbol in enumerate(card.symbols):
            yield f"{path.name}: symbols[{i}].meaning", symbol.meaning
        yield f"{path.name}: body", card.body


def test_no_card_speaks_of_the_documents_it_was_built_from() -> None:
    texts = list(reader_texts())
    assert sum(where.endswith("body") for where, _ in texts) > 350  # every card was read
    found = [f"{where}: …{text[max(m.start() - 40, 0):m.end() + 40]}…"
             for where, text in texts for m in DOCUMENT.finditer(text)]
    assert found == [], "write these as common mistakes, without naming the document:\n" + "\n".join(found)
