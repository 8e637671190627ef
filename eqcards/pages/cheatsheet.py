"""Build the cheatsheet from card metadata: parts and topics in order, one row per card, print-ready."""

from __future__ import annotations

from ..cards.model import Card, Part, Topic
from . import markup


def cards_by_topic(cards: list[Card], topics: list[Topic]) -> list[tuple[Topic, list[Card]]]:
    """Topics in declared order, each with its cards sorted by cheatsheet label; empty topics dropped."""
    grouped = []
    for topic in sorted(topics, key=lambda t: t.order):
        members = sorted((c for c in cards if c.topic == topic.id),
                         key=lambda c: (c.cheatsheet.label.casefold(), c.id))
        if members:
            grouped.append((topic, members))
    return grouped


def render_topic_section(topic: Topic, members: list[Card], link_prefix: str,
                         print_link: str | None = None, level: int = 2, lead: str = "") -> list[str]:
    """One topic: a heading and a row per card. Rows are blocks, not table rows, so the
    printed multi-column layout can move whole rows between columns without cutting them.
    `lead` (a part's heading) opens the section, so that it starts the topic's printed column."""
    heading = f"{'#' * level} {markup.text(topic.title)}"
    if print_link:
        heading += f' <a class="eqc-print-topic" href="{print_link}">print this topic</a>'
    out = ['<section class="eqc-sheet-topic" markdown>', "", *([lead, ""] if lead else []), heading, ""]
    for card in members:
        out += ['<div class="eqc-sheet-row" markdown>', "",
                f'<span class="eqc-sheet-label">[{markup.text(card.cheatsheet.label)}]'
                f"({link_prefix}{card.id}.md)</span> "
                '<span class="eqc-sheet-formula" tabindex="0">'
                f"{markup.inline_math(card.cheatsheet_latex)}</span>",
                "", "</div>"]
    out += ["", "</section>", ""]
    return out


def render_part_section(part: Part, cards: list[Card], link_prefix: str, print_links: bool) -> list[str]:
    """A part: its heading (a printed page break before it) and its topics."""
    members = cards_by_topic(cards, list(part.topics))
    if not members:
        return []
    heading = f"## {markup.text(part.title)}"
    if print_links:
        heading += f' <a class="eqc-print-topic" href="{part.id}/">print this part</a>'
    out = ['<div class="eqc-sheet-part" markdown>', ""]
    for i, (topic, topic_cards) in enumerate(members):
        out += render_topic_section(topic, topic_cards, link_prefix,
                                    print_link=f"{topic.id}/" if print_links else None, level=3,
                                    lead=heading if i == 0 else "")
    return [*out, "</div>", ""]


# Only the cheatsheet pages print in landscape, so the page size is declared on them alone.
PRINT_PAGE_STYLE = "<style>@page { size: A4 landscape; margin: 8mm; }</style>"


def _page(title: str, lead: str, body: list[str]) -> str:
    # Every formula here is on its card too; search should lead to the card.
    return "\n".join(["---", f"title: {title!r}", "search:", "  exclude: true", "---", "",
                      PRINT_PAGE_STYLE, "",
                      f"# {markup.text(title)}", "",
                      f'<p class="eqc-lead">{lead} <a class="eqc-print" href="javascript:window.print()">'
                      "Print</a></p>", "", '<div class="eqc-cheatsheet" markdown>', "", *body,
                      "</div>", ""])


def render_cheatsheet(cards: list[Card], parts: list[Part], link_prefix: str = "cards/",
                      extra_sections: str = "") -> str:
    """Markdown of the whole cheatsheet. link_prefix points from the page to the cards folder."""
    body: list[str] = []
    for part in parts:
        body += render_part_section(part, cards, link_prefix, print_links=True)
    if extra_sections:
        body.append(extra_sections)
    return _page("Cheatsheet", "Every card on one page, by part and topic, generated from the cards on "
                 "every build; prints on A4 landscape.", body)


def render_part_cheatsheet(part: Part, cards: list[Card]) -> str:
    """One part's cheatsheet, at /cheatsheet/<part>/, to print on its own."""
    body = render_part_section(part, cards, "../cards/", print_links=False)
    return _page(f"Cheatsheet: {part.title}", "One part of the [cheatsheet](../cheatsheet.md).", body)


def render_topic_cheatsheet(topic: Topic, cards: list[Card]) -> str:
    """A single topic's cheatsheet, at /cheatsheet/<topic>/, sized to print on one A4 page."""
    members = dict(cards_by_topic(cards, [topic])).get(topic, [])
    body = render_topic_section(topic, members, "../cards/")
    return _page(f"Cheatsheet: {topic.title}", "One topic of the [cheatsheet](../cheatsheet.md).", body)
