"""Write the cheatsheet Markdown standalone (the build generates the same page itself)."""

from __future__ import annotations

import argparse
from pathlib import Path

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.seeds import read_index
from eqcards.core.config import Settings
from eqcards.pages.cheatsheet import render_cheatsheet

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "cheatsheet.md",
                        help="where to write the Markdown (default: build/cheatsheet.md)")
    args = parser.parse_args()
    settings = Settings.for_project(ROOT)
    parts = load_parts(settings.topics_file)
    topics = [t for part in parts for t in part.topics]
    cards = load_cards(settings.cards_dir, topics, read_index(settings.seed_index), settings.snippets_dir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # Standalone, the page sits next to no cards folder: link to the published card URLs instead.
    args.out.write_text(render_cheatsheet(cards, parts, link_prefix="../docs/cards/"), encoding="utf-8")
    print(f"wrote the cheatsheet of {len(cards)} cards to {args.out}")


if __name__ == "__main__":
    main()
