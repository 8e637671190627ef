"""Generated pages from metadata alone: cheatsheet, topic pages, errata, cards.json, safe markup."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import card_markdown

from eqcards.cards import parse_card
from eqcards.cheatsheet import render_cheatsheet
from eqcards.export import cards_json
from eqcards.model import Topic
from eqcards.pages import render_errata, render_topic_list

TOPICS = [Topic("second", "Second topic", "b", order=1), Topic("first", "First topic", "a", order=0),
          Topic("empty", "Empty topic", "c", order=2)]


def cards(tmp_path: Path) -> list:
    specs = [("zeta-card", "first", "Zeta", r"a|b"), ("alpha-card", "first", "Alpha", None),
             ("beta-card", "second", "Beta <script>", None)]
    out = []
    for card_id, topic, label, latex in specs:
        path = tmp_path / f"{card_id}.md"
        sheet = {"label": label, **({"latex": latex} if latex else {})}
        path.write_text(card_markdown(id=card_id, topic=topic, cheatsheet=sheet), encoding="utf-8")
        out.append(parse_card(path))
    return out


def test_cheatsheet_groups_by_topic_order_and_sorts_rows(tmp_path: Path) -> None:
    page = render_cheatsheet(cards(tmp_path), TOPICS)
    assert page.index("## First topic") < page.index("## Second topic")
    assert "Empty topic" not in page
    assert page.index("[Alpha](cards/alpha-card.md)") < page.index("[Zeta](cards/zeta-card.md)")
    assert r"$a\vert b$" in page  # a bare | would end the table cell
    assert "$H(P) = -\\sum_x P(x) \\log P(x)$" in page  # the equation when no short form is given
    assert "Beta &lt;script&gt;" in page and "<script>" not in page


def test_topic_list_counts_cards(tmp_path: Path) -> None:
    listing = render_topic_list(cards(tmp_path), TOPICS)
    assert "[First topic](topics/first.md) (2 cards)" in listing
    assert "Empty" not in listing


def test_errata_page_lists_corrections(tmp_path: Path) -> None:
    path = tmp_path / "fixed-card.md"
    path.write_text(card_markdown(id="fixed-card", errata=[{"seed": "handbook/1/Entropy",
                                                           "note": "the seed used $\\log_2$"}]))
    page = render_errata([parse_card(path), *cards(tmp_path)])
    assert "[Toy entropy](cards/fixed-card.md)" in page
    assert "`handbook/1/Entropy`: the seed used $\\log_2$" in page
    assert "zeta-card" not in page


def test_cards_json_fields(tmp_path: Path) -> None:
    data = json.loads(cards_json(cards(tmp_path), {}, "https://example.org/eq/"))
    first = data["cards"][0]
    assert first["id"] == "alpha-card"
    assert first["url"] == "https://example.org/eq/cards/alpha-card/"
    assert first["verification"] == {"status": "not-run", "checks": 0}
    assert set(first) >= {"title", "topic", "equation", "aliases", "sources", "snippet"}


def test_numbers_file_errors_name_the_line(tmp_path: Path) -> None:
    import pytest

    from eqcards.errors import CardError, CardErrors
    from eqcards.numbers import load_numbers

    path = tmp_path / "numbers.yml"
    path.write_text(
        "- id: one-nat\n  label: 1 nat\n  value: '1.4427'\n  unit: bits\n  kind: computed\n"
        "  note: n\n  seed: cheatsheet/Quick numeric reference/1 nat\n"
        "  sources: [{authors: A, year: 2000, title: T, venue: V, url: 'https://example.org'}]\n")
    with pytest.raises(CardErrors) as info:
        load_numbers(path, {"cheatsheet/Quick numeric reference/1 nat"}, set(), tmp_path)
    error: CardError = info.value.errors[0]
    assert "computed number needs a `snippet`" in error.message and error.line == 1


def test_glossary_lists_each_symbol_once_with_every_meaning(tmp_path: Path) -> None:
    from eqcards.pages import render_glossary

    first, second = tmp_path / "alpha-card.md", tmp_path / "beta-card.md"
    first.write_text(card_markdown(id="alpha-card", title="Alpha",
                                   symbols=[{"symbol": "\\beta", "meaning": "KL weight"}]))
    second.write_text(card_markdown(id="beta-card", title="Beta",
                                    symbols=[{"symbol": "\\beta ", "meaning": "Adam decay"},
                                             {"symbol": "x|y", "meaning": "conditional"}]))
    page = render_glossary([parse_card(first), parse_card(second)])
    row = next(line for line in page.splitlines() if line.startswith("| $\\beta$"))
    assert "KL weight ([Alpha](cards/alpha-card.md))" in row and "Adam decay" in row
    assert row.endswith("| 2 cards |")
    assert "| $x\\vert y$ |" in page
