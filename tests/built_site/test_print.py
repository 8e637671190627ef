"""The cheatsheet printed to PDF in headless Chromium and measured in the PDF: the whole sheet on at
most one A4 landscape page per 54 cards (7 for today's 378), topics following one another down the
columns so that every page but the last is at least two-thirds full, no heading alone at the foot of
a column, no row split, text and formulas at a legible size, typeset math, nothing clipped, and in
the margin of every page the site, release, date, address and page number. Each part prints on its
own, and each topic on one page in two columns."""

from __future__ import annotations

import io
import math
import re
from collections import defaultdict
from dataclasses import dataclass

import pytest
import yaml
from browser_fixtures import Visit
from conftest import ROOT
from pypdf import PdfReader

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.releases import load_releases
from eqcards.cards.seeds import read_index
from eqcards.pages.cheatsheet import PAGE_MARGINS_MM

pytestmark = pytest.mark.browser

CARDS_PER_PAGE = 54  # the budget: a printed page carries this many cards on average (378 cards: 7 pages)
COLUMNS = 3  # the printed layout's column count (docs/stylesheets/cheatsheet.css)
TOPIC_COLUMNS = 2  # a single topic's sheet prints larger, in this many columns
MIN_FILL = 2 / 3  # every page but the last is at least this full
MIN_TEXT_PT = 8.0  # labels and headings, as printed
# A formula wider than its column is scaled down to it, never below this: 5 pt at the sheet's 8.5 pt.
MIN_FORMULA_SCALE = 0.6
PARTS = load_parts(ROOT / "docs" / "topics.yml")
TOPICS = [t for part in PARTS for t in part.topics]
CARDS = load_cards(ROOT / "docs" / "cards", TOPICS, read_index(ROOT / "seeds" / "entries.txt"),
                   ROOT / "snippets")
RELEASE = load_releases(ROOT / "docs" / "releases.yml").current
USED_TOPICS = [t for t in TOPICS if any(c.topic == t.id for c in CARDS)]
USED_PARTS = [p for p in PARTS if any(c.topic in {t.id for t in p.topics} for c in CARDS)]
NUMBERS = {str(e["label"]) for e in yaml.safe_load((ROOT / "docs" / "numbers.yml").read_text())}
LABELS_AND_TITLES = {s.casefold() for s in [*(c.cheatsheet.label for c in CARDS), *NUMBERS,
                                             *(t.title for t in TOPICS), *(p.title for p in PARTS)]}
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\\(|\\\[|\$\$")
A4_LANDSCAPE_POINTS = (841.9, 595.3)
MM = 72 / 25.4  # PDF points per mm
CSS_PX_PER_MM = 96 / 25.4
TOP, SIDE, BOTTOM = (m * MM for m in PAGE_MARGINS_MM)


@dataclass(frozen=True)
class Mark:
    """Something drawn on a printed page: a piece of text (at its baseline) or a point of a path
    (the formulas are drawn as paths); y grows upwards, in PDF points."""

    page: int
    x: float
    y: float
    text: str | None = None  # None for a path
    size: float = 0.0  # the text's printed size in points


def marks(reader: PdfReader) -> list[Mark]:
    """Every piece of text and every point of every path the PDF draws, in page coordinates."""
    found: list[Mark] = []
    for number, page in enumerate(reader.pages):
        def text(value, cm, tm, font, size, number=number):
            if value.strip():
                found.append(Mark(number, cm[0] * tm[4] + cm[2] * tm[5] + cm[4],
                                  cm[1] * tm[4] + cm[3] * tm[5] + cm[5], value.strip(), size * tm[3] * cm[3]))

        def path(op, args, cm, tm, number=number):
            if op in (b"m", b"l", b"c", b"re"):  # moveto, lineto, curveto (its end), rectangle (its corner)
                x, y = (float(a) for a in (args[-2:] if op != b"re" else args[:2]))
                found.append(Mark(number, cm[0] * x + cm[2] * y + cm[4], cm[1] * x + cm[3] * y + cm[5]))
        page.extract_text(visitor_text=text, visitor_operand_before=path)
    return found


@dataclass
class Printout:
    reader: PdfReader
    marks: list[Mark]
    address: str  # where the page says it comes from: its canonical address, else the one it was read at
    clipped: list[str]  # labels of formulas that stick out of their row
    shrunk: list[tuple[str, float]]  # labels of formulas scaled below MIN_FORMULA_SCALE, and the scale
    rows: int  # how many rows the sheet has

    @property
    def height(self) -> float:
        return float(self.reader.pages[0].mediabox.height)

    @property
    def width(self) -> float:
        return float(self.reader.pages[0].mediabox.width)

    def in_sheet(self) -> list[Mark]:
        """What is drawn inside the page margins: the sheet itself."""
        return [m for m in self.marks if BOTTOM - 1 < m.y < self.height - TOP + 1]

    def margin_text(self, page: int) -> tuple[str, str]:
        """The text in the top and in the bottom margin of a page."""
        runs = [m for m in self.marks if m.page == page and m.text]
        return (" ".join(m.text for m in runs if m.y > self.height - TOP),
                " ".join(m.text for m in runs if m.y < BOTTOM))

    def column(self, mark: Mark, columns: int) -> int:
        return min(columns - 1, max(0, int((mark.x - SIDE) // ((self.width - 2 * SIDE) / columns))))

    def by_column(self, columns: int) -> dict[tuple[int, int], list[Mark]]:
        found = defaultdict(list)
        for m in self.in_sheet():
            found[(m.page, self.column(m, columns))].append(m)
        return found


# In print media, at the width of the printed page's text: formulas that stick out of their row,
# and how much each wider than its column is scaled down (its SVG is sized in ex of its font).
PRINT_PROBE = """() => [...document.querySelectorAll('.eqc-sheet-formula')].map(cell => {
    const label = cell.closest('.eqc-sheet-row').querySelector('.eqc-sheet-label').textContent;
    const svg = cell.querySelector('.eqc-math > svg');  // the numbers rows hold plain text
    if (cell.scrollWidth > cell.clientWidth + 1) return {label, clipped: true, scale: 1};
    if (!svg) return {label, clipped: false, scale: 1};
    const c = cell.getBoundingClientRect(), s = svg.getBoundingClientRect();
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;width:1ex;height:1ex';
    svg.parentElement.appendChild(probe);
    const ex = probe.getBoundingClientRect().width;
    probe.remove();
    return {label, scale: s.width / (parseFloat(svg.getAttribute('width')) * ex),
            clipped: s.width === 0 || s.height === 0 || s.right > c.right + 1 || s.left < c.left - 1};
})"""


def print_to_pdf(visit: Visit, url: str) -> Printout:
    """Open the page as a person would, then print it; before that, look at its print layout at the
    width of the printed page's text."""
    width = round((A4_LANDSCAPE_POINTS[0] / MM - 2 * PAGE_MARGINS_MM[1]) * CSS_PX_PER_MM)
    visit.page.set_viewport_size({"width": width, "height": 700})
    page = visit.open(url)
    canonical = page.locator("link[rel=canonical]")
    address = canonical.get_attribute("href") if canonical.count() else page.url
    page.emulate_media(media="print")
    cells = page.evaluate(PRINT_PROBE)
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    reader = PdfReader(io.BytesIO(pdf))
    return Printout(reader, marks(reader), address, [c["label"] for c in cells if c["clipped"]],
                    [(c["label"], round(c["scale"], 2)) for c in cells if c["scale"] < MIN_FORMULA_SCALE],
                    len(cells))


def assert_clean_print(out: Printout, title: str) -> str:
    """What every printed cheatsheet must be: A4 landscape, nothing clipped or too small, no TeX,
    no site chrome, and on every page what it is (site, title, release, date) and where it comes
    from (address), with its page number."""
    assert out.clipped == [], f"formulas wider than their column: {out.clipped}"
    assert out.shrunk == [], f"formulas printed below {MIN_FORMULA_SCALE:.0%} of their size: {out.shrunk}"
    assert (out.width, out.height) == pytest.approx(A4_LANDSCAPE_POINTS, abs=1)
    text = "\n".join(p.extract_text() for p in out.reader.pages)
    assert not RAW_TEX.search(text), f"raw TeX in the PDF: {RAW_TEX.search(text).group(0)!r}"
    assert "Search" not in text and "Table of contents" not in text  # no site chrome
    # Labels and headings (their sub- and superscripts, smaller by nature, are pieces of their own).
    named = [m for m in out.in_sheet() if m.text and m.text.casefold() in LABELS_AND_TITLES]
    assert len(named) >= out.rows / 2, "too few labels found in the PDF to judge their size"
    small = {m.text for m in named if m.size < MIN_TEXT_PT - 0.05}
    assert not small, f"text printed under {MIN_TEXT_PT} pt: {sorted(small)[:5]}"
    pages = len(out.reader.pages)
    for number in range(pages):
        top, bottom = out.margin_text(number)
        assert f"Equation Cards · {title}" in top, f"page {number + 1}'s top margin: {top!r}"
        if RELEASE is not None:
            assert f"release {RELEASE.version} of {RELEASE.date}" in top, top
        assert re.search(r"\b\d{4}-\d\d-\d\d\b", top), top
        assert out.address in bottom and f"page {number + 1} of {pages}" in bottom, \
            f"page {number + 1}'s bottom margin: {bottom!r}; expected {out.address!r}"
    return text


def assert_columns_start_at_their_top(out: Printout, columns: int) -> None:
    """A row is never split: no column starts with a formula whose label ended the column before.
    A column's first text is its first row's label (or a heading); a formula beside a label may rise
    above it by a line, one cut from its label would stand alone above the column's first text."""
    for (page, column), found in out.by_column(columns).items():
        texts = [m for m in found if m.text]
        assert texts, f"page {page + 1}, column {column + 1}: drawings but no text"
        first = max(texts, key=lambda m: m.y)
        highest = max(m.y for m in found)
        assert highest - first.y < 2 * first.size + 1, (
            f"page {page + 1}, column {column + 1} starts with a drawing {highest - first.y:.0f} pt above "
            f"its first text {first.text!r}: a row split from its label?")


def assert_no_heading_ends_a_column(out: Printout, columns: int, headings: set[str]) -> None:
    """A heading is followed, in its own column, by text: never alone at a column's foot."""
    by_column = out.by_column(columns)
    for (page, column), found in by_column.items():
        texts = [m for m in found if m.text]
        last = min(texts, key=lambda m: m.y)
        assert last.text.casefold() not in headings, \
            f"heading {last.text!r} ends column {column + 1} of page {page + 1}"


def fills(out: Printout, columns: int) -> list[float]:
    """How full each page is: the mean over its columns of the share of the column's height that
    holds something (down to the lowest text or path drawn in it)."""
    height = out.height - TOP - BOTTOM
    by_column = out.by_column(columns)
    return [sum((out.height - TOP - min(m.y for m in by_column[(page, c)])) / height
                for c in range(columns) if by_column[(page, c)]) / columns
            for page in range(len(out.reader.pages))]


def budget(n_cards: int) -> int:
    return math.ceil(n_cards / CARDS_PER_PAGE)


def headings(topics: list, parts: list) -> set[str]:
    """Printed heading texts, casefolded (part headings print in capitals); those that are also
    a row's label are left out, since they cannot be told apart in the PDF."""
    labels = {c.cheatsheet.label.casefold() for c in CARDS} | {n.casefold() for n in NUMBERS}
    return {t.title.casefold() for t in [*topics, *parts]} - labels


def test_whole_cheatsheet_prints_full_pages_within_budget(visit: Visit, base_url: str) -> None:
    out = print_to_pdf(visit, base_url + "cheatsheet/")
    text = assert_clean_print(out, "Cheatsheet")
    pages = len(out.reader.pages)
    assert pages <= budget(len(CARDS)), (
        f"{len(CARDS)} cards print on {pages} pages; at most one page per {CARDS_PER_PAGE} cards "
        f"allows {budget(len(CARDS))}")
    for card in CARDS:
        if "$" not in card.cheatsheet.label:  # a label with math is typeset, not plain text
            # A ^ or _ in a label prints as a raised or lowered script ("pass^k" as pass, then k).
            first = re.sub(r"[\^_{}]", "", card.cheatsheet.label.split()[0])
            assert first in text, card.id
    printed = {m.text.casefold() for m in out.in_sheet() if m.text}
    titles = {t.title for t in USED_TOPICS} | {p.title for p in USED_PARTS}
    assert not {t for t in titles if t.casefold() not in printed}, "a heading is missing or wraps"
    full = fills(out, COLUMNS)
    assert all(f >= MIN_FILL for f in full[:-1]), f"page fill {[round(f, 2) for f in full]}"
    assert_no_heading_ends_a_column(out, COLUMNS, headings(USED_TOPICS, USED_PARTS))
    assert_columns_start_at_their_top(out, COLUMNS)


@pytest.mark.parametrize("part", USED_PARTS, ids=lambda p: p.id)
def test_each_part_prints_on_its_own(visit: Visit, base_url: str, part) -> None:
    out = print_to_pdf(visit, base_url + f"cheatsheet/{part.id}/")
    text = assert_clean_print(out, f"Cheatsheet: {part.title}")
    members = [c for c in CARDS if c.topic in {t.id for t in part.topics}]
    assert len(out.reader.pages) <= budget(len(members)), f"{part.id} prints on {len(out.reader.pages)} pages"
    assert part.title.casefold() in text.casefold()
    others = [p.title for p in PARTS if p is not part]
    assert not any(f"\n{t}\n".casefold() in f"\n{text}\n".casefold() for t in others), \
        "another part's heading printed"
    full = fills(out, COLUMNS)
    assert all(f >= MIN_FILL for f in full[:-1]), f"page fill {[round(f, 2) for f in full]}"
    assert_no_heading_ends_a_column(out, COLUMNS, headings(list(part.topics), [part]))
    assert_columns_start_at_their_top(out, COLUMNS)


@pytest.mark.parametrize("topic", USED_TOPICS, ids=lambda t: t.id)
def test_each_topic_prints_on_one_page_in_columns(visit: Visit, base_url: str, topic) -> None:
    out = print_to_pdf(visit, base_url + f"cheatsheet/{topic.id}/")
    assert_clean_print(out, f"Cheatsheet: {topic.title}")
    assert len(out.reader.pages) == 1, f"{topic.id} prints on {len(out.reader.pages)} pages"
    members = [c for c in CARDS if c.topic == topic.id]
    used = {out.column(m, TOPIC_COLUMNS) for m in out.in_sheet() if m.text}
    assert len(used) == min(TOPIC_COLUMNS, len(members)), f"{topic.id} fills columns {sorted(used)}"
    assert_columns_start_at_their_top(out, TOPIC_COLUMNS)
