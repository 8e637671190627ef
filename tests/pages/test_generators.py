"""Generated pages from metadata alone: cheatsheet, topic and part pages, indexes, tags, About, errata,
cards.json, safe markup."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.cards.model import Part, Topic
from eqcards.pages.card_index import letter, render_card_index, sort_key
from eqcards.pages.changelog import render_errata
from eqcards.pages.cheatsheet import Imprint, css_string, render_cheatsheet, render_topic_cheatsheet
from eqcards.pages.export import cards_json
from eqcards.pages.listings import render_part_page, render_topic_list, render_topic_page
from eqcards.pages.provenance import render_about, render_corrections, render_coverage, seed_realizers
from eqcards.pages.render import render_common_mistakes
from eqcards.pages.tags import (
    render_tag_page,
    render_tags_index,
    shared_tags,
    tag_links,
    tag_slug,
    tagged_cards,
)

TOPICS = [Topic("second", "Second topic", "b", order=1, part="one"),
          # Reading order: zeta before alpha (alpha-card is not listed: it comes after, by title).
          Topic("first", "First topic", "a", order=0, part="one", handbook=(1,),
                reading_order=(("zeta-card", 10),)),
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
    # A heading is its title alone (so is its anchor); the print link sits beside it, outside it.
    assert "\n## Part one\n" in page and "\n### First topic\n" in page
    assert '<a class="eqc-print-topic" href="one/">print this part</a>' in page
    assert '<a class="eqc-print-topic" href="first/">print this topic</a>' in page
    assert "Empty topic" not in page and "Part two" not in page
    # The part's heading opens its first topic's section, so that it prints with the topic's first row.
    first_section = page.index('<section class="eqc-sheet-topic"')
    assert first_section < page.index("## Part one") < page.index("### First topic")
    assert page.index("[Alpha](cards/alpha-card.md)") < page.index("[Zeta](cards/zeta-card.md)")
    assert r"$a\vert b$" in page  # a bare | would end the table cell
    assert "$H(P) = -\\sum_x P(x) \\log P(x)$" in page  # the equation when no short form is given
    assert "Beta &lt;script&gt;" in page and "<script>" not in page


def test_every_printed_cheatsheet_page_says_what_and_whence_it_is(tmp_path: Path) -> None:
    imprint = Imprint("Equation Cards", "2026-12-10", "1.0.0", "2026-12-02", "https://example.org/eq/")
    page = render_topic_cheatsheet(TOPICS[1], cards(tmp_path), imprint)
    style = page[page.index("<style>@page"):page.index("</style>")]
    assert '@top-left { content: "Equation Cards · Cheatsheet: First topic"; }' in style
    assert '@top-right { content: "release 1.0.0 of 2026-12-02, edition of 2026-12-10"; }' in style
    assert '@bottom-left { content: "https://example.org/eq/cheatsheet/first/"; }' in style
    assert 'counter(page) " of " counter(pages)' in style
    assert "data-print-address" not in page  # the address is known: no script needs to fill it in
    # With no public address, the page's own address is printed, filled in where it is read.
    local = render_cheatsheet(cards(tmp_path), PARTS, imprint=Imprint("Equation Cards", "2026-12-02", "1.0.0",
                                                                       "2026-12-02"))
    assert "@bottom-left" not in local and "data-print-address" in local
    assert '"release 1.0.0 of 2026-12-02"' in local
    assert Imprint("S", "2026-12-02").version() == "edition of 2026-12-02"


def test_css_string_cannot_end_its_string_or_the_style_element() -> None:
    assert css_string('a "b" \\ </style>\n') == r'"a \"b\" \\ \3C /style> "'


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
    # Each topic's cards in its reading order, declared (zeta) before undeclared (alpha).
    assert page.index("(../../cards/zeta-card.md)") < page.index("(../../cards/alpha-card.md)")


def test_topic_page_follows_the_reading_order_under_a_breadcrumb(tmp_path: Path) -> None:
    page = render_topic_page(TOPICS[1], PARTS[0], cards(tmp_path))
    assert ('<nav class="eqc-breadcrumb" aria-label="Breadcrumb"><ol><li><a href="../../parts/one/">'
            'Part one</a></li><li aria-current="page">First topic</li></ol></nav>') in page
    assert page.index("(../cards/zeta-card.md)") < page.index("(../cards/alpha-card.md)")
    assert "beta-card" not in page and "2 cards, in reading order" in page


def test_card_index_files_titles_by_letter_with_greek_spelled_out(tmp_path: Path) -> None:
    assert sort_key("λ-return") == "lamda-return" and letter("λ-return") == "L"
    assert letter("Élan") == "E" and letter("pass@k") == "P" and letter("2-norm") == "#"
    page = render_card_index(cards(tmp_path))
    bar = next(line for line in page.splitlines() if line.startswith('<nav class="eqc-letters"'))
    assert bar == '<nav class="eqc-letters" aria-label="Letters"><a href="#t">T</a></nav>'
    assert "## T { #t }" in page and page.count("<li markdown>") == 3
    assert '<span class="eqc-az-summary">Average surprise of a distribution.</span>' in page


def test_tags_have_pages_and_links(tmp_path: Path) -> None:
    assert tag_slug("Reinforcement Learning") == "reinforcement-learning"
    assert tag_slug("KL / divergence") == "kl-divergence"
    tags = tagged_cards(cards(tmp_path))  # the toy cards share their title: then by id
    assert list(tags) == ["entropy"]
    assert [c.id for c in tags["entropy"][1]] == ["alpha-card", "beta-card", "zeta-card"]
    assert tag_links(cards(tmp_path)[0], tags) == [("entropy", "tags/entropy/")]
    page = render_tag_page("entropy", tags["entropy"][1])
    assert "# Tag: entropy" in page and page.count("](../cards/") == 3
    # A tag of one card gets no page: the card shows it as a word, the index links to the card.
    alone = tagged_cards(cards(tmp_path)[:1])
    assert shared_tags(alone) == {} and shared_tags(tags) == tags
    assert tag_links(cards(tmp_path)[0], alone) == [("entropy", None)]
    assert f"- [entropy](../cards/{alone['entropy'][1][0].id}.md)" in render_tags_index(alone)
    assert "- [entropy](entropy.md)" in render_tags_index(tags)


def test_coverage_lists_every_seed_entry_with_its_card_or_not_yet(tmp_path: Path) -> None:
    found = seed_realizers(cards(tmp_path))  # every toy card realizes handbook/1/Entropy
    page = render_coverage(found, SEED_KEYS, TOPICS)
    assert "- **Handbook**: 1 of 3 entries covered, 2 not yet." in page
    assert "- **Cheatsheet**: 0 of 1 entries covered, 1 not yet." in page
    assert "### Section 1: First topic (1 of 2)" in page and "### Section 2 (0 of 1)" in page
    entropy = next(line for line in page.splitlines() if line.startswith("| Entropy |"))
    assert "(cards/alpha-card.md)" in entropy and "(cards/zeta-card.md)" in entropy
    assert "| Perplexity | *not yet* |" in page and "| Dropout | *not yet* |" in page
    about = render_about(cards(tmp_path), found, SEED_KEYS, has_numbers=False)
    assert "- **Handbook**: 1 of its 3 entries are realized by a card." in about
    assert "- **Cheatsheet**: 0 of its 1 rows are realized." in about and "numbers" not in about
    assert "[coverage table](../coverage.md)" in about and "[the corrections](corrections.md)" in about


def test_corrections_to_the_seed_documents_are_listed_under_about(tmp_path: Path) -> None:
    path = tmp_path / "fixed-card.md"
    path.write_text(card_markdown(id="fixed-card", errata=[{"seed": "handbook/1/Entropy",
                                                           "note": "the seed used $\\log_2$"}]))
    page = render_corrections([parse_card(path), *cards(tmp_path)])
    assert "## [Toy entropy](../cards/fixed-card.md)" in page
    assert "`handbook/1/Entropy`: the seed used $\\log_2$" in page
    assert "zeta-card" not in page
    # The site's own errata are its cards' history, not these corrections.
    assert "fixed-card" not in render_errata([parse_card(path)])


def test_errata_page_lists_the_sites_own_changes_newest_first(tmp_path: Path) -> None:
    path = tmp_path / "changed-card.md"
    history = [{"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in the source."},
               {"release": "1.2.0", "date": "2027-01-10", "note": "Sum over $t$."}]
    path.write_text(card_markdown(id="changed-card", history=history))
    page = render_errata([parse_card(path), *cards(tmp_path)])
    assert page.index("- 2027-01-10, release 1.2.0: [Toy entropy](cards/changed-card.md): Sum over $t$.") \
        < page.index("- 2026-12-04, release 1.1.0: [Toy entropy](cards/changed-card.md): Natural log")
    assert "seed" not in page.lower()
    assert "No card has changed since it was released." in render_errata(cards(tmp_path))


def test_a_card_shows_its_errata_and_mistakes_as_common_mistakes_without_naming_seeds(tmp_path: Path) -> None:
    path = tmp_path / "fixed-card.md"
    errata = [{"seed": "handbook/1/Entropy", "note": "uses $\\log_2$"}]
    path.write_text(card_markdown(id="fixed-card", errata=errata,
                                  mistakes=[{"note": "drops the minus", "where": "a popular blog post"},
                                            {"note": "sums over $t$"}]))
    block = render_common_mistakes(parse_card(path))
    assert block[1] == '!!! warning "Common mistakes"'
    assert block[3:] == ["    - uses $\\log_2$", "    - drops the minus *(Found in a popular blog post.)*",
                         "    - sums over $t$"]
    assert "handbook" not in "\n".join(block) and "seed" not in "\n".join(block).lower()
    assert render_common_mistakes(cards(tmp_path)[0]) == []


def test_stars_in_a_note_stay_stars_not_emphasis(tmp_path: Path) -> None:
    """Two starred symbols in one plain-text note ('at λ* ... below λ*') must not become italics."""
    path = tmp_path / "starred.md"
    path.write_text(card_markdown(id="starred", errata=[{"seed": "handbook/1/Entropy",
                                                        "note": "at λ* exact; below λ* with $x^*$"}]))
    page = render_corrections([parse_card(path)])
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
