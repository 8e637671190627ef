"""Fuzzing the front-matter loader: any file gives a card or one CardError, never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml
from conftest import VALID_CARD, card_markdown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eqcards.cards import parse_card
from eqcards.errors import CardError

FIELD_NAMES = [*VALID_CARD, "timeout", "former_ids", "errata", "unknown"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=20), st.dates())
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from([*FIELD_NAMES, "symbol", "meaning"]),
                                                 inner, max_size=3)), max_leaves=8)


def parse_text(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "toy-entropy.md"
        path.write_text(text, encoding="utf-8")
        try:
            parse_card(path)
        except CardError as exc:
            assert exc.path == path and exc.message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_arbitrary_text(text: str) -> None:
    parse_text(text)
    parse_text("---\n" + text + "\n---\nbody\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELD_NAMES), values, max_size=6))
def test_valid_card_with_fields_replaced(changes: dict) -> None:
    parse_text(card_markdown(**changes))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(VALID_CARD)), values)
def test_one_field_of_any_shape(name: str, value: object) -> None:
    try:
        text = card_markdown(**{name: value})
    except yaml.YAMLError:
        return
    parse_text(text)
