"""The bar every card is held to: its checks catch at least 90% of the deliberate errors that
`make mutants` puts in its formula, measured for the snippet as it is now by the current version of
the tool (the committed ledger, snippets/mutation-scores.json), and the whole site catches at least
95%. A formula with fewer than five mutants says why in its snippet (`# few mutants: <reason>`)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.seeds import read_index
from eqcards.mutants.mutation import MIN_MUTANTS, plan
from eqcards.mutants.mutation_ledger import LEDGER_NAME, measured, read_ledger

CARD_BAR = 0.90
SITE_BAR = 0.95
SNIPPETS = ROOT / "snippets"
CARDS = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                   read_index(ROOT / "seeds" / "entries.txt"), SNIPPETS)
LEDGER = read_ledger(SNIPPETS / LEDGER_NAME)
SCORES = {c.id: measured(c.id, SNIPPETS / c.snippet, SNIPPETS, LEDGER) for c in CARDS}


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.id)
def test_card_checks_catch_at_least_90_percent_of_mutants(card) -> None:
    score = SCORES[card.id]
    assert score is not None, (f"{card.id}: no mutation score for its snippet as it is now; run "
                               f"`.venv/bin/python scripts/mutants.py {card.id}` and commit {LEDGER_NAME}")
    assert score.tried > 0, f"{card.id}: no mutant was tried: is the formula region marked?"
    survivors = "\n".join(f"  {score.snippet}:{m['line']}: {m['diff']}" for m in score.of("survived"))
    assert score.score >= CARD_BAR, (f"{card.id}: the checks caught {score.killed} of {score.tried} "
                                     f"deliberate errors, under {CARD_BAR:.0%}; survivors:\n{survivors}")


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.id)
def test_card_has_five_mutants_or_says_why_it_has_fewer(card) -> None:
    score = SCORES[card.id]
    if score is None or score.tried >= MIN_MUTANTS:
        return  # unmeasured: the test above fails
    if score.few is None:
        path = SNIPPETS / card.snippet
        problem = plan(path.read_text(encoding="utf-8"), f"snippets/{card.snippet}").count_problem(
            f"snippets/{card.snippet}")
        pytest.fail(problem or f"snippets/{card.snippet}: {score.tried} mutants and no `# few mutants:` "
                               f"reason in the ledger; run `.venv/bin/python scripts/mutants.py {card.id}`")


def test_site_catches_at_least_95_percent_of_mutants() -> None:
    scores = [s for s in SCORES.values() if s is not None]
    killed, tried = sum(s.killed for s in scores), sum(s.tried for s in scores)
    assert tried and killed / tried >= SITE_BAR, f"site: {killed} of {tried} mutants caught"


def test_the_ledger_holds_no_card_that_does_not_exist() -> None:
    assert set(LEDGER) <= {c.id for c in CARDS}, set(LEDGER) - {c.id for c in CARDS}
