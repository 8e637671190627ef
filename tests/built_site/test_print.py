"""The cheatsheet printed to PDF in headless Chromium: at most one A4 landscape page per 36 cards,
every topic at the top of a column and whole when it fits, typeset math, nothing clipped; each part
and each topic also prints on its own."""

from __future__ import annotations

import io
import math
import re
from collections import defaultdict

import pytest
import yaml
from browser_fixtures import Visit
from conftest import ROOT
from pypdf import PdfReader

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.seeds import read_index

pytestmark = pytest.mark.browser

CARDS_PER_PAGE = 36  # the budget: a printed page must carry this many cards on average
COLUMNS = 5  # the printed layout's column count (docs/stylesheets/cheatsheet.css)
PARTS = load_parts(ROOT / "docs" / "topics.yml")
TOPICS = [t for part in PARTS for t in part.topics]
CARDS = load_cards(ROOT / "docs" / "cards", TOPICS, read_index(ROOT / "seeds" / "entries.txt"),
                   ROOT / "snippets")
USED_TOPICS = [t for t in TOPICS if any(c.topic == t.id for c in CARDS)]
USED_PARTS = [p for p in PARTS if any(c.topic in {t.id for t in p.topics} for c in CARDS)]
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\\(|\\\[|\$\$")
A4_LANDSCAPE_POINTS = (841.9, 595.3)
A4_LANDSCAPE_CSS_PX = (1123, 794)


def budget(n_cards: int) -> int:
    return math.ceil(n_cards / CARDS_PER_PAGE)


def print_to_pdf(visit: Visit, url: str) -> tuple[PdfReader, list[str]]:
    """Open the page as a person would, lay it out for print on A4 landscape, then print.
    Returns the PDF and every formula that sticks out of its row in the print layout."""
    visit.page.set_viewport_size({"width": A4_LANDSCAPE_CSS_PX[0], "height": A4_LANDSCAPE_CSS_PX[1]})
    page = visit.open(url)
    page.emulate_media(media="print")
    clipped = page.evaluate("""() => [...document.querySelectorAll('.eqc-sheet-formula')].filter(cell => {
        const svg = cell.querySelector('.eqc-math > svg');  // the numbers rows hold plain text
        if (cell.scrollWidth > cell.clientWidth + 1) return true;
        if (!svg) return false;
        const c = cell.getBoundingClientRect(), s = svg.getBoundingClientRect();
        return s.width === 0 || s.height === 0 || s.right > c.right + 1 || s.left < c.left - 1;
    }).map(cell => cell.closest('.eqc-sheet-row').querySelector('.eqc-sheet-label').textContent)""")
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    return PdfReader(io.BytesIO(pdf)), clipped


def assert_clean_print(reader: PdfReader, clipped: list[str]) -> str:
    assert clipped == [], f"formulas wider than their column: {clipped}"
    box = reader.pages[0].mediabox
    size = (float(box.width), float(box.height))
    assert size == pytest.approx(A4_LANDSCAPE_POINTS, abs=1)
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert not RAW_TEX.search(text), f"raw TeX in the PDF: {RAW_TEX.search(text).group(0)!r}"
    assert "Search" not in text and "Table of contents" not in text  # no site chrome
    return text


def text_runs(reader: PdfReader) -> list[tuple[int, float, float, str]]:
    """(page, x, y, text) of every piece of text the PDF draws; y grows upwards."""
    runs = []
    for number, page in enumerate(reader.pages):
        def visit(text, cm, tm, font, size, number=number):
            if text.strip():
                runs.append((number, cm[4] + tm[4] * cm[0], cm[5] + tm[5] * cm[3], text.strip()))
        page.extract_text(visitor_text=visit)
    return runs


def test_whole_cheatsheet_prints_within_budget_topics_at_column_tops(visit: Visit, base_url: str) -> None:
    reader, clipped = print_to_pdf(visit, base_url + "cheatsheet/")
    text = assert_clean_print(reader, clipped)
    assert len(reader.pages) <= budget(len(CARDS)), (
        f"{len(CARDS)} cards print on {len(reader.pages)} pages; at most one page per {CARDS_PER_PAGE} "
        f"cards allows {budget(len(CARDS))}")
    for card in CARDS:
        if "$" not in card.cheatsheet.label:  # a label with math is typeset, not plain text
            assert card.cheatsheet.label.split()[0] in text, card.id
    runs = text_runs(reader)
    width = float(reader.pages[0].mediabox.width)
    left = min(x for _, x, _, _ in runs)
    column = (width - 2 * left) / COLUMNS
    # The first run of each topic heading, where the topic starts.
    titles = {t.title: t for t in USED_TOPICS}
    parts = {p.title for p in PARTS}
    starts = {}
    for page, x, y, s in runs:
        if s in titles and s not in starts:
            starts[s] = (page, x, y)
    assert set(starts) == set(titles), f"topics missing from the PDF: {set(titles) - set(starts)}"
    by_column = defaultdict(list)
    for page, x, y, s in runs:
        by_column[(page, int((x - left) // column))].append((y, s))
    for title, (page, x, y) in starts.items():
        above = [s for yy, s in by_column[(page, int((x - left) // column))]
                 if yy > y + 1 and s not in parts and s != "Cheatsheet"]
        assert above == [], f"topic {title!r} does not start at the top of its column: {above[:3]} above it"
    # A topic that fits on one page is never split: all its labels on its first page.
    label_pages = defaultdict(set)
    for page, _, _, s in runs:
        label_pages[s].add(page)
    label_count = defaultdict(int)
    for c in CARDS:
        label_count[c.cheatsheet.label] += 1
    # The numbers section prints after the cards; its labels can repeat a card's.
    numbers = {str(e["label"]) for e in yaml.safe_load((ROOT / "docs" / "numbers.yml").read_text())}
    others = set(titles) | parts | numbers
    for topic in USED_TOPICS:
        # Labels this topic alone uses, and that are no heading: where they print is where it is.
        members = [c for c in CARDS if c.topic == topic.id and "$" not in c.cheatsheet.label
                   and label_count[c.cheatsheet.label] == 1 and c.cheatsheet.label not in others]
        if len(members) <= 20:
            pages = {p for c in members for p in label_pages.get(c.cheatsheet.label, set())}
            assert pages <= {starts[topic.title][0]}, f"topic {topic.id} is split over pages {sorted(pages)}"


@pytest.mark.parametrize("part", USED_PARTS, ids=lambda p: p.id)
def test_each_part_prints_on_its_own(visit: Visit, base_url: str, part) -> None:
    reader, clipped = print_to_pdf(visit, base_url + f"cheatsheet/{part.id}/")
    text = assert_clean_print(reader, clipped)
    members = [c for c in CARDS if c.topic in {t.id for t in part.topics}]
    assert len(reader.pages) <= budget(len(members)) + 1, f"{part.id} prints on {len(reader.pages)} pages"
    assert part.title in text
    others = [p.title for p in PARTS if p is not part]
    assert not any(f"\n{t}\n" in f"\n{text}\n" for t in others), "another part's heading printed"


@pytest.mark.parametrize("topic", USED_TOPICS, ids=lambda t: t.id)
def test_each_topic_prints_on_one_page(visit: Visit, base_url: str, topic) -> None:
    reader, clipped = print_to_pdf(visit, base_url + f"cheatsheet/{topic.id}/")
    assert_clean_print(reader, clipped)
    assert len(reader.pages) == 1, f"{topic.id} prints on {len(reader.pages)} pages"
