"""Generated site pages other than cards: part and topic indexes, the home page lists, errata."""

from __future__ import annotations

from ..cards.model import Card, Part, Topic
from ..cards.releases import Release
from . import markup
from .changelog import render_history_changes
from .cheatsheet import cards_by_topic

HOME_PLACEHOLDER = "<!-- eqcards:topics -->"
NUMBERS_PLACEHOLDER = "<!-- eqcards:numbers -->"
COVERAGE_PLACEHOLDER = "<!-- eqcards:coverage -->"
RELEASE_PLACEHOLDER = "<!-- eqcards:release -->"
NUMBERS_LINK = ("- [Numbers](numbers.md): values worth knowing by heart, with units and sources, "
                "computed where possible.")


def render_topic_page(topic: Topic, cards: list[Card]) -> str:
    members = sorted((c for c in cards if c.topic == topic.id), key=lambda c: c.title.casefold())
    out = ["---", f"title: {markup.text(topic.title)!r}", "search:", "  exclude: true", "---", "",
           f"# {markup.text(topic.title)}", "", markup.text(topic.description), "",
           f"{len(members)} card{'s' if len(members) != 1 else ''}.", ""]
    for card in members:
        out += [f"## [{markup.prose_with_math(card.title)}](../cards/{card.id}.md)", "",
                markup.prose_with_math(card.summary), "", markup.display_math(card.cheatsheet_latex), ""]
    return "\n".join(out)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def part_members(part: Part, cards: list[Card]) -> list[tuple[Topic, list[Card]]]:
    """The part's topics that have cards, in site order, each with its cards."""
    return cards_by_topic(cards, list(part.topics))


def render_part_page(part: Part, cards: list[Card]) -> str:
    """A part's index: its topics with their card counts and descriptions."""
    members = part_members(part, cards)
    total = sum(len(m) for _, m in members)
    out = ["---", f"title: {markup.text(part.title)!r}", "search:", "  exclude: true", "---", "",
           f"# {markup.text(part.title)}", "", markup.text(part.description), "",
           f"{_count(total, 'card')} in {_count(len(members), 'topic')}. "
           f'<a class="eqc-print" href="../../cheatsheet/{part.id}/">Cheatsheet of this part</a>', ""]
    for topic, topic_cards in members:
        out += [f"## [{markup.text(topic.title)}](../../topics/{topic.id}.md)", "",
                f"{_count(len(topic_cards), 'card')}. {markup.text(topic.description)}", ""]
    return "\n".join(out)


def render_topic_list(cards: list[Card], parts: list[Part], prefix: str = "") -> str:
    """The parts, each with its topics and their card counts, for the home page."""
    lines = []
    for part in parts:
        members = part_members(part, cards)
        if not members:
            continue
        total = sum(len(m) for _, m in members)
        lines += ["", f"### [{markup.text(part.title)}]({prefix}parts/{part.id}/index.md) "
                  f"({_count(total, 'card')})", "", markup.text(part.description), ""]
        lines += [f"- [{markup.text(topic.title)}]({prefix}topics/{topic.id}.md) "
                  f"({_count(len(m), 'card')}): {markup.text(topic.description)}" for topic, m in members]
    return "\n".join(lines).strip("\n")


# Where a seed entry is realized: (title, docs-relative link) of each card or numbers entry.
Realizers = dict[str, list[tuple[str, str]]]


def seed_realizers(cards: list[Card], numbers: list = ()) -> Realizers:
    """Each seed entry with the cards (and quick-reference numbers) that realize it."""
    found: Realizers = {}
    for card in sorted(cards, key=lambda c: c.id):
        for seed in card.seeds:
            found.setdefault(seed, []).append((card.title, f"cards/{card.id}.md"))
    for entry in numbers:
        found.setdefault(entry.seed, []).append((f"Numbers: {entry.label}", f"numbers.md#{entry.id}"))
    return found


def coverage_counts(realizers: Realizers, seed_keys: list[str]) -> dict[str, tuple[int, int]]:
    """Seed entries realized by some card, out of all, per seed document."""
    counts = {}
    for doc in ("handbook", "cheatsheet"):
        keys = [k for k in seed_keys if k.startswith(doc + "/")]
        counts[doc] = (sum(k in realizers for k in keys), len(keys))
    return counts


def render_coverage_summary(cards: list[Card], realizers: Realizers, seed_keys: list[str],
                            has_numbers: bool, prefix: str = "") -> str:
    """One sentence for the home page: cards and seed entries covered, linked to the coverage page."""
    counts = coverage_counts(realizers, seed_keys)
    (h, h_all), (c, c_all) = counts["handbook"], counts["cheatsheet"]
    with_numbers = f"with the [numbers]({prefix}numbers.md) page " if has_numbers else ""
    return (f"{_count(len(cards), 'card')} realize **{h} of the {h_all}** entries of the seed handbook; "
            f"{with_numbers}they cover **{c} of the {c_all}** rows of the seed cheatsheet. The "
            f"[coverage page]({prefix}coverage.md) lists every entry with its card, or says it is not "
            "covered yet.")


def render_coverage(realizers: Realizers, seed_keys: list[str], topics: list[Topic]) -> str:
    """Every seed entry (handbook section and heading, cheatsheet table and row) with the card
    that realizes it, or "not yet"."""
    counts = coverage_counts(realizers, seed_keys)
    out = ["---", "title: Coverage", "---", "", "# Coverage", "",
           "The site grew from two seed documents: a handbook of equations for LLMs, RAG and agents, "
           "and a one-page cheatsheet. Every entry of both is listed here with the card that realizes "
           "it; an entry several cards realize lists them all. Generated from the cards' `seeds` fields "
           "and the numbers page.", ""]
    for doc, name in (("handbook", "Handbook"), ("cheatsheet", "Cheatsheet")):
        done, total = counts[doc]
        out.append(f"- **{name}**: {done} of {total} entries covered, {total - done} not yet.")
    out.append("")
    section_topics: dict[str, list[Topic]] = {}
    for topic in topics:
        for number in topic.handbook:
            section_topics.setdefault(str(number), []).append(topic)
    groups: dict[tuple[str, str], list[str]] = {}
    for key in seed_keys:
        doc, group, _ = key.split("/", 2)
        groups.setdefault((doc, group), []).append(key)
    current_doc = None
    for (doc, group), keys in groups.items():
        if doc != current_doc:
            current_doc = doc
            out += [f"## {'Handbook' if doc == 'handbook' else 'Cheatsheet'}", ""]
        done = sum(k in realizers for k in keys)
        if doc == "handbook":
            names = ", ".join(markup.text(t.title) for t in section_topics.get(group, []))
            title = f"Section {group}" + (f": {names}" if names else "")
        else:
            title = markup.text(group)
        out += [f"### {title} ({done} of {len(keys)})", "", "| Entry | Realized by |", "|---|---|"]
        for key in keys:
            entry = markup.cell(key.split("/", 2)[2])
            found = realizers.get(key)
            where = (", ".join(f"[{markup.cell(title)}]({link})" for title, link in found)
                     if found else "*not yet*")
            out.append(f"| {entry} | {where} |")
        out.append("")
    return "\n".join(out)


def render_release_line(release: Release | None) -> str:
    """Which release the site is, for the home page; nothing when it has none."""
    if release is None:
        return ""
    return (f"This is **release {release.version}** of {release.date}; the [changelog](changelog.md) "
            "lists what each release added and changed.")


def render_home(template: str, cards: list[Card], parts: list[Part], has_numbers: bool,
                seed_keys: list[str], realizers: Realizers, release: Release | None = None) -> str:
    return (template.replace(HOME_PLACEHOLDER, render_topic_list(cards, parts))
            .replace(RELEASE_PLACEHOLDER, render_release_line(release))
            .replace(COVERAGE_PLACEHOLDER, render_coverage_summary(cards, realizers, seed_keys, has_numbers))
            .replace(NUMBERS_PLACEHOLDER, NUMBERS_LINK if has_numbers else ""))


def render_errata(cards: list[Card]) -> str:
    out = ["---", "title: Errata", "---", "", "# Errata", "",
           "Two kinds of correction, both generated from the cards: changes made to a card after "
           "it was released (from the cards' `history`), and every place where an entry of the "
           "seed documents the site grew from is wrong or imprecise and the card gives the "
           "corrected form (from the cards' `errata`).", ""]
    out += render_history_changes(cards)
    out += ["## Corrections to the seed documents", ""]
    listed = [c for c in sorted(cards, key=lambda c: c.id) if c.errata]
    if not listed:
        out.append("No corrections so far.")
    for card in listed:
        out += [f"### [{markup.prose_with_math(card.title)}](cards/{card.id}.md)", ""]
        out += [f"- `{markup.text(e.seed)}`: {markup.prose_with_math(e.note)}" for e in card.errata]
        out.append("")
    return "\n".join(out)
