"""Validate one card against the whole set and run its snippet, without building the site.
With --mutants, then measure how strong its checks are (mutation testing, scripts/mutants.py)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from eqcards.calculators.jscheck import check_card as check_calculator
from eqcards.cards.load import parse_card
from eqcards.core.config import Settings
from eqcards.core.errors import CardError, CardErrors
from eqcards.mutants.mutation_run import measure
from eqcards.pages.site import CardSite
from eqcards.snippets.jobs import SnippetJob
from eqcards.snippets.runner import run_snippet

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ids", nargs="+", help="card ids")
    parser.add_argument("--mutants", action="store_true",
                        help="then break the formula on purpose and report which errors the checks "
                             "catch (records the score in snippets/mutation-scores.json)")
    args = parser.parse_args()
    settings = Settings.for_project(ROOT)
    try:
        site = CardSite.load(settings)
        cards = {c.id: c for c in site.cards}
    except CardError as exc:
        sys.exit(str(exc))
    except CardErrors as exc:
        # Report only the named cards' problems: someone else's half-written card elsewhere
        # in the tree should not stop you from checking yours.
        mine = [e for e in exc.errors if e.path.stem in args.ids]
        if mine:
            sys.exit("\n".join(str(e) for e in mine))
        others = sorted({e.path.name for e in exc.errors})
        print(f"note: other cards have errors ({', '.join(others)}); checking yours alone")
        cards = {i: parse_card(settings.cards_dir / f"{i}.md") for i in args.ids}
        site = None
    failed = False
    for card_id in args.ids:
        card = cards[card_id]
        result = run_snippet(SnippetJob(card.id, card.path, settings.snippets_dir / card.snippet,
                                        card.timeout), settings.snippets_dir)
        print(result.stdout, end="")
        problems = check_calculator(card, result, site.presets, settings.presets_file) if site else []
        for problem in problems:
            failed = True
            print(problem, file=sys.stderr)
        if result.ok and not problems:
            print(f"{card_id}: ok, {len(result.checks)} checks, {len(result.figures)} figures, "
                  f"{result.duration:.1f} s")
        elif not result.ok:
            failed = True
            print(result.describe_failure(ROOT), file=sys.stderr)
    if args.mutants and not failed:
        cache_dir = Path(os.environ.get("EQCARDS_MUTANTS_CACHE_DIR", ROOT / ".cache" / "mutants"))
        text, ok = measure(ROOT, settings.cards_dir, settings.snippets_dir, cache_dir, args.ids,
                           workers=settings.workers)
        print(text)
        failed = not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
