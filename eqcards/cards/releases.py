"""Numbered releases of the site and each card's history: what was added and changed in which release.

The releases are declared once, in `docs/releases.yml` (version, date, summary; newest last), and
each release, once cut, is frozen as `docs/releases/<version>.json`: the citable content of every
card it held (title, equation, symbols, sources), published with the site. A card's history is
read from those snapshots, so it needs no network and no git history: it was added in the first
release that holds it, and changed in each release whose snapshot differs from the one before in
a tracked field. Each such change must carry a `history` entry in the card (the build fails
without one). The newest declared release may not be frozen yet: it is being cut, and the cards
as they are now are its content. After the newest frozen release, a card that differs from it has
an unreleased change, which the page and the citation say.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import CardError, CardErrors
from .model import Card
from .schema import RELEASE_KEYS
from .validate import check_date, check_version, yaml_list

# The fields whose change a reader citing the card must know of, in the order they are named.
TRACKED = ("equation", "symbols", "sources")
SNAPSHOT_FORMAT = 1


@dataclass(frozen=True)
class Release:
    version: str
    date: str  # ISO date
    summary: str

    @property
    def key(self) -> tuple[int, ...]:
        return version_key(self.version)


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def card_content(card: Card) -> dict[str, Any]:
    """What a release records of a card: the tracked fields, and the title to name it by."""
    return {
        "title": card.title,
        "equation": card.equation,
        "symbols": [{"symbol": s.symbol, "meaning": s.meaning} for s in card.symbols],
        "sources": [s.record() for s in card.sources],
    }


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, ...]:
    return tuple(name for name in TRACKED if before.get(name) != after.get(name))


def snapshot_json(release: Release, cards: list[Card]) -> str:
    """The frozen form of a release: stable, sorted, one card per key, diffable."""
    data = {"format": SNAPSHOT_FORMAT,
            "release": {"version": release.version, "date": release.date, "summary": release.summary},
            "cards": {c.id: card_content(c) for c in sorted(cards, key=lambda c: c.id)}}
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


@dataclass(frozen=True)
class Change:
    """One release's change to a card: the fields that differ from the release before."""

    release: Release
    fields: tuple[str, ...]


@dataclass(frozen=True)
class CardRecord:
    """A card across the releases. `added_in` is None for a card in no release yet (or only in
    the one being cut, when that is None too: then `added_in` is that release)."""

    added_in: Release | None
    changes: tuple[Change, ...] = ()
    unreleased: tuple[str, ...] = ()  # fields changed since the newest frozen release
    current: Release | None = None  # the release the site is built as

    @property
    def last_changed_in(self) -> Release | None:
        return self.changes[-1].release if self.changes else self.added_in

    @property
    def released_as(self) -> Release | None:
        """The release whose content this card now is exactly, if any: the site's release."""
        if self.added_in is None or self.unreleased:
            return None
        return self.current


@dataclass
class ReleaseBook:
    """The declared releases and the frozen snapshots, read once per build."""

    releases: list[Release]
    frozen: dict[str, dict[str, dict[str, Any]]]  # version -> card id -> content
    path: Path | None = None  # docs/releases.yml
    lines: dict = field(default_factory=dict, repr=False)

    @property
    def current(self) -> Release | None:
        """The release the site is built as: the newest declared."""
        return self.releases[-1] if self.releases else None

    @property
    def cutting(self) -> bool:
        """Whether the newest declared release is being cut (declared, not frozen yet)."""
        return self.current is not None and self.current.version not in self.frozen

    def release(self, version: str) -> Release | None:
        return next((r for r in self.releases if r.version == version), None)

    def record(self, card: Card) -> CardRecord:
        """The card in every release: when it was added, changed, and whether it has changed since."""
        ids = [card.id, *card.former_ids]
        versions: list[tuple[Release, dict[str, Any] | None]] = []
        for release in self.releases:
            if release.version in self.frozen:
                snap = self.frozen[release.version]
                versions.append((release, next((snap[i] for i in ids if i in snap), None)))
        now = card_content(card)
        if self.cutting:
            versions.append((self.releases[-1], now))
        added = next((r for r, content in versions if content is not None), None)
        changes = []
        for (_, before), (release, after) in itertools.pairwise(versions):
            if before is not None and after is not None and (fields := changed_fields(before, after)):
                changes.append(Change(release, fields))
        last = versions[-1][1] if versions else None
        unreleased = () if self.cutting or last is None else changed_fields(last, now)
        return CardRecord(added, tuple(changes), unreleased, self.current)

    def problems(self, card: Card) -> list[CardError]:
        """A tracked change in a release with no history entry for that release; an entry naming
        a release that is neither declared nor the next one."""
        errors = []
        record = self.record(card)
        noted = {h.release for h in card.history}
        for change in record.changes:
            if change.release.version not in noted:
                errors.append(CardError(card.path, (
                    f"the {_names(change.fields)} changed in release {change.release.version}, but "
                    f"'history' has no entry for {change.release.version}: add one, e.g. "
                    f"{{release: \"{change.release.version}\", date: {change.release.date}, "
                    "note: what changed and why}"), card.line_of(change.fields[0]) or card.line_of("id")))
        newest = self.current.key if self.current else ()
        for i, entry in enumerate(card.history):
            if self.release(entry.release) is None and version_key(entry.release) <= newest:
                errors.append(CardError(card.path, (
                    f"history entry for release {entry.release}, which docs/releases.yml does not "
                    "declare (a change not yet released names the next release, above "
                    f"{self.current.version if self.current else 'none'})"), card.line_of("history", i)))
        return errors

    def site_problems(self, citation_cff: Path | None = None) -> list[CardError]:
        """Problems of the releases themselves: a release before the newest that was never frozen,
        a snapshot of no declared release, CITATION.cff naming another release."""
        errors = []
        path = self.path or Path("docs/releases.yml")
        for i, release in enumerate(self.releases[:-1]):
            if release.version not in self.frozen:
                errors.append(CardError(path, f"release {release.version} was never frozen: "
                                        f"docs/releases/{release.version}.json is missing (it is what "
                                        "later releases are compared with; restore it from git)",
                                        self.lines.get((i, "version"))))
        declared = {r.version for r in self.releases}
        for version in sorted(set(self.frozen) - declared, key=version_key):
            errors.append(CardError(path.parent / "releases" / f"{version}.json",
                                    f"snapshot of release {version}, which {path.name} does not declare"))
        if citation_cff is not None and self.current is not None and citation_cff.is_file():
            cff = yaml.safe_load(citation_cff.read_text(encoding="utf-8")) or {}
            named = (str(cff.get("version", "")), str(cff.get("date-released", "")))
            if named != (self.current.version, self.current.date):
                errors.append(CardError(citation_cff, (
                    f"names release {named[0] or '(none)'} of {named[1] or '(no date)'}, but the site "
                    f"is release {self.current.version} of {self.current.date} (docs/releases.yml): "
                    f"set version: \"{self.current.version}\" and date-released: {self.current.date}")))
        return errors


def release_problems(book: ReleaseBook, cards: list[Card],
                     citation_cff: Path | None = None) -> list[CardError]:
    """Everything the releases and the cards' histories say wrongly of each other (CITATION.cff
    included when given)."""
    return book.site_problems(citation_cff) + [e for c in cards for e in book.problems(c)]


def _names(fields: tuple[str, ...]) -> str:
    return " and ".join(", ".join(fields).rsplit(", ", 1)) if len(fields) > 1 else fields[0]


def load_releases(path: Path) -> ReleaseBook:
    """docs/releases.yml and the snapshots beside it (docs/releases/<version>.json); a project
    without the file has no releases. Raises CardErrors naming the file and line."""
    if not path.is_file():
        return ReleaseBook([], {}, path)
    data, c = yaml_list(path, '{version: "1.0.0", date: YYYY-MM-DD, summary: ...}, oldest first')
    releases: list[Release] = []
    for i, item in enumerate(data):
        r = c.mapping(item, (i,), RELEASE_KEYS)
        release = Release(check_version(r["version"], (i, "version"), c),
                          check_date(r["date"], (i, "date"), c), c.text(r["summary"], (i, "summary")))
        if releases and release.key <= releases[-1].key:
            raise c.fail((i, "version"), f"release {release.version} is listed after {releases[-1].version}: "
                         "list releases oldest first, each with a higher number")
        if releases and release.date < releases[-1].date:
            raise c.fail((i, "date"), f"release {release.version} is dated {release.date}, before "
                         f"release {releases[-1].version} ({releases[-1].date})")
        releases.append(release)
    frozen = {}
    errors = []
    for snap in sorted((path.parent / "releases").glob("*.json")):
        try:
            content = json.loads(snap.read_text(encoding="utf-8"))
            if content.get("format") != SNAPSHOT_FORMAT or content["release"]["version"] != snap.stem:
                raise ValueError(f"not a format-{SNAPSHOT_FORMAT} snapshot of release {snap.stem}")
            frozen[snap.stem] = content["cards"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            errors.append(CardError(snap, f"unreadable release snapshot: {exc}"))
    if errors:
        raise CardErrors(errors)
    return ReleaseBook(releases, frozen, path, c.lines)
