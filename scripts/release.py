"""Cut a numbered release of the site: declare it in docs/releases.yml, freeze every card's citable
content as docs/releases/<version>.json and name it in CITATION.cff.

    scripts/release.py 1.1.0 --summary "Corrections to the attention cards"
    scripts/release.py 1.1.0                  # freeze 1.1.0, already declared in docs/releases.yml

Refuses, changing nothing, while a card whose equation, symbols or sources changed since the last
release has no `history` entry for this release (each such card is named with its file and line),
or while the release number is not above the last one. Conventions: CONTRIBUTING.md, "Releases".
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from pathlib import Path

import yaml

from eqcards.cards.load import load_cards, load_parts
from eqcards.cards.releases import (
    Release,
    ReleaseBook,
    load_releases,
    release_problems,
    snapshot_json,
    version_key,
)
from eqcards.cards.schema import VERSION_PATTERN
from eqcards.cards.seeds import read_index
from eqcards.core.config import Settings
from eqcards.core.errors import CardError, CardErrors
from eqcards.core.files import write_atomically

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("version", help="the new release's number, MAJOR.MINOR.PATCH")
    parser.add_argument("--summary", help="one sentence on what the release brings (a new release needs one)")
    parser.add_argument("--date", help="release date YYYY-MM-DD (default: today)")
    args = parser.parse_args()
    if not re.match(VERSION_PATTERN, args.version):
        sys.exit(f"'{args.version}' is not a release number MAJOR.MINOR.PATCH, e.g. 1.2.0")
    settings = Settings.for_project(ROOT)
    try:
        topics = [t for part in load_parts(settings.topics_file) for t in part.topics]
        cards = load_cards(settings.cards_dir, topics, read_index(settings.seed_index), settings.snippets_dir)
        book = load_releases(settings.releases_file)
    except (CardError, CardErrors) as exc:
        sys.exit(f"the cards do not load; fix them first:\n{exc}")
    if args.version in book.frozen:
        sys.exit(f"release {args.version} is already frozen (docs/releases/{args.version}.json)")
    declared = book.release(args.version)
    if declared is None:
        if book.current is not None and version_key(args.version) <= book.current.key:
            sys.exit(f"release {args.version} is not above the last one, {book.current.version}")
        if book.cutting:
            sys.exit(f"release {book.current.version} is declared but not frozen: freeze it first "
                     f"(scripts/release.py {book.current.version})")
        if not args.summary:
            sys.exit("a new release needs --summary: one sentence on what it brings")
        release = Release(args.version, args.date or dt.date.today().isoformat(), args.summary.strip())
        book = ReleaseBook([*book.releases, release], book.frozen, book.path, book.lines)
    else:
        release = declared
    cff = settings.root / "CITATION.cff"
    cff_text = named_in_citation(cff.read_text(encoding="utf-8"), release)
    problems = release_problems(book, cards)  # CITATION.cff is written below, naming the release
    if problems:
        sys.exit(f"release {release.version} is not cut, nothing was changed:\n"
                 + "\n".join(str(e) for e in problems))
    snapshot = settings.releases_file.parent / "releases" / f"{release.version}.json"
    writes = {snapshot: snapshot_json(release, cards), cff: cff_text}
    if declared is None:
        writes[settings.releases_file] = declared_in(settings.releases_file, release)
    for path, text in writes.items():
        write_atomically(path, text)
    added = sum(1 for c in cards if book.record(c).added_in == release)
    changed = sum(1 for c in cards for ch in book.record(c).changes if ch.release == release)
    print(f"release {release.version} of {release.date}: {len(cards)} cards, {added} added, "
          f"{changed} changed; wrote {', '.join(str(p.relative_to(settings.root)) for p in writes)}")


def declared_in(path: Path, release: Release) -> str:
    """docs/releases.yml with the release appended (the file's own text and comments kept)."""
    text = path.read_text(encoding="utf-8") if path.is_file() else (
        "# The site's releases, oldest first; the newest is the release the site is built as.\n"
        "# Cut one with scripts/release.py; each is frozen as releases/<version>.json.\n")
    entry = yaml.safe_dump([{"version": release.version, "date": dt.date.fromisoformat(release.date),
                             "summary": release.summary}], sort_keys=False, allow_unicode=True, width=100)
    entry = entry.replace(f"version: {release.version}", f'version: "{release.version}"', 1)
    return text.rstrip("\n") + "\n" + entry


def named_in_citation(text: str, release: Release) -> str:
    """CITATION.cff naming the release: its `version` and `date-released` set, other lines kept."""
    for key, value in (("version", f'"{release.version}"'), ("date-released", release.date)):
        line = f"{key}: {value}"
        text, found = re.subn(rf"^{key}:.*$", line, text, count=1, flags=re.M)
        if not found:
            text = text.rstrip("\n") + "\n" + line + "\n"
    return text


if __name__ == "__main__":
    main()
