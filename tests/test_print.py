"""The cheatsheet printed to PDF in headless Chromium: page budget, typeset math, no overflow."""

from __future__ import annotations

import io
import json
import re

import pytest
from browser_fixtures import Visit
from conftest import ROOT
from pypdf import PdfReader

from eqcards.cards import load_cards, load_topics
from eqcards.seeds import read_index

pytestmark = pytest.mark.browser

BUDGET = json.loads((ROOT / "tests" / "print_budget.json").read_text())
TOPICS = load_topics(ROOT / "docs" / "topics.yml")
CARDS = load_cards(ROOT / "docs" / "cards", TOPICS, read_index(ROOT / "seeds" / "entries.txt"),
                   ROOT / "snippets")
USED_TOPICS = [t for t in TOPICS if any(c.topic == t.id for c in CARDS)]
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\\(|\\\[|\$\$")
A4_LANDSCAPE_POINTS = (841.9, 595.3)


def print_to_pdf(visit: Visit, url: str) -> tuple[PdfReader, int]:
    """Open the page as a person would, switch to print media, then print. Returns the PDF and
    how many formulas were wider than their column in the print layout."""
    page = visit.open(url)
    page.emulate_media(media="print")
    page.evaluate("() => window.eqcFitFormulas()")
    overflowing = page.evaluate("""() => [...document.querySelectorAll('.eqc-sheet-formula')]
        .filter(cell => cell.scrollWidth > cell.clientWidth + 1).length""")
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    return PdfReader(io.BytesIO(pdf)), overflowing


def assert_clean_print(reader: PdfReader, overflowing: int) -> str:
    assert overflowing == 0, f"{overflowing} formulas are wider than their column"
    box = reader.pages[0].mediabox
    size = (float(box.width), float(box.height))
    assert size == pytest.approx(A4_LANDSCAPE_POINTS, abs=1)
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert not RAW_TEX.search(text), f"raw TeX in the PDF: {RAW_TEX.search(text).group(0)!r}"
    assert "Search" not in text and "Table of contents" not in text  # no site chrome
    return text


def test_whole_cheatsheet_prints_within_budget(visit: Visit, base_url: str) -> None:
    reader, overflowing = print_to_pdf(visit, base_url + "cheatsheet/")
    text = assert_clean_print(reader, overflowing)
    assert len(reader.pages) <= BUDGET["cheatsheet"], (
        f"the cheatsheet prints on {len(reader.pages)} pages, budget {BUDGET['cheatsheet']}")
    for card in CARDS:
        if "$" not in card.cheatsheet.label:  # a label with math is typeset, not plain text
            assert card.cheatsheet.label.split()[0] in text, card.id


@pytest.mark.parametrize("topic", USED_TOPICS, ids=lambda t: t.id)
def test_each_topic_prints_on_one_page(visit: Visit, base_url: str, topic) -> None:
    reader, overflowing = print_to_pdf(visit, base_url + f"cheatsheet/{topic.id}/")
    assert_clean_print(reader, overflowing)
    assert len(reader.pages) <= BUDGET["per_topic"], f"{topic.id} prints on {len(reader.pages)} pages"
