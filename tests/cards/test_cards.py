"""Front-matter validation: good cards load, every kind of bad card names its file and line."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT, card_markdown

from eqcards.cards.load import load_cards, load_topics, parse_card
from eqcards.cards.seeds import read_index
from eqcards.core.errors import CardError, CardErrors

SEEDS = read_index(ROOT / "seeds" / "entries.txt")
TOPICS = load_topics(ROOT / "docs" / "topics.yml")
SOURCE = {"authors": "A", "year": 2000, "title": "T", "venue": "V"}


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
    # Unknown keys inside the nested mappings, each named with where it is.
    ({"symbols": [{"symbol": "P", "meaning": "m", "colour": "red"}]}, "colour: red",
     "unknown key 'colour' in 'symbols.0'; allowed: symbol, meaning"),
    ({"sources": [{**SOURCE, "doi": "10.1000/x", "pages": "1-2"}]}, "pages: 1-2",
     "unknown key 'pages' in 'sources.0'; allowed: authors, year, title, venue, doi, arxiv, url, locator"),
    ({"cheatsheet": {"label": "Entropy", "colour": "red"}}, "colour: red",
     "unknown key 'colour' in 'cheatsheet'; allowed: label, latex"),
    ({"errata": [{"seed": "handbook/1/Entropy", "note": "x", "colour": "red"}]}, "colour: red",
     "unknown key 'colour' in 'errata.0'; allowed: seed, note"),
    ({"mistakes": [{"note": "x", "source": "a blog"}]}, "source: a blog",
     "unknown key 'source' in 'mistakes.0'; allowed: note, where"),
    ({"mistakes": [{"where": "a blog"}]}, "- where: a blog", "missing required key 'note'"),
    ({"mistakes": []}, "mistakes: []", "'mistakes' must be a non-empty list"),
    # Links: each kind is checked against its own pattern.
    ({"sources": [{**SOURCE, "url": "ftp://example.org/paper.pdf"}]}, "url: ftp://",
     "'url: ftp://example.org/paper.pdf' is malformed (expected e.g. https://...)"),
    ({"sources": [{**SOURCE, "url": "www.example.org/paper"}]}, "url: www.",
     "'url: www.example.org/paper' is malformed"),
    ({"sources": [{**SOURCE, "arxiv": "arXiv:1706.03762"}]}, "arxiv: arXiv:",
     "'arxiv: arXiv:1706.03762' is malformed (expected e.g. 1706.03762)"),
    ({"sources": [{**SOURCE, "arxiv": "1706.03762", "doi": "10.48550"}]}, "doi: '10.48550'",
     "'doi: 10.48550' is malformed (expected e.g. 10.1214/aoms/1177729694)"),
    # Lists that must hold something.
    ({"symbols": []}, "symbols: []", "'symbols' must be a non-empty list"),
    ({"sources": []}, "sources: []", "'sources' must be a non-empty list"),
    # The timeout's bounds.
    ({"timeout": 601}, "timeout: 601", "'timeout' must be whole seconds from 1 to 600, got 601"),
    ({"timeout": 0}, "timeout: 0", "'timeout' must be whole seconds from 1 to 600, got 0"),
    ({"timeout": 30.5}, "timeout: 30.5", "'timeout' must be whole seconds from 1 to 600, got 30.5"),
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


@pytest.mark.parametrize("command", ["\\theta", "\\epsilon", "\\nabla", "\\beta", "\\Lambda", "\\frac"])
def test_tex_that_double_quoted_yaml_reads_as_an_escape_names_the_line(tmp_path: Path, command: str) -> None:
    """`"\\theta"` parses without error as a tab and "heta": the card would show it silently."""
    text = card_markdown().replace("summary: Average surprise of a distribution.\n",
                                   f'summary: "Average surprise\n  of ${command} x$."\n')
    assert f"${command} x$" in text
    with pytest.raises(CardError) as info:
        parse_card(write(tmp_path, text))
    assert info.value.message.startswith(f"`{command}` in a double-quoted string is a YAML escape, not TeX")
    assert "Double the backslash" in info.value.message
    assert info.value.line == line_of(text, "of $")
    doubled = text.replace(f"${command} x$", f"$\\{command} x$")
    assert parse_card(write(tmp_path, doubled)).summary == f"Average surprise of ${command} x$."


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


def test_the_timeout_ceiling_itself_is_allowed(tmp_path: Path) -> None:
    assert parse_card(write(tmp_path, card_markdown(timeout=600))).timeout == 600


def project_dirs(tmp_path: Path) -> tuple[Path, Path]:
    cards_dir, snippets = tmp_path / "cards", tmp_path / "snippets"
    cards_dir.mkdir()
    snippets.mkdir()
    return cards_dir, snippets


def add(cards_dir: Path, snippets: Path, card_id: str, **changes: object) -> Path:
    (snippets / f"{card_id}.py").write_text("")
    return write(cards_dir, card_markdown(id=card_id, snippet=f"{card_id}.py", **changes), f"{card_id}.md")


def test_a_card_related_to_itself_is_rejected(tmp_path: Path) -> None:
    cards_dir, snippets = project_dirs(tmp_path)
    path = add(cards_dir, snippets, "toy-entropy", related=["toy-entropy"])
    with pytest.raises(CardErrors) as info:
        load_cards(cards_dir, TOPICS, SEEDS, snippets)
    [error] = info.value.errors
    assert (error.path, error.message) == (path, "a card cannot be related to itself")
    assert error.line == line_of(path.read_text(), "- toy-entropy")


def bomb(levels: int) -> str:
    """A "billion laughs": each level is a list of nine aliases of the level before."""
    rows = ["laughs:", "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    rows += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(rows) + "\n"


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail, rather than hang for minutes, if the block takes longer than `seconds`."""
    def expire(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("levels", [9, 20])
def test_an_alias_bomb_is_rejected_at_once_with_file_and_line(tmp_path: Path, levels: int) -> None:
    text = card_markdown().replace("title: Toy entropy\n", "title: Toy entropy\n" + bomb(levels))
    path = write(tmp_path, text)
    with deadline(1.0), pytest.raises(CardError) as info:
        parse_card(path)
    assert info.value.path == path
    assert info.value.message.startswith("YAML anchors and aliases (&name, *name) are not allowed")
    assert info.value.line == line_of(text, "a0: &a0")


def test_anchors_and_aliases_are_rejected_in_known_fields_too(tmp_path: Path) -> None:
    text = card_markdown().replace("tags:\n- entropy\n", "tags: &t\n- entropy\n")
    text = text.replace("related: []\n", "related: *t\n")
    with pytest.raises(CardError, match="anchors and aliases") as info:
        parse_card(write(tmp_path, text))
    assert info.value.line == line_of(text, "tags: &t")


def test_deeply_nested_front_matter_is_an_error_not_a_crash(tmp_path: Path) -> None:
    text = card_markdown().replace("title: Toy entropy\n", "title: Toy entropy\ndeep: " + "[" * 5000
                                   + "]" * 5000 + "\n")
    with pytest.raises(CardError, match="nested too deeply"):
        parse_card(write(tmp_path, text))


def test_a_card_that_does_not_load_is_one_error_not_one_per_card_relating_to_it(tmp_path: Path) -> None:
    cards_dir, snippets = project_dirs(tmp_path)
    broken = add(cards_dir, snippets, "toy-entropy", colour="red")
    for name in ("toy-a", "toy-b", "toy-c"):
        add(cards_dir, snippets, name, related=["toy-entropy"])
    add(cards_dir, snippets, "toy-d", related=["toy-a", "no-such-card"])
    with pytest.raises(CardErrors) as info:
        load_cards(cards_dir, TOPICS, SEEDS, snippets)
    cause, unrelated = info.value.errors  # the cause, and a missing card that is one of its own
    assert cause.path == broken and cause.line == line_of(broken.read_text(), "colour: red")
    assert cause.message.startswith("unknown field 'colour'")
    assert cause.message.endswith("(so 3 cards relating to 'toy-entropy' cannot link to it: "
                                  "toy-a.md, toy-b.md, toy-c.md)")
    assert unrelated.message == "related card 'no-such-card' does not exist"


def test_a_bare_yaml_boolean_word_is_named_with_its_fix(tmp_path: Path) -> None:
    """An alias (or a calculator's name) written `off` arrives as False, not as the word: the error
    says why and what to write instead, at its line."""
    text = card_markdown().replace("- H(p)\n", "- H(p)\n- off\n")
    assert "- off\n" in text
    with pytest.raises(CardError) as info:
        parse_card(write(tmp_path, text))
    assert "got the boolean False" in info.value.message and "in quotes" in info.value.message
    assert info.value.line == line_of(text, "- off")
