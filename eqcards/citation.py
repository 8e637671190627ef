"""How to cite a card: BibTeX, a plain-text reference, Highwire meta tags, and old-id redirects."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass

from .model import Card

AUTHOR = "Equation Cards contributors"


@dataclass(frozen=True)
class Edition:
    """What identifies this build of the site in a citation."""

    site_name: str
    site_url: str  # absolute, ending in '/'
    date: str  # ISO date of the commit the site was built from

    def card_url(self, card_id: str) -> str:
        return f"{self.site_url.rstrip('/')}/cards/{card_id}/"


def _bibtex_escape(value: str) -> str:
    return "".join("\\" + ch if ch in "{}&%$#_" else ch for ch in value)


def bibtex(card: Card, edition: Edition) -> str:
    fields = {
        "title": "{" + _bibtex_escape(card.title) + "}",
        "author": "{" + AUTHOR + "}",
        "howpublished": _bibtex_escape(edition.site_name),
        "year": edition.date[:4],
        "url": edition.card_url(card.id),
        "note": f"Version of {edition.date}",
        "urldate": edition.date,
    }
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields.items())
    return f"@misc{{eqcards:{card.id},\n{body}\n}}"


def plain_citation(card: Card, edition: Edition) -> str:
    return (f"{AUTHOR}. \u201c{card.title}.\u201d {edition.site_name}, version of {edition.date}. "
            f"{edition.card_url(card.id)} (accessed {edition.date}).")


def highwire_meta(card: Card, edition: Edition) -> dict[str, str]:
    """Highwire Press tags that Zotero and Google Scholar read from a page's <head>."""
    return {
        "citation_title": card.title,
        "citation_author": AUTHOR,
        "citation_publication_date": edition.date.replace("-", "/"),
        "citation_public_url": edition.card_url(card.id),
        "citation_publisher": edition.site_name,
    }


def render_cite_box(card: Card, edition: Edition) -> str:
    """A collapsible block; every code block gets a copy button from the theme."""
    def block(title: str, lang: str, content: str) -> list[str]:
        return [f"    **{title}**", "", f"    ```{lang}", *[f"    {line}" for line in content.splitlines()],
                "    ```", ""]

    lines = ['??? quote "BibTeX, plain text, link and LaTeX"', ""]
    lines += block("BibTeX", "bibtex", bibtex(card, edition))
    lines += block("Plain text", "text", plain_citation(card, edition))
    lines += block("Link to this card", "text", edition.card_url(card.id))
    lines += block("Equation (LaTeX)", "latex", card.equation)
    return "\n".join(lines)


def redirect_page(relative_url: str, canonical_url: str) -> str:
    """A static page at a former id's URL that sends readers (and their #anchor) to the card."""
    rel = html.escape(relative_url, quote=True)
    canonical = html.escape(canonical_url, quote=True)
    script_target = json.dumps(relative_url).replace("</", "<\\/")
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f"<title>Moved</title><link rel=\"canonical\" href=\"{canonical}\">\n"
        f"<script>location.replace({script_target} + location.hash)</script>\n"
        f"<meta http-equiv=\"refresh\" content=\"0; url={rel}\">\n"
        f"</head><body><p>This card has moved to <a href=\"{rel}\">{canonical}</a>.</p></body></html>\n"
    )
