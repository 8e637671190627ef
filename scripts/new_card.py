"""Scaffold a new card: docs/cards/<id>.md and snippets/<id>.py with every field to fill in."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CARD = """---
id: {id}
title: {title}
topic: {topic}
equation: TODO LaTeX, e.g. H(P) = -\\sum_x P(x) \\log P(x)
summary: TODO one plain-English sentence.
symbols:
  - symbol: TODO
    meaning: TODO
aliases: []
tags: []
sources:
  - authors: TODO
    year: 2000
    title: TODO
    venue: TODO
    doi: 10.0000/TODO
    locator: Eq. (TODO)
related: []
seeds: []
snippet: {id}.py
cheatsheet:
  label: {title}
---

## Reading the formula

TODO in your own words.

## Pitfalls

TODO
"""

SNIPPET = '''"""{title}: checked against TODO (an independent route)."""

import numpy as np
from cardcheck import check_close


# The code that computes the formula, and only that, goes between these two lines: the mutation
# test (scripts/check_card.py {id} --mutants) breaks it on purpose and the checks must notice.
# --- formula ---
def formula(x: np.ndarray) -> np.ndarray:
    """TODO: the formula itself."""
    return x
# --- end formula ---


rng = np.random.default_rng(0)

# TODO: compare the formula with a library, brute force or an identity, outside the region.
check_close("TODO what is compared", formula(0.0), 1.0)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("id", help="kebab-case id, e.g. jensen-shannon-divergence")
    parser.add_argument("--title", required=True)
    parser.add_argument("--topic", required=True, help="a topic id from docs/topics.yml")
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", args.id):
        sys.exit(f"'{args.id}' is not a kebab-case id")
    card = ROOT / "docs" / "cards" / f"{args.id}.md"
    snippet = ROOT / "snippets" / f"{args.id}.py"
    for path in (card, snippet):
        if path.exists():
            sys.exit(f"{path.relative_to(ROOT)} already exists")
    card.write_text(CARD.format(id=args.id, title=args.title, topic=args.topic), encoding="utf-8")
    snippet.write_text(SNIPPET.format(title=args.title, id=args.id), encoding="utf-8")
    print(f"created {card.relative_to(ROOT)} and {snippet.relative_to(ROOT)}; the snippet's "
          "placeholder check fails until you write a real one. Then: "
          f"scripts/check_card.py {args.id} --mutants")


if __name__ == "__main__":
    main()
