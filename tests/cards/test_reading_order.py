"""A topic's reading order: declared once in docs/topics.yml, with room for cards not yet listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, card_markdown

from eqcards.cards.load import load_cards, load_parts, parse_card
from eqcards.cards.reading_order import in_reading_order, reading_order_problems
from eqcards.cards.seeds import read_index
from eqcards.core.errors import CardError

TOPICS_YML = """\
- part: one
  title: Part one
  description: The first part.
  topics:
    - id: first
      title: First topic
      description: a
      cards:
        - zeta-card
        - beta-card
    - id: second
      title: Second topic
      description: b
"""


def toy_cards(tmp_path: Path, specs: list[tuple[str, str, str]]) -> list:
    out = []
    for card_id, topic, title in specs:
        path = tmp_path / f"{card_id}.md"
        path.write_text(card_markdown(id=card_id, topic=topic, title=title), encoding="utf-8")
        out.append(parse_card(path))
    return out


def test_declared_cards_come_first_then_the_unlisted_by_title(tmp_path: Path) -> None:
    topics_file = tmp_path / "topics.yml"
    topics_file.write_text(TOPICS_YML, encoding="utf-8")
    first = load_parts(topics_file)[0].topics[0]
    assert first.reading_order == (("zeta-card", 9), ("beta-card", 10))
    cards = toy_cards(tmp_path, [("alpha-card", "first", "Alpha"), ("beta-card", "first", "Beta"),
                                 ("new-card", "first", "Aardvark"), ("zeta-card", "first", "Zeta"),
                                 ("other-card", "second", "Other")])
    ordered = [c.id for c in in_reading_order(first, cards)]
    assert ordered == ["zeta-card", "beta-card", "new-card", "alpha-card"]
    assert reading_order_problems(load_parts(topics_file)[0].topics, cards, topics_file) == []


def test_a_listed_id_that_is_not_a_card_of_the_topic_fails_at_its_line(tmp_path: Path) -> None:
    topics_file = tmp_path / "topics.yml"
    topics_file.write_text(TOPICS_YML, encoding="utf-8")
    topics = load_parts(topics_file)[0].topics
    cards = toy_cards(tmp_path, [("beta-card", "second", "Beta")])  # zeta: no card; beta: another topic
    problems = reading_order_problems(topics, cards, topics_file)
    assert [(p.path, p.line) for p in problems] == [(topics_file, 9), (topics_file, 10)]
    assert "lists card 'zeta-card', but no card has that id" in problems[0].message
    assert "lists card 'beta-card', whose topic is 'second'" in problems[1].message
    # Only the listed ones are placed by the list; the missing one is skipped, not an exception.
    assert [c.id for c in in_reading_order(topics[1], cards)] == ["beta-card"]


def test_a_card_listed_twice_fails_at_its_second_line(tmp_path: Path) -> None:
    topics_file = tmp_path / "topics.yml"
    twice = TOPICS_YML.replace("        - beta-card\n", "        - zeta-card\n")
    topics_file.write_text(twice, encoding="utf-8")
    with pytest.raises(CardError) as error:
        load_parts(topics_file)
    assert error.value.line == 10 and "listed twice" in error.value.message


def test_the_sites_topics_list_every_card_once_in_its_own_topic() -> None:
    """The committed orders are complete: every card has a declared place (a new card may not have
    one yet, so this is a check of the file as committed, not a rule of the build)."""
    parts = load_parts(ROOT / "docs" / "topics.yml")
    topics = [t for p in parts for t in p.topics]
    cards = load_cards(ROOT / "docs" / "cards", topics, read_index(ROOT / "seeds" / "entries.txt"),
                       ROOT / "snippets")
    assert reading_order_problems(topics, cards, ROOT / "docs" / "topics.yml") == []
    listed = [card_id for t in topics for card_id, _ in t.reading_order]
    assert len(listed) == len(set(listed))
