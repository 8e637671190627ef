"""Fuzzing the front-matter loader: any file gives a card or one CardError, never a traceback."""

from __future__ import annotations

import signal
import tempfile
from pathlib import Path

import yaml
from conftest import VALID_CARD, card_markdown
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from eqcards.cards.load import parse_card
from eqcards.core.errors import CardError

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


def alias_bomb(levels: int, width: int) -> str:
    rows = [f"  a0: &a0 [{', '.join(['lol'] * width)}]"]
    rows += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return "\n".join(rows) + "\n"


@settings(max_examples=60, deadline=1000, phases=[Phase.explicit, Phase.generate])  # no shrinking:
# each failing example of a reintroduced bug takes the full second
@given(st.integers(1, 30), st.integers(1, 12), st.sampled_from(FIELD_NAMES), st.booleans())
def test_nested_aliases_are_rejected_at_once_at_their_line(levels: int, width: int, field: str,
                                                            first: bool) -> None:
    """A "billion laughs" of any depth and width, under any field, known or not, first or last:
    rejected at its first anchor, within hypothesis's one-second deadline."""
    bomb = f"{field}:\n{alias_bomb(levels, width)}"
    body = yaml.safe_dump({k: v for k, v in VALID_CARD.items() if k != field}, sort_keys=False)
    text = "---\n" + (bomb + body if first else body + bomb) + "---\n"
    line = text.splitlines().index("  a0: &a0 [" + ", ".join(["lol"] * width) + "]") + 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "toy-entropy.md"
        path.write_text(text, encoding="utf-8")
        signal.signal(signal.SIGALRM, expire)  # a hang (the bug) fails the test instead
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        try:
            parse_card(path)
        except CardError as exc:
            assert (exc.path, exc.line) == (path, line)
            assert exc.message.startswith("YAML anchors and aliases (&name, *name) are not allowed")
        else:
            raise AssertionError("a card with aliases loaded")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)


def expire(*_: object) -> None:
    raise TimeoutError("front matter with aliases still loading after 1 s")
