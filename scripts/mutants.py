"""Mutation-test card snippets: break each card's formula on purpose, one way at a time, and report
which deliberate errors the checks did not catch (survivors), per card and in total.

    scripts/mutants.py                  every card
    scripts/mutants.py softmax rmsnorm  these cards
    scripts/mutants.py --check          exit 1 if a card is under 90% or the total under 95%

Scores go to snippets/mutation-scores.json (commit it); results are cached in .cache/mutants/,
so an unchanged snippet is not mutated again. Conventions: CONTRIBUTING.md, "Mutation testing".
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from eqcards.core.config import Settings
from eqcards.mutants.mutation_run import measure

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ids", nargs="*", help="card ids (default: every card)")
    parser.add_argument("--check", action="store_true",
                        help="exit non-zero when a card kills under 90%% of its mutants "
                             "or the total is under 95%%")
    parser.add_argument("--workers", type=int, default=0, help="parallel snippet processes (default: cores)")
    args = parser.parse_args()
    settings = Settings.for_project(ROOT)
    cache_dir = Path(os.environ.get("EQCARDS_MUTANTS_CACHE_DIR", ROOT / ".cache" / "mutants"))
    text, ok = measure(ROOT, settings.cards_dir, settings.snippets_dir, cache_dir, args.ids,
                       workers=args.workers or settings.workers,
                       progress=(lambda line: print(line, file=sys.stderr, flush=True))
                       if sys.stderr.isatty() else None)
    print(text)
    sys.exit(0 if ok or not args.check else 1)


if __name__ == "__main__":
    main()
