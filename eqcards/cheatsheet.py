"""Build the one-page cheatsheet from card metadata: topics in order, one row per card."""

from __future__ import annotations

from . import markup
from .model import Card, Topic


def cards_by_topic(cards: list[Card], topics: list[Topic]) -> list[tuple[Topic, list[Card]]]:
    """Topics in declared order, each with its cards sorted by cheatsheet label; empty topics dropped."""
    grouped = []
    for topic in sorted(topics, key=lambda t: t.order):
        members = sorted((c for c in cards if c.topic == topic.id),
                         key=lambda c: (c.cheatsheet.label.casefold(), c.id))
        if members:
            grouped.append((topic, members))
    return grouped


def render_cheatsheet(cards: list[Card], topics: list[Topic], link_prefix: str = "cards/") -> str:
    """Markdown of the cheatsheet page. link_prefix points from the page to the cards folder."""
    out = ["---", "title: Cheatsheet", "---", "", "# Cheatsheet", "",
           '<p class="eqc-lead">Every card on one page: the formula and a link to its verified card. '
           "Generated from the cards on every build.</p>", ""]
    for topic, members in cards_by_topic(cards, topics):
        out += ['<section class="eqc-sheet-topic" markdown>', "",
                f"## {markup.text(topic.title)}", "",
                "| Quantity | Formula |", "|---|---|"]
        out += [f"| [{markup.cell(c.cheatsheet.label)}]({link_prefix}{c.id}.md) | "
                f"{markup.inline_math(c.cheatsheet_latex)} |" for c in members]
        out += ["", "</section>", ""]
    return "\n".join(out)
