"""The formula search index: cards as weighted fields, other pages as title and text.

The site's search box talks to our own worker (docs/javascripts/search-worker.js) instead of
lunr: lunr cannot weight aliases, splits `d_k` into single letters and has no typo tolerance.
The worker tokenizes and ranks (docs/javascripts/search-engine.js); this module decides what
is indexed and how much each field counts, and rewrites the theme's search_index.json.

The documents are written as pieces a query loads as it needs them (search_index.py): the
vocabulary first, then the postings of the words it matched and the records of its top results.
Each card's formula preview is a file of its own (search_previews.py).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..cards.model import Card, Topic
from ..typeset.mathsvg import MathRenderer
from . import markup
from .search_index import write_index
from .search_previews import write_previews

# Every indexed field and its weight, declared once; the worker reads them from the index.
# A hit in a card's own name or an alias outweighs any number of hits in its prose.
SEARCH_FIELDS: dict[str, float] = {
    "name": 12.0,     # card title, or the page title
    "alias": 10.0,    # other names, abbreviations, symbol spellings (front matter `aliases`)
    "code": 6.0,      # the library calls of its In code section (kl_div, F.kl_div, ndcg_score)
    "symbol": 5.0,    # LaTeX of each symbol in the symbols table
    "tex": 3.0,       # the equation and its cheatsheet form
    "tags": 3.0,      # front matter `tags` and the topic title
    "summary": 2.0,   # the one-line summary
    "text": 1.0,      # everything else a reader sees: prose, symbol meanings, sources
}
# Pages that only repeat the cards' content in another arrangement: findable by their title,
# but their text would outrank the cards it repeats.
TITLE_ONLY = ("cheatsheet/", "symbols/")
SHARE_PAGE = "index.html"  # search/index.html: /search/?q=... opens the search box with that query
# /search/?q=... is the address to share: the theme opens its search box with the query when an
# address carries ?q=, so this page hands the query to the home page.
SHARE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Search</title>
<meta name="robots" content="noindex">
<script>location.replace("../" + location.search + location.hash);</script></head>
<body><p><a href="../">Open the search on the home page</a>.</p></body></html>
"""
TEXT_LIMIT = 4000  # characters of prose indexed per page; a teaser, not the whole page
TAG = re.compile(r"<[^>]+>")
TEASER_LIMIT = 200  # characters of a page's text shown under its title in the results
# A typeset formula's TeX, as the page keeps it for search (eqcards/typeset/mathsvg.py): \(...\) or \[...\].
INDEXED_MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.S)


def plain_text(markup: str) -> str:
    """The words a reader sees in an index entry: tags dropped, entities decoded."""
    return " ".join(html.unescape(TAG.sub(" ", markup)).split())


def readable(text: str, limit: int | None = None) -> str:
    """Indexed text as a search result shows it (titles and teasers are shown, never matched):
    formulas in Unicode (markup.tex_to_text), not TeX; cut at a word within `limit` characters."""
    text = " ".join(INDEXED_MATH.sub(lambda m: markup.tex_to_text(m.group(1) or m.group(2) or ""),
                                     text).split())
    if limit is None or len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


# A called name in an In code entry's `call`: `F.kl_div(` gives F.kl_div; a method called on a
# result (`entr(P).sum()`) is not the library's name for the quantity and is left out.
CALLED = re.compile(r"(?<![\w.)\]])([A-Za-z_][\w.]*)\s*\(")


# The import aliases every tutorial uses, full path first: a call written one way is found the other.
IMPORT_ALIASES = (("torch.nn.functional.", "F."), ("torch.nn.", "nn."), ("jax.numpy.", "jnp."),
                  ("numpy.", "np."))


def spelled_both_ways(name: str) -> list[str]:
    """A called name and its spelling under the usual import alias (`F.kl_div` and
    `torch.nn.functional.kl_div`), so that the name a reader types shares every word with the card's."""
    for full, short in IMPORT_ALIASES:
        if name.startswith(full):
            return [name, short + name[len(full):]]
        if name.startswith(short):
            return [name, full + name[len(short):]]
    return [name]


def library_calls(card: Card) -> list[str]:
    """The functions and classes a card's In code entries call, as written (`torch.nn.functional.kl_div`)
    and under the usual import alias (`F.kl_div`); the engine splits a name at its dots, so `kl_div`,
    `F.kl_div` and `optax.adamw` all find the card."""
    return list(dict.fromkeys(spelled for entry in card.in_code for name in CALLED.findall(entry.call)
                              for spelled in spelled_both_ways(name)))


def card_document(card: Card, topic: Topic, prose: str,
                  preview: dict[str, Any] | None = None) -> dict[str, Any]:
    """A card's search document: its part and topic (for part: and topic: filters), its formula
    preview, its metadata field by field, then its prose."""
    tex = [card.equation] + ([card.cheatsheet.latex] if card.cheatsheet.latex else [])
    return {
        "location": card.url,
        "title": markup.plain(card.title),
        "teaser": markup.plain(card.summary),
        "part": topic.part,
        "topic": topic.id,
        **({"preview": preview} if preview else {}),
        "fields": {
            "name": card.title,
            "alias": card.aliases,
            **({"code": library_calls(card)} if card.in_code else {}),
            "symbol": [s.symbol for s in card.symbols],
            "tex": tex,
            "tags": [*card.tags, topic.title],
            "summary": card.summary,
            "text": prose[:TEXT_LIMIT],
        },
    }


def page_document(location: str, title: str, text: str) -> dict[str, Any]:
    """A page that is not a card: its title, and its text unless it merely repeats cards."""
    title_only = location.startswith(TITLE_ONLY)
    body = "" if title_only else text[:TEXT_LIMIT]
    return {"location": location, "title": readable(title), "teaser": readable(body, TEASER_LIMIT),
            "fields": {"name": title, "text": body}}


def build_documents(entries: Iterable[dict[str, Any]], cards: dict[str, Card], topics: dict[str, Topic],
                    previews: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One document per page, from the theme's per-section entries and the cards' metadata."""
    pages: dict[str, dict[str, Any]] = {}
    for entry in entries:
        page, _, _ = entry["location"].partition("#")
        record = pages.setdefault(page, {"title": "", "text": []})
        if not record["title"]:  # the theme lists a page before its sections
            record["title"] = plain_text(entry["title"])
        record["text"].append(plain_text(entry.get("text", "")))
    documents = []
    for location, record in pages.items():
        prose = " ".join(filter(None, record["text"]))
        card = cards.get(location)
        if card is not None:
            documents.append(card_document(card, topics[card.topic], prose, (previews or {}).get(location)))
        else:
            documents.append(page_document(location, record["title"], prose))
    return documents


def rewrite_index(index_path: Path, cards: Iterable[Card], topics: dict[str, Topic],
                  math: MathRenderer | None = None) -> None:
    """Replace the theme's lunr index with ours, in place.

    The theme fetches search_index.json on every page load, so it keeps only the settings; the
    documents go to search/index/ in the pieces a query loads (search_index.py), and each card's
    formula preview (with a renderer) to search/formulas/.
    """
    theme_index = json.loads(index_path.read_text(encoding="utf-8"))
    cards = list(cards)
    previews = write_previews(cards, math, index_path.parent) if math is not None else {}
    documents = build_documents(theme_index["docs"], {card.url: card for card in cards}, topics, previews)
    settings = write_index(index_path.parent, SEARCH_FIELDS, documents)
    index_path.with_name(SHARE_PAGE).write_text(SHARE_HTML, encoding="utf-8")
    index_path.write_text(_json({"config": settings, "docs": []}), encoding="utf-8")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
