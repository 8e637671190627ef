"""The comparison pages as a reader sees them, on a phone and on a desktop, light and dark: every
cell's formula drawn, the changed cells marked in words, no TeX shown as text, no page that scrolls
sideways, no serious accessibility problem (axe-core: contrast of the marks in both palettes)."""

from __future__ import annotations

import pytest
from browser_fixtures import VISIBLE_TEXT, tex_marks
from conftest import ROOT
from playwright.sync_api import Browser
from test_a11y import blocking_violations, describe
from test_responsive import SCHEMES, layout_problems, new_page

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.seeds import read_index
from eqcards.pages.comparisons import load_comparisons

pytestmark = pytest.mark.browser

FAMILIES = load_comparisons(
    ROOT / "docs" / "comparisons.yml",
    {c.id: c for c in load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                                 read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")})

# Per page: how many cells, formulas and changed cells the reader is shown, and where a changed
# cell's marker is, next to the formula it marks.
CELLS_PROBE = """() => {
  const table = document.querySelector('table.eqc-compare');
  const cells = [...table.querySelectorAll('tbody tr.eqc-compare-row td')];
  const changed = [...table.querySelectorAll('td.eqc-differs')];
  const visible = el => el.checkVisibility() && el.getBoundingClientRect().width > 0;
  return {
    rows: table.querySelectorAll('tbody tr.eqc-compare-row').length,
    notes: [...table.querySelectorAll('tbody tr.eqc-compare-note td')].filter(visible).length,
    cells: cells.length,
    drawn: cells.filter(td => { const svg = td.querySelector('.eqc-math > svg');
                                return svg && visible(svg); }).length,
    absent: cells.filter(td => td.querySelector('.eqc-absent')).length,
    changed: changed.length,
    marked: changed.filter(td => {
      const mark = td.querySelector('.eqc-changed');
      return mark && visible(mark) && mark.textContent.trim() === 'changed';
    }).length,
    marksElsewhere: table.querySelectorAll('td:not(.eqc-differs) .eqc-changed').length,
    links: [...table.querySelectorAll("tbody th a")].map(a => a.getAttribute('href')),
  };
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [390, 1280])
def test_comparison_pages_show_their_formulas_and_differences(browser: Browser, base_url: str,
                                                             width: int, scheme: str) -> None:
    page = new_page(browser, (width, 900), scheme)
    failures = {}
    for family in FAMILIES:
        page.goto(base_url + f"compare/{family.id}/", wait_until="load")
        found = page.evaluate(CELLS_PROBE)
        cells = [row.cells[col.id] for row in family.rows for col in family.columns]
        expected = {"rows": len(family.rows), "notes": len(family.rows), "cells": len(cells),
                    "drawn": sum(bool(c) for c in cells),
                    "absent": sum(not c for c in cells), "changed": sum(len(r.differs) for r in family.rows),
                    "marksElsewhere": 0, "links": [f"../../cards/{r.card}/" for r in family.rows]}
        expected["marked"] = expected["changed"]
        problems = [f"{key}: {found[key]!r}, expected {value!r}"
                    for key, value in expected.items() if found[key] != value]
        problems += layout_problems(page)
        problems += [f"TeX shown as text: {mark}" for mark in tex_marks(page.evaluate(VISIBLE_TEXT))]
        if violations := blocking_violations(page, exclude=(".md-search",)):  # audited by test_a11y
            problems.append(describe(violations))
        if problems:
            failures[family.id] = problems[:8]
    page.goto(base_url + "compare/", wait_until="load")
    listed = page.locator("article a[href$='/']").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")
    page.context.close()
    assert failures == {}, failures
    assert all(f"{f.id}/" in listed for f in FAMILIES), listed
