"""Run every heavy-library "In code" mapping (torch, jax ...) and record the outcomes in
snippets/libcheck-ledger.json. Run by `make libcheck` with .venv-libcheck's interpreter, which has
the libraries pinned in requirements-libcheck.txt; exits non-zero naming each card, library and
version whose mapping disagrees with its card."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.seeds import read_index
from eqcards.core.config import Settings
from eqcards.core.errors import CardError, CardErrors
from eqcards.incode import ledger
from eqcards.incode.libcheck import libcheck

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ids", nargs="*", help="only these cards (default: every card)")
    args = parser.parse_args()
    settings = Settings.for_project(ROOT)
    try:
        every = load_cards(settings.cards_dir, load_topics(settings.topics_file),
                           read_index(settings.seed_index), settings.snippets_dir)
    except (CardError, CardErrors) as exc:
        sys.exit(str(exc))
    cards = [c for c in every if c.id in args.ids] if args.ids else every
    entries, passed, failures = libcheck(cards, settings.snippets_dir, ROOT, settings.workers)
    path = settings.snippets_dir / ledger.LEDGER_FILE
    # The cards run replace their old entries (one that lost its heavy regions loses its entry);
    # the others keep theirs, and a card that no longer exists drops out.
    ran = {c.id for c in cards}
    kept = {k: v for k, v in ledger.load(path).items() if k not in ran and k in {c.id for c in every}}
    ledger.save(path, {**kept, **entries})
    for line in passed:
        print(line)
    checked = sum(len(v) for v in entries.values())
    print(f"libcheck: {checked} mapping{'s' if checked != 1 else ''} of {len(entries)} cards run, "
          f"{len(failures)} failed; ledger: {path.relative_to(ROOT)}")
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
