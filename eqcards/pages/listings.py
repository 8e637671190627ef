"""Generated pages that list cards: part and topic pages, the /parts/ and /topics/ indexes, the
home page lists, symbols."""

from __future__ import annotations

from ..cards.model import Card, Part, Topic
from ..cards.reading_order import in_reading_order
from ..cards.releases import Release
from . import markup
from .breadcrumbs import render_breadcrumb

HOME_PLACEHOLDER = "<!-- eqcards:topics -->"
NUMBERS_PLACEHOLDER = "<!-- eqcards:numbers -->"
RELEASE_PLACEHOLDER = "<!-- eqcards:release -->"
NUMBERS_LINK = ("- [Numbers](numbers.md): values worth knowing by heart, with units and sources, "
                "computed where possible.")


def render_topic_page(topic: Topic, part: Part, cards: list[Card]) -> str:
    """A topic's cards in its reading order, each with its summary and formula."""
    members = in_reading_order(topic, cards)
    out = ["---", f"title: {markup.text(topic.title)!r}", "search:", "  exclude: true", "---", "",
           render_breadcrumb([(markup.text(part.title), f"../../parts/{part.id}/"),
                              (markup.text(topic.title), None)]), "",
           f"# {markup.text(topic.title)}", "", markup.text(topic.description), "",
           f"{_count(len(members), 'card')}, in reading order: each builds on those before it.", ""]
    for card in members:
        out += [f"## [{markup.prose_with_math(card.title)}](../cards/{card.id}.md)", "",
                markup.prose_with_math(card.summary), "", markup.display_math(card.cheatsheet_latex), ""]
    return "\n".join(out)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def part_members(part: Part, cards: list[Card]) -> list[tuple[Topic, list[Card]]]:
    """The part's topics that have cards, in site order, each with its cards in reading order."""
    return [(topic, members) for topic in part.topics if (members := in_reading_order(topic, cards))]


def render_part_page(part: Part, cards: list[Card]) -> str:
    """A part's index: its topics with their descriptions and their cards in reading order."""
    members = part_members(part, cards)
    total = sum(len(m) for _, m in members)
    out = ["---", f"title: {markup.text(part.title)!r}", "search:", "  exclude: true", "---", "",
           f"# {markup.text(part.title)}", "", markup.text(part.description), "",
           f"{_count(total, 'card')} in {_count(len(members), 'topic')}. "
           f'<a class="eqc-print" href="../../cheatsheet/{part.id}/">Cheatsheet of this part</a>', ""]
    for topic, topic_cards in members:
        out += [f"## [{markup.text(topic.title)}](../../topics/{topic.id}.md)", "",
                f"{_count(len(topic_cards), 'card')}. {markup.text(topic.description)}", "",
                '<ol class="eqc-reading-order" markdown>',
                *(f'<li markdown>[{markup.prose_with_math(c.title)}](../../cards/{c.id}.md)</li>'
                  for c in topic_cards), "</ol>", ""]
    return "\n".join(out)


def render_topic_list(cards: list[Card], parts: list[Part], prefix: str = "", level: int = 3) -> str:
    """The parts, each with its topics and their card counts (the home page, /topics/)."""
    lines = []
    for part in parts:
        members = part_members(part, cards)
        if not members:
            continue
        total = sum(len(m) for _, m in members)
        lines += ["", f"{'#' * level} [{markup.text(part.title)}]({prefix}parts/{part.id}/index.md) "
                  f"({_count(total, 'card')})", "", markup.text(part.description), ""]
        lines += [f"- [{markup.text(topic.title)}]({prefix}topics/{topic.id}.md) "
                  f"({_count(len(m), 'card')}): {markup.text(topic.description)}" for topic, m in members]
    return "\n".join(lines).strip("\n")


def render_topics_index(cards: list[Card], parts: list[Part]) -> str:
    """/topics/: every topic with cards, grouped by part."""
    out = ["---", "title: Topics", "search:", "  exclude: true", "---", "", "# Topics", "",
           "Every topic, part by part. A topic page lists its cards in reading order.", "",
           render_topic_list(cards, parts, prefix="../", level=2)]
    return "\n".join(out) + "\n"


def render_parts_index(cards: list[Card], parts: list[Part]) -> str:
    """/parts/: the four parts, each with its description and the names of its topics."""
    out = ["---", "title: Parts", "search:", "  exclude: true", "---", "", "# Parts", "",
           "The site is in four parts; each part page lists its topics and their cards in reading "
           "order. [All topics](../topics/index.md) · [All cards A–Z](../cards/index.md)", ""]
    for part in parts:
        if not (members := part_members(part, cards)):
            continue
        total = sum(len(m) for _, m in members)
        out += [f"## [{markup.text(part.title)}]({part.id}/index.md)", "",
                f"{markup.text(part.description)} {_count(total, 'card')} in "
                f"{_count(len(members), 'topic')}: "
                + ", ".join(f"[{markup.text(t.title)}](../topics/{t.id}.md)" for t, _ in members) + ".", ""]
    return "\n".join(out)


def render_release_line(release: Release | None) -> str:
    """Which release the site is, for the home page; nothing when it has none."""
    if release is None:
        return ""
    return (f"This is **release {release.version}** of {release.date}; the [changelog](changelog.md) "
            "lists what each release added and changed.")


def render_home(template: str, cards: list[Card], parts: list[Part], has_numbers: bool,
                release: Release | None = None) -> str:
    return (template.replace(HOME_PLACEHOLDER, render_topic_list(cards, parts))
            .replace(RELEASE_PLACEHOLDER, render_release_line(release))
            .replace(NUMBERS_PLACEHOLDER, NUMBERS_LINK if has_numbers else ""))


