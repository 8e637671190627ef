"""Generated site pages other than cards: topic indexes, the home topic list, errata."""

from __future__ import annotations

from . import markup
from .cheatsheet import cards_by_topic
from .model import Card, Topic

HOME_PLACEHOLDER = "<!-- eqcards:topics -->"
NUMBERS_PLACEHOLDER = "<!-- eqcards:numbers -->"
NUMBERS_LINK = ("- [Numbers](numbers.md): values worth knowing by heart, with units and sources, "
                "computed where possible.")


def render_topic_page(topic: Topic, cards: list[Card]) -> str:
    members = sorted((c for c in cards if c.topic == topic.id), key=lambda c: c.title.casefold())
    out = ["---", f"title: {markup.text(topic.title)!r}", "search:", "  exclude: true", "---", "",
           f"# {markup.text(topic.title)}", "", markup.text(topic.description), "",
           f"{len(members)} card{'s' if len(members) != 1 else ''}.", ""]
    for card in members:
        out += [f"## [{markup.text(card.title)}](../cards/{card.id}.md)", "",
                markup.text_with_math(card.summary), "", markup.display_math(card.cheatsheet_latex), ""]
    return "\n".join(out)


def render_topic_list(cards: list[Card], topics: list[Topic], prefix: str = "") -> str:
    """Bullet list of topics with their card counts, for the home page."""
    lines = []
    for topic, members in cards_by_topic(cards, topics):
        lines.append(f"- [{markup.text(topic.title)}]({prefix}topics/{topic.id}.md) "
                     f"({len(members)} cards): {markup.text(topic.description)}")
    return "\n".join(lines)


def render_home(template: str, cards: list[Card], topics: list[Topic], has_numbers: bool) -> str:
    return (template.replace(HOME_PLACEHOLDER, render_topic_list(cards, topics))
            .replace(NUMBERS_PLACEHOLDER, NUMBERS_LINK if has_numbers else ""))


def render_errata(cards: list[Card]) -> str:
    out = ["---", "title: Errata", "---", "", "# Errata", "",
           "Where an entry of the seed documents is wrong or imprecise, the card gives the "
           "corrected form. This page lists every such correction; it is generated from the "
           "cards' `errata` fields.", ""]
    listed = [c for c in sorted(cards, key=lambda c: c.id) if c.errata]
    if not listed:
        out.append("No corrections so far.")
    for card in listed:
        out += [f"## [{markup.text(card.title)}](cards/{card.id}.md)", ""]
        out += [f"- `{markup.text(e.seed)}`: {markup.text_with_math(e.note)}" for e in card.errata]
        out.append("")
    return "\n".join(out)


def render_glossary(cards: list[Card]) -> str:
    """Every symbol used on a card, with each meaning it is given and where; a symbol that
    several cards define is flagged, so clashing notations are visible in one place."""
    uses: dict[str, list[tuple[str, Card]]] = {}
    spelling: dict[str, str] = {}
    for card in sorted(cards, key=lambda c: c.title.casefold()):
        for symbol in card.symbols:
            key = "".join(symbol.symbol.split())
            spelling.setdefault(key, symbol.symbol)
            uses.setdefault(key, []).append((symbol.meaning, card))
    out = ["---", "title: Symbols", "---", "", "# Symbols", "",
           "Every symbol the cards define, with the meaning each card gives it. A symbol defined "
           "by several cards is marked: read its meanings side by side, since the same letter can "
           "stand for different things in different fields.", "",
           "| Symbol | Meanings | |", "|---|---|---|"]
    for key in sorted(uses, key=lambda k: (k.lstrip("\\").casefold(), k)):
        meanings = "<br>".join(f"{markup.cell(meaning)} ([{markup.cell(card.title)}](cards/{card.id}.md))"
                               for meaning, card in uses[key])
        flag = f"{len(uses[key])} cards" if len({c.id for _, c in uses[key]}) > 1 else ""
        out.append(f"| {markup.inline_math(spelling[key])} | {meanings} | {flag} |")
    return "\n".join(out) + "\n"
