"""Each topic's cards in reading order: the order docs/topics.yml declares, then any card not yet
listed (a contributor adds a card by its two files alone), by title."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.errors import CardError
from .model import Card, Topic


def in_reading_order(topic: Topic, cards: Iterable[Card]) -> list[Card]:
    """The topic's cards: those its `cards` list names, in that order, then the rest by title.
    A listed id with no card of this topic is skipped here; `reading_order_problems` reports it."""
    members = {c.id: c for c in cards if c.topic == topic.id}
    listed = [members[card_id] for card_id, _ in topic.reading_order if card_id in members]
    named = {c.id for c in listed}
    rest = sorted((c for c in members.values() if c.id not in named),
                  key=lambda c: (c.title.casefold(), c.id))
    return listed + rest


def reading_order_problems(topics: Iterable[Topic], cards: Iterable[Card],
                           topics_file: Path) -> list[CardError]:
    """Every id a topic's reading order lists that is not a card of that topic, at its line."""
    topic_of = {c.id: c.topic for c in cards}
    errors = []
    for topic in topics:
        for card_id, line in topic.reading_order:
            if card_id not in topic_of:
                errors.append(CardError(topics_file, f"topic '{topic.id}' lists card '{card_id}', but no "
                                        f"card has that id (docs/cards/{card_id}.md): remove it or fix "
                                        "the id", line))
            elif topic_of[card_id] != topic.id:
                errors.append(CardError(topics_file, f"topic '{topic.id}' lists card '{card_id}', whose "
                                        f"topic is '{topic_of[card_id]}': move it to that topic's "
                                        "`cards` list", line))
    return errors
