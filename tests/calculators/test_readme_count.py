"""The README states how many cards have a calculator; the number is counted from the cards."""

from __future__ import annotations

import re

from conftest import ROOT

from eqcards.cards.load import parse_card


def test_the_readme_counts_the_calculators() -> None:
    count = sum(parse_card(p).calculator is not None for p in sorted((ROOT / "docs" / "cards").glob("*.md")))
    stated = re.search(r"^- (\d+) cards have a calculator", (ROOT / "README.md").read_text(), re.M)
    assert stated is not None, "README.md no longer says how many cards have a calculator"
    assert int(stated.group(1)) == count, \
        f"README.md says {stated.group(1)} calculators; the cards have {count}"
