"""Breadcrumbs: where a page sits in the site (part, topic, card), shown above its title."""

from __future__ import annotations

from ..cards.model import Card, Part, Topic
from . import markup


def render_breadcrumb(trail: list[tuple[str, str | None]]) -> str:
    """A breadcrumb from (HTML label, href) pairs, outermost first; the last is the page itself
    (href None). The separators are drawn by CSS, so screen readers hear only the labels."""
    items = [f'<li><a href="{href}">{label}</a></li>' if href else f'<li aria-current="page">{label}</li>'
             for label, href in trail]
    return f'<nav class="eqc-breadcrumb" aria-label="Breadcrumb"><ol>{"".join(items)}</ol></nav>'


def card_breadcrumb(card: Card, topic: Topic, part: Part) -> str:
    """Part › Topic › card, for the card page at /cards/<id>/."""
    return render_breadcrumb([(markup.text(part.title), f"../../parts/{part.id}/"),
                              (markup.text(topic.title), f"../../topics/{topic.id}/"),
                              (markup.scripts_html(card.title), None)])
