"""Generated pages from metadata alone: cheatsheet, topic pages, errata, cards.json, safe markup."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.cards.model import Part, Topic
from eqcards.pages.cheatsheet import render_cheatsheet
from eqcards.pages.export import cards_json
from eqcards.pages.listings import (
    render_coverage,
    render_coverage_summary,
    render_errata,
    render_part_page,
    render_topic_list,
    seed_realizers,
)

TOPICS = [Topic("second", "Second topic", "b", order=1, part="one"),
          Topic("first", "First topic", "a", order=0, part="one", handbook=(1,)),
          Topic("empty", "Empty topic", "c", order=2, part="two")]
PARTS = [Part("one", "Part one", "The first part.", (TOPICS[1], TOPICS[0])),
         Part("two", "Part two", "Nothing yet.", (TOPICS[2],))]
SEED_KEYS = ["handbook/1/Entropy", "handbook/1/Perplexity", "handbook/2/Dropout",
             "cheatsheet/Information theory/Entropy"]


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


def test_cheatsheet_groups_by_part_and_topic_order_and_sorts_rows(tmp_path: Path) -> None:
    page = render_cheatsheet(cards(tmp_path), PARTS)
    assert page.index("## Part one") < page.index("### First topic") < page.index("### Second topic")
    assert '<a class="eqc-print-topic" href="one/">print this part</a>' in page
    assert '<a class="eqc-print-topic" href="first/">print this topic</a>' in page
    assert "Empty topic" not in page and "Part two" not in page
    # The part's heading opens its first topic's section, so it prints at the top of that column.
    first_section = page.index('<section class="eqc-sheet-topic"')
    assert first_section < page.index("## Part one") < page.index("### First topic")
    assert page.index("[Alpha](cards/alpha-card.md)") < page.index("[Zeta](cards/zeta-card.md)")
    assert r"$a\vert b$" in page  # a bare | would end the table cell
    assert "$H(P) = -\\sum_x P(x) \\log P(x)$" in page  # the equation when no short form is given
    assert "Beta &lt;script&gt;" in page and "<script>" not in page


def test_topic_list_counts_cards_by_part(tmp_path: Path) -> None:
    listing = render_topic_list(cards(tmp_path), PARTS)
    assert "### [Part one](parts/one/index.md) (3 cards)" in listing
    assert "[First topic](topics/first.md) (2 cards)" in listing
    assert listing.index("First topic") < listing.index("Second topic")
    assert "Empty" not in listing and "Part two" not in listing


def test_part_page_lists_its_topics_with_counts_and_descriptions(tmp_path: Path) -> None:
    page = render_part_page(PARTS[0], cards(tmp_path))
    assert "3 cards in 2 topics." in page
    assert "## [First topic](../../topics/first.md)" in page and "2 cards. a" in page
    assert "1 card. b" in page
    assert page.index("First topic") < page.index("Second topic")


def test_coverage_lists_every_seed_entry_with_its_card_or_not_yet(tmp_path: Path) -> None:
    found = seed_realizers(cards(tmp_path))  # every toy card realizes handbook/1/Entropy
    page = render_coverage(found, SEED_KEYS, TOPICS)
    assert "- **Handbook**: 1 of 3 entries covered, 2 not yet." in page
    assert "- **Cheatsheet**: 0 of 1 entries covered, 1 not yet." in page
    assert "### Section 1: First topic (1 of 2)" in page and "### Section 2 (0 of 1)" in page
    entropy = next(line for line in page.splitlines() if line.startswith("| Entropy |"))
    assert "(cards/alpha-card.md)" in entropy and "(cards/zeta-card.md)" in entropy
    assert "| Perplexity | *not yet* |" in page and "| Dropout | *not yet* |" in page
    summary = render_coverage_summary(cards(tmp_path), found, SEED_KEYS, has_numbers=False)
    assert "**1 of the 3** entries of the seed handbook" in summary and "numbers" not in summary


def test_errata_page_lists_corrections(tmp_path: Path) -> None:
    path = tmp_path / "fixed-card.md"
    path.write_text(card_markdown(id="fixed-card", errata=[{"seed": "handbook/1/Entropy",
                                                           "note": "the seed used $\\log_2$"}]))
    page = render_errata([parse_card(path), *cards(tmp_path)])
    assert "[Toy entropy](cards/fixed-card.md)" in page
    assert "`handbook/1/Entropy`: the seed used $\\log_2$" in page
    assert "zeta-card" not in page


def test_stars_in_a_note_stay_stars_not_emphasis(tmp_path: Path) -> None:
    """Two starred symbols in one plain-text note ('at λ* ... below λ*') must not become italics."""
    path = tmp_path / "starred.md"
    path.write_text(card_markdown(id="starred", errata=[{"seed": "handbook/1/Entropy",
                                                        "note": "at λ* exact; below λ* with $x^*$"}]))
    page = render_errata([parse_card(path)])
    assert "at λ\\* exact; below λ\\* with $x^*$" in page


def test_cards_json_fields(tmp_path: Path) -> None:
    data = json.loads(cards_json(cards(tmp_path), {}, "https://example.org/eq/"))
    first = data["cards"][0]
    assert first["id"] == "alpha-card"
    assert first["url"] == "https://example.org/eq/cards/alpha-card/"
    assert first["verification"] == {"status": "not-run", "checks": 0, "mutation": {"measured": False}}
    assert set(first) >= {"title", "topic", "equation", "aliases", "sources", "snippet"}


def test_numbers_file_errors_name_the_line(tmp_path: Path) -> None:
    import pytest

    from eqcards.core.errors import CardError, CardErrors
    from eqcards.pages.numbers import load_numbers

    path = tmp_path / "numbers.yml"
    path.write_text(
        "- id: one-nat\n  label: 1 nat\n  value: '1.4427'\n  unit: bits\n  kind: computed\n"
        "  note: n\n  seed: cheatsheet/Quick numeric reference/1 nat\n"
        "  sources: [{authors: A, year: 2000, title: T, venue: V, url: 'https://example.org'}]\n")
    with pytest.raises(CardErrors) as info:
        load_numbers(path, {"cheatsheet/Quick numeric reference/1 nat"}, set(), tmp_path)
    error: CardError = info.value.errors[0]
    assert "computed number needs a `snippet`" in error.message and error.line == 1


def test_a_bar_in_a_table_cell_stays_a_bar_in_prose_and_in_math() -> None:
    """A '|' would end a Markdown table cell. Escaped as \\| it is right in prose, but inside math
    TeX reads \\| as the double bar of a norm: |w| would be typeset as a norm. A bar that ends the
    math is not followed by a space: arithmatex reads no span that ends in a space as math."""
    from eqcards.pages.markup import cell

    assert cell("absolute value $|w|$ of a|b") == r"absolute value $\vert w\vert$ of a\|b"
    assert cell(r"norm $\|x\|_2$") == r"norm $\Vert x\Vert_2$"
    assert (cell(r"grid step $\max|w| / 2^{N-1}$, prose a|b")
            == r"grid step $\max\vert w\vert / 2^{N-1}$, prose a\|b")
