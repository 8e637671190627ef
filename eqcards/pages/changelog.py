"""Pages of the card history: the changelog by release, a card's own history, the site's errata."""

from __future__ import annotations

from ..cards.model import Card
from ..cards.releases import CardRecord, Change, Release, ReleaseBook, version_key
from . import markup


def _link(card_id: str, title: str, prefix: str) -> str:
    return f"[{markup.prose_with_math(title)}]({prefix}cards/{card_id}.md)"


def _fields(fields: tuple[str, ...]) -> str:
    return ", ".join(fields)


def _notes(card: Card, version: str) -> str:
    return " ".join(markup.prose_with_math(h.note) for h in card.history if h.release == version)


def render_changelog(book: ReleaseBook, cards: list[Card]) -> str:
    """Every release, newest first: its date and summary, the cards it added, changed and removed;
    above them, what has changed since the newest release."""
    records = {c.id: book.record(c) for c in cards}
    out = ["---", "title: Changelog", "---", "", "# Changelog", "",
           "The site is released in numbered versions. A citation names the release it was made from, "
           "so a reader can see the formula the author saw: each release's cards (title, equation, "
           "symbols and sources) stay downloadable as JSON. A change to a card's equation, symbols or "
           "sources after its first release is recorded on the card, with the reason; this page is "
           "generated from those records and from the releases.", ""]
    if not book.releases:
        out.append("No release has been made yet.")
        return "\n".join(out) + "\n"
    pending = sorted((c for c in cards if records[c.id].added_in is None or records[c.id].unreleased),
                     key=lambda c: c.title.casefold())
    if pending:
        out += [f"## Since release {book.current.version}", "",
                "Not in a release yet: these cards were added or changed after the newest release, "
                "and a citation of them names the date of this build instead.", ""]
        for card in pending:
            record = records[card.id]
            what = "added" if record.added_in is None else f"changed: {_fields(record.unreleased)}"
            upcoming = [h for h in card.history if book.release(h.release) is None]
            note = " ".join(markup.prose_with_math(h.note) for h in upcoming)
            out.append(f"- {_link(card.id, card.title, '')} ({what})" + (f". {note}" if note else ""))
        out.append("")
    by_id = {c.id: c for c in cards}
    renamed = {old: c.id for c in cards for old in c.former_ids}
    before: set[str] = set()
    sections = []
    for release in book.releases:
        held = _held(book, release, cards)
        added = sorted((by_id[i] for i in held if records[i].added_in == release),
                       key=lambda c: c.title.casefold())
        changed = sorted(((by_id[i], ch) for i in held for ch in records[i].changes if ch.release == release),
                         key=lambda item: item[0].title.casefold())
        ids = set(book.frozen[release.version]) if release.version in book.frozen else held
        now = {renamed.get(i, i) for i in ids}
        removed = sorted(i for i in before if renamed.get(i, i) not in now)
        before = ids
        sections.append(_release_section(release, book, added, changed, removed))
    out += [line for section in reversed(sections) for line in section]
    return "\n".join(out) + "\n"


def _held(book: ReleaseBook, release: Release, cards: list[Card]) -> set[str]:
    """Ids of today's cards that the release holds (under their id or a former id)."""
    if release.version not in book.frozen:  # the release being cut: the cards as they are
        return {c.id for c in cards}
    snap = book.frozen[release.version]
    return {c.id for c in cards if c.id in snap or any(old in snap for old in c.former_ids)}


def _release_section(release: Release, book: ReleaseBook, added: list[Card],
                     changed: list[tuple[Card, Change]], removed: list[str]) -> list[str]:
    frozen = release.version in book.frozen
    out = [f"## Release {release.version} ({release.date}) {{ #{anchor(release)} }}",
           "", markup.prose_with_math(release.summary), ""]
    if frozen:
        out += [f"Its cards as they were: [`releases/{release.version}.json`]"
                f"(releases/{release.version}.json).", ""]
    if changed:
        out += [f"**Changed ({len(changed)}):**", ""]
        for card, change in changed:
            note = _notes(card, release.version)
            out.append(f"- {_link(card.id, card.title, '')}: {_fields(change.fields)}."
                       + (f" {note}" if note else ""))
        out.append("")
    if added:
        out += [f"**Added ({len(added)}):** " + ", ".join(_link(c.id, c.title, "") for c in added) + ".", ""]
    if removed:
        withdrawn = ", ".join(f"`{markup.text(i)}`" for i in removed)
        out += [f"**Withdrawn ({len(removed)}):** {withdrawn}.", ""]
    if not (changed or added or removed):
        out += ["No card was added or changed.", ""]
    return out


def render_card_history(card: Card, record: CardRecord) -> list[str]:
    """A card page's History section: added in, last changed in, and each recorded change."""
    if record.current is None:
        return []
    out = ["## History { data-search-exclude }", ""]
    if record.added_in is None:
        out += [f"Added after release {record.current.version}: not in a release yet.", ""]
    else:
        changed = (f"release {_release_link(record.last_changed_in)}: {_fields(record.changes[-1].fields)}"
                   if record.changes else f"release {record.added_in.version}, as added")
        out.append(f"**Added in** release {_release_link(record.added_in)} · **Last changed in** {changed}.")
        if record.unreleased:
            out.append(f"Changed since release {record.current.version} "
                       f"({_fields(record.unreleased)}): the change is not in a release yet.")
        out.append("")
    for entry in sorted(card.history, key=lambda h: (version_key(h.release), h.date), reverse=True):
        out.append(f"- **{entry.release}** ({entry.date}): {markup.prose_with_math(entry.note)}")
    if card.history:
        out.append("")
    return out


def _release_link(release: Release) -> str:
    return f"[{release.version}](../changelog.md#{anchor(release)}) ({release.date})"


def anchor(release: Release) -> str:
    """The changelog heading's id for a release: release-1-2-0."""
    return "release-" + release.version.replace(".", "-")


def render_errata(cards: list[Card]) -> str:
    """The site's own errata: every change recorded in a card's history (a correction or other change
    to its equation, symbols or sources after its first release), newest first."""
    entries = sorted(((h, c) for c in cards for h in c.history),
                     key=lambda item: (item[0].date, version_key(item[0].release), item[1].id), reverse=True)
    out = ["---", "title: Errata", "---", "", "# Errata", "",
           "Corrections and other changes this site made to its own cards after publishing them: to a "
           "card's equation, the meaning of a symbol or a source, newest first, each with its reason. "
           "The [changelog](changelog.md) lists them by release, and each card's History section lists "
           "its own. What other write-ups commonly get wrong about a formula is on its card, under "
           "*Common mistakes*.", ""]
    if not entries:
        return "\n".join([*out, "No card has changed since it was released.", ""])
    out += [f"- {entry.date}, release {entry.release}: {_link(card.id, card.title, '')}: "
            f"{markup.prose_with_math(entry.note)}" for entry, card in entries]
    return "\n".join([*out, ""])
