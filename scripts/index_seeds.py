"""Write seeds/entries.txt, the list of seed entry keys that cards may cite, from the seed files."""

from __future__ import annotations

import argparse
from pathlib import Path

from eqcards.cards.seeds import seed_entries, seeds_dir

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=Path, default=seeds_dir(ROOT),
                        help="folder holding handbook.md and cheatsheet.md")
    parser.add_argument("--out", type=Path, default=ROOT / "seeds" / "entries.txt")
    args = parser.parse_args()
    keys = seed_entries(args.seeds)
    args.out.write_text("\n".join(keys) + "\n", encoding="utf-8")
    print(f"wrote {len(keys)} seed entries to {args.out}")


if __name__ == "__main__":
    main()
