"""Front-matter validation: good cards load, every kind of bad card names its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, card_markdown

from eqcards.cards import load_cards, load_topics, parse_card
from eqcards.errors import CardError, CardErrors
from eqcards.seeds import read_index

SEEDS = read_index(ROOT / "seeds" / "entries.txt")
TOPICS = load_topics(ROOT / "docs" / "topics.yml")


def write(tmp_path: Path, text: str, name: str = "toy-entropy.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_card_loads_with_typed_fields(tmp_path: Path) -> None:
    card = parse_card(write(tmp_path, card_markdown()))
    assert card.id == "toy-entropy"
    assert card.sources[0].link == "https://doi.org/10.1002/j.1538-7305.1948.tb01338.x"
    assert card.timeout == 30
    assert card.body.strip() == "Some prose with $x$."


def line_of(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if marker in line)


@pytest.mark.parametrize(("changes", "marker", "fragment"), [
    ({"colour": "red"}, "colour:", "unknown field 'colour'"),
    ({"summary": None}, "id:", "missing required field 'summary'"),
    ({"equation": "   "}, "equation:", "'equation' must not be empty"),
    ({"id": "other-id"}, "id:", "differs from the file name"),
    ({"id": "Not_Kebab"}, "id:", "not a kebab-case id"),
    ({"aliases": "KL"}, "aliases:", "'aliases' must be a list"),
    ({"timeout": "long"}, "timeout:", "'timeout' must be whole seconds"),
    ({"symbols": [{"symbol": "P"}]}, "- symbol: P", "missing required key 'meaning'"),
    ({"sources": [{"authors": "A", "year": 2000, "title": "T", "venue": "V"}]}, "- authors: A",
     "needs a 'doi', an 'arxiv' id or a 'url'"),
    ({"sources": [{"authors": "A", "year": 2000, "title": "T", "venue": "V", "doi": "doi.org/10.1"}]},
     "doi: doi.org", "is malformed"),
    ({"sources": [{"authors": "A", "year": "recent", "title": "T", "venue": "V", "arxiv": "1706.03762"}]},
     "year: recent", "four-digit year"),
    ({"errata": [{"seed": "handbook/1/Perplexity", "note": "x"}]}, "- seed: handbook/1/Perplexity",
     "not one of this card's"),
])
def test_bad_front_matter_names_file_and_line(tmp_path: Path, changes: dict, marker: str,
                                               fragment: str) -> None:
    text = card_markdown(**changes)
    path = write(tmp_path, text)
    with pytest.raises(CardError) as info:
        parse_card(path)
    assert info.value.path == path
    assert fragment in info.value.message
    assert info.value.line == line_of(text, marker), str(info.value)


def test_not_yaml_reports_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "---\nid: toy-entropy\ntitle: [unclosed\nsummary: x\n---\n")
    with pytest.raises(CardError, match="not valid YAML") as info:
        parse_card(path)
    assert info.value.line in (3, 4)


def test_missing_front_matter_and_unclosed_front_matter(tmp_path: Path) -> None:
    with pytest.raises(CardError, match="must start with a '---'"):
        parse_card(write(tmp_path, "# just markdown\n"))
    with pytest.raises(CardError, match="never closed"):
        parse_card(write(tmp_path, "---\nid: toy-entropy\n"))


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    text = card_markdown().replace("title: Toy entropy\n", "title: Toy entropy\ntitle: Again\n")
    with pytest.raises(CardError, match="'title' appears twice") as info:
        parse_card(write(tmp_path, text))
    assert info.value.line == 4


def test_cross_card_checks_collect_every_error(tmp_path: Path) -> None:
    cards_dir = tmp_path / "cards"
    snippets = tmp_path / "snippets"
    cards_dir.mkdir()
    snippets.mkdir()
    write(cards_dir, card_markdown(related=["no-such-card"], topic="astrology",
                                   seeds=["handbook/1/Entropy", "handbook/99/Made up"]))
    with pytest.raises(CardErrors) as info:
        load_cards(cards_dir, TOPICS, SEEDS, snippets)
    messages = [e.message for e in info.value.errors]
    assert any("unknown topic 'astrology'" in m for m in messages)
    assert any("related card 'no-such-card' does not exist" in m for m in messages)
    assert any("'handbook/99/Made up' is not in the seed index" in m for m in messages)
    assert any("snippets/toy-entropy.py does not exist" in m for m in messages)
    assert all(e.line for e in info.value.errors)


def test_former_id_colliding_with_a_card_is_rejected(tmp_path: Path) -> None:
    cards_dir, snippets = tmp_path / "cards", tmp_path / "snippets"
    cards_dir.mkdir()
    snippets.mkdir()
    for card_id in ("toy-entropy", "toy-other"):
        (snippets / f"{card_id}.py").write_text("")
    write(cards_dir, card_markdown())
    write(cards_dir, card_markdown(id="toy-other", snippet="toy-other.py", former_ids=["toy-entropy"]),
          name="toy-other.md")
    with pytest.raises(CardErrors, match="former id 'toy-entropy' is already used"):
        load_cards(cards_dir, TOPICS, SEEDS, snippets)


def test_every_real_card_loads() -> None:
    cards = load_cards(ROOT / "docs" / "cards", TOPICS, SEEDS, ROOT / "snippets")
    assert len(cards) >= 20
    assert all(c.snippet == f"{c.id}.py" for c in cards)
