"""/cards/: every card A to Z under a letter bar, each with its one-sentence summary."""

from __future__ import annotations

import unicodedata

from ..cards.model import Card
from . import markup

OTHER = "#"  # the group of titles that start with neither a Latin nor a Greek letter


def sort_key(title: str) -> str:
    """A title as it is alphabetized: case and accents ignored, and a leading Greek letter spelled
    out as its name, so "λ-return" files under L as "lamda-return"."""
    first = title[:1]
    name = unicodedata.name(first, "") if first else ""
    if name.startswith("GREEK"):
        title = name.split()[-1].lower() + title[1:]
    decomposed = unicodedata.normalize("NFKD", title)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def letter(title: str) -> str:
    """The letter a title is filed under: A to Z, or OTHER."""
    first = sort_key(title)[:1].upper()
    return first if "A" <= first <= "Z" else OTHER


def render_card_index(cards: list[Card]) -> str:
    """The A–Z index at /cards/ (docs path cards/index.md): a bar of the letters that have cards,
    then each letter's cards with their summaries."""
    ordered = sorted(cards, key=lambda c: (sort_key(c.title), c.id))
    groups: dict[str, list[Card]] = {}
    for card in ordered:
        groups.setdefault(letter(card.title), []).append(card)
    letters = sorted(groups, key=lambda g: (g == OTHER, g))
    anchors = {g: "other" if g == OTHER else g.lower() for g in letters}
    out = ["---", "title: All cards A–Z", "search:", "  exclude: true", "---", "", "# All cards A–Z", "",
           f"All {len(cards)} cards by title. Topic pages list the same cards in reading order: see "
           "[topics](../topics/index.md) or [parts](../parts/index.md).", "",
           '<nav class="eqc-letters" aria-label="Letters">'
           + "".join(f'<a href="#{anchors[g]}">{g}</a>' for g in letters) + "</nav>", ""]
    for group in letters:
        out += [f"## {group} {{ #{anchors[group]} }}", "", '<ul class="eqc-az" markdown>']
        out += [f'<li markdown>[{markup.prose_with_math(c.title)}]({c.id}.md){{ .eqc-az-title }} '
                f'<span class="eqc-az-summary">{markup.prose_with_math(c.summary)}</span></li>'
                for c in groups[group]]
        out += ["</ul>", ""]
    return "\n".join(out)
