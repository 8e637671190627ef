"""Tag pages: /tags/<tag>/ lists the cards that share a tag, /tags/ lists every tag."""

from __future__ import annotations

import re

from ..cards.model import Card
from . import markup
from .card_index import sort_key

# A tag gets a page of its own when at least this many cards carry it: a page listing only the card
# the reader came from is a dead end. A card's other tags are shown as plain words.
SHARED_BY = 2


def tag_slug(tag: str) -> str:
    """A tag's URL segment: lower case, each run of other characters than a-z and 0-9 one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", tag.casefold()).strip("-") or "tag"


def tagged_cards(cards: list[Card]) -> dict[str, tuple[str, list[Card]]]:
    """Each tag slug with the tag's name and its cards by title. Tags that differ only in case or
    punctuation ("kl divergence", "KL-divergence") share one slug, one page and the first name."""
    found: dict[str, tuple[str, list[Card]]] = {}
    for card in sorted(cards, key=lambda c: (sort_key(c.title), c.id)):
        for tag in dict.fromkeys(card.tags):
            members = found.setdefault(tag_slug(tag), (tag, []))[1]
            if card not in members:
                members.append(card)
    return found


def has_page(members: list[Card]) -> bool:
    """Whether a tag carried by these cards gets a page of its own (SHARED_BY cards or more)."""
    return len(members) >= SHARED_BY


def shared_tags(tags: dict[str, tuple[str, list[Card]]]) -> dict[str, tuple[str, list[Card]]]:
    """The tags that get a page."""
    return {slug: entry for slug, entry in tags.items() if has_page(entry[1])}


def tag_links(card: Card, tags: dict[str, tuple[str, list[Card]]]) -> list[tuple[str, str | None]]:
    """A card's tags as (name, site-relative URL of the tag page), for the theme's tag list; the
    URL is None for a tag no other card carries."""
    return [(tag, f"tags/{tag_slug(tag)}/" if has_page(tags[tag_slug(tag)][1]) else None)
            for tag in dict.fromkeys(card.tags)]


def render_tag_page(name: str, members: list[Card]) -> str:
    """One tag's page: its cards by title, with their summaries."""
    out = ["---", f"title: {('Tag: ' + markup.text(name))!r}", "search:", "  exclude: true", "---", "",
           f"# Tag: {markup.text(name)}", "",
           f"{len(members)} card{'s' if len(members) != 1 else ''} tagged “{markup.text(name)}”. "
           "[All tags](index.md)", "", '<ul class="eqc-az" markdown>']
    out += [f'<li markdown>[{markup.prose_with_math(c.title)}](../cards/{c.id}.md){{ .eqc-az-title }} '
            f'<span class="eqc-az-summary">{markup.prose_with_math(c.summary)}</span></li>' for c in members]
    return "\n".join([*out, "</ul>", ""])


def _index_target(slug: str, members: list[Card]) -> str:
    return f"{slug}.md" if has_page(members) else f"../cards/{members[0].id}.md"


def render_tags_index(tags: dict[str, tuple[str, list[Card]]]) -> str:
    """/tags/: every tag A to Z with its number of cards; a tag of one card links to that card."""
    ordered = sorted(tags.items(), key=lambda item: (sort_key(item[1][0]), item[0]))
    out = ["---", "title: Tags", "search:", "  exclude: true", "---", "", "# Tags", "",
           f"{len(tags)} tags; each links to the cards that carry it.", "",
           '<div class="eqc-tag-index" markdown>', ""]
    out += [f'- [{markup.text(name)}]({_index_target(slug, members)}) '
            f'<span class="eqc-tag-count">{len(members)}</span>' for slug, (name, members) in ordered]
    return "\n".join([*out, "", "</div>", ""])
