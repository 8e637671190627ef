"""Build the cheatsheet from card metadata: parts and topics in order, one row per card, print-ready."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..cards.model import Card, Part, Topic
from . import markup


@dataclass(frozen=True)
class Imprint:
    """What every printed page of a cheatsheet says it is: the site, the release and date of the
    text it was printed from, and where to find it again."""

    site_name: str
    edition_date: str  # ISO date of the sources the site was built from
    release: str | None = None  # the newest release, when the site has one
    release_date: str | None = None
    site_url: str | None = None  # absolute, ending in '/'; None when the build has no public address

    def version(self) -> str:
        """The release and the date, as a printed page names them."""
        if self.release is None:
            return f"edition of {self.edition_date}"
        if self.release_date == self.edition_date:
            return f"release {self.release} of {self.release_date}"
        return f"release {self.release} of {self.release_date}, edition of {self.edition_date}"

    def address(self, path: str) -> str | None:
        """The absolute address of the page at `path` (from the site's root), if the site has one."""
        return f"{self.site_url.rstrip('/')}/{path}" if self.site_url else None


def cards_by_topic(cards: list[Card], topics: list[Topic]) -> list[tuple[Topic, list[Card]]]:
    """Topics in declared order, each with its cards sorted by cheatsheet label; empty topics dropped."""
    grouped = []
    for topic in sorted(topics, key=lambda t: t.order):
        members = sorted((c for c in cards if c.topic == topic.id),
                         key=lambda c: (c.cheatsheet.label.casefold(), c.id))
        if members:
            grouped.append((topic, members))
    return grouped


def _heading(level: int, title: str, print_link: str | None, what: str) -> list[str]:
    """A heading that holds the title alone (its anchor is the title's), with the link that prints
    it beside it, outside the heading."""
    out = ['<div class="eqc-sheet-head" markdown>', "", f"{'#' * level} {markup.text_with_math(title)}", ""]
    if print_link:
        out += [f'<a class="eqc-print-topic" href="{print_link}">print this {what}</a>', ""]
    return [*out, "</div>", ""]


def render_topic_section(topic: Topic, members: list[Card], link_prefix: str, print_link: str | None = None,
                         level: int = 2, lead: list[str] | None = None) -> list[str]:
    """One topic: a heading and a row per card. Rows are blocks, not table rows, so the printed
    columns can move whole rows between them without cutting one. `lead` (a part's heading) opens
    the section, so that it is printed with the topic's heading and first row."""
    out = ['<section class="eqc-sheet-topic" markdown>', "", *(lead or []),
           *_heading(level, topic.title, print_link, "topic")]
    for card in members:
        out += ['<div class="eqc-sheet-row" markdown>', "",
                f'<span class="eqc-sheet-label">[{markup.text_with_math(card.cheatsheet.label)}]'
                f"({link_prefix}{card.id}.md)</span> "
                '<span class="eqc-sheet-formula" tabindex="0">'
                f"{markup.inline_math(card.cheatsheet_latex)}</span>",
                "", "</div>"]
    out += ["", "</section>", ""]
    return out


def render_part_section(part: Part, cards: list[Card], link_prefix: str, print_links: bool) -> list[str]:
    """A part: its heading and its topics."""
    members = cards_by_topic(cards, list(part.topics))
    if not members:
        return []
    heading = _heading(2, part.title, f"{part.id}/" if print_links else None, "part")
    out = ['<div class="eqc-sheet-part" markdown>', ""]
    for i, (topic, topic_cards) in enumerate(members):
        out += render_topic_section(topic, topic_cards, link_prefix,
                                    print_link=f"{topic.id}/" if print_links else None, level=3,
                                    lead=heading if i == 0 else None)
    return [*out, "</div>", ""]


def css_string(value: str) -> str:
    """`value` as a quoted CSS string, safe inside a <style> element."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3C ")
    return '"' + re.sub(r"[\n\r\f]", " ", escaped) + '"'


# Printed page margins in mm (top, left and right, bottom): the top and bottom ones hold the imprint.
PAGE_MARGINS_MM = (11, 8, 9)


def print_style(title: str, imprint: Imprint | None, path: str) -> str:
    """The page's print layout: A4 landscape (only the cheatsheet pages print so, so it is declared
    on them alone), and in the margin of every printed page what it is and where it comes from.
    Without a public address the address is the one the page is read at
    (docs/javascripts/cheatsheet.js writes it)."""
    rules = ["size: A4 landscape;", "margin: {}mm {}mm {}mm;".format(*PAGE_MARGINS_MM)]
    if imprint is not None:
        address = imprint.address(path)
        boxes = {"top-left": f"{imprint.site_name} · {title}", "top-right": imprint.version(),
                 **({"bottom-left": address} if address else {})}
        rules += [f"@{box} {{ content: {css_string(text)}; }}" for box, text in boxes.items()]
        rules.append('@bottom-right { content: "page " counter(page) " of " counter(pages); }')
    return f"<style>@page {{ {' '.join(rules)} }}</style>"


def _page(title: str, lead: str, body: list[str], imprint: Imprint | None, path: str,
          single_topic: bool = False) -> str:
    # Every formula here is on its card too; search should lead to the card.
    address = "" if imprint is None or imprint.site_url else " data-print-address"
    # One topic fills a page at most: it prints larger, in two columns (docs/stylesheets/cheatsheet.css).
    kind = " eqc-sheet-single" if single_topic else ""
    return "\n".join(["---", f"title: {title!r}", "search:", "  exclude: true", "---", "",
                      print_style(markup.plain(title), imprint, path), "",
                      f"# {markup.text_with_math(title)}", "",
                      f'<p class="eqc-lead">{lead} <a class="eqc-print" href="javascript:window.print()">'
                      "Print</a></p>", "", f'<div class="eqc-cheatsheet{kind}"{address} markdown>', "", *body,
                      "</div>", ""])


def render_cheatsheet(cards: list[Card], parts: list[Part], link_prefix: str = "cards/",
                      extra_sections: str = "", imprint: Imprint | None = None) -> str:
    """Markdown of the whole cheatsheet. link_prefix points from the page to the cards folder."""
    body: list[str] = []
    for part in parts:
        body += render_part_section(part, cards, link_prefix, print_links=True)
    if extra_sections:
        body.append(extra_sections)
    return _page("Cheatsheet", "Every card on one page, by part and topic, generated from the cards on "
                 "every build; prints on A4 landscape.", body, imprint, "cheatsheet/")


def render_part_cheatsheet(part: Part, cards: list[Card], imprint: Imprint | None = None) -> str:
    """One part's cheatsheet, at /cheatsheet/<part>/, to print on its own."""
    body = render_part_section(part, cards, "../cards/", print_links=False)
    return _page(f"Cheatsheet: {part.title}", "One part of the [cheatsheet](../cheatsheet.md).", body,
                 imprint, f"cheatsheet/{part.id}/")


def render_topic_cheatsheet(topic: Topic, cards: list[Card], imprint: Imprint | None = None) -> str:
    """A single topic's cheatsheet, at /cheatsheet/<topic>/, sized to print on one A4 page."""
    members = dict(cards_by_topic(cards, [topic])).get(topic, [])
    body = render_topic_section(topic, members, "../cards/")
    return _page(f"Cheatsheet: {topic.title}", "One topic of the [cheatsheet](../cheatsheet.md).", body,
                 imprint, f"cheatsheet/{topic.id}/", single_topic=True)
