"""Provenance, for the About page and the pages only it links: what the site was built from (a
handbook and a cheatsheet of formulas, the "seed documents"), how much of them the cards cover,
and where the cards correct them. No other page speaks of them: a reader never saw them."""

from __future__ import annotations

from ..cards.model import Card, Topic
from . import markup

# Where a seed entry is realized: (title, docs-relative link) of each card or numbers entry.
Realizers = dict[str, list[tuple[str, str]]]


def seed_realizers(cards: list[Card], numbers: list = ()) -> Realizers:
    """Each seed entry with the cards (and quick-reference numbers) that realize it."""
    found: Realizers = {}
    for card in sorted(cards, key=lambda c: c.id):
        for seed in card.seeds:
            found.setdefault(seed, []).append((card.title, f"cards/{card.id}.md"))
    for entry in numbers:
        found.setdefault(entry.seed, []).append((f"Numbers: {entry.label}", f"numbers.md#{entry.id}"))
    return found


def coverage_counts(realizers: Realizers, seed_keys: list[str]) -> dict[str, tuple[int, int]]:
    """Seed entries realized by some card, out of all, per seed document."""
    counts = {}
    for doc in ("handbook", "cheatsheet"):
        keys = [k for k in seed_keys if k.startswith(doc + "/")]
        counts[doc] = (sum(k in realizers for k in keys), len(keys))
    return counts


def render_about(cards: list[Card], realizers: Realizers, seed_keys: list[str], has_numbers: bool) -> str:
    """The About page (docs path about/index.md): what the site is, what it was built from, how
    much of that it covers (the full table is linked), and how it checks and corrects itself."""
    counts = coverage_counts(realizers, seed_keys)
    (h, h_all), (c, c_all) = counts["handbook"], counts["cheatsheet"]
    corrected = [card for card in cards if card.errata]
    numbers = " and the [numbers](../numbers.md) page" if has_numbers else ""
    out = ["---", "title: About this site", "---", "", "# About this site", "",
           "Equation Cards is a reference of the mathematics of large language models, retrieval-augmented "
           "generation and AI agents, one formula per card. Every card's formula is computed by a short "
           "program at build time and compared with an independent route, and the strength of that "
           "check is measured by breaking the formula on purpose (the score each card shows).", "",
           "## What the site was built from", "",
           "The site grew from two seed documents that were never published with it: a handbook of "
           "equations for LLMs, RAG and agents, organized in numbered sections, and a one-page "
           "cheatsheet of formulas in tables. Each card names the entries it realizes, so what the "
           "site covers can be counted:", "",
           f"- **Handbook**: {h} of its {h_all} entries are realized by a card{numbers}.",
           f"- **Cheatsheet**: {c} of its {c_all} rows are realized.",
           f"- **Cards**: {len(cards)}; many go beyond both documents.", "",
           "The [coverage table](../coverage.md) lists every entry of both documents with the card that "
           "realizes it, or says it is not covered yet.", "",
           "## Where the cards correct the seed documents", "",
           f"Where an entry of the seed documents is wrong or imprecise, its card gives the corrected form "
           f"and shows the mistake to readers as a *common mistake*. {len(corrected)} cards do; "
           "[the corrections](corrections.md) lists them with the entry each corrects.", "",
           "## The site's own corrections", "",
           "Changes the site made to its own published cards are listed on the [errata](../errata.md) "
           "page and, by release, in the [changelog](../changelog.md).", ""]
    return "\n".join(out)


def render_corrections(cards: list[Card]) -> str:
    """Every card that corrects an entry of the seed documents, with the entry and the correction
    (docs path about/corrections.md)."""
    listed = [c for c in sorted(cards, key=lambda c: c.title.casefold()) if c.errata]
    out = ["---", "title: Corrections to the seed documents", "search:", "  exclude: true", "---", "",
           "# Corrections to the seed documents", "",
           "Where an entry of the documents this site grew from (see [About this site](index.md)) is "
           "wrong or imprecise, and what the card says instead. Each card shows these notes to its "
           "readers as common mistakes.", ""]
    if not listed:
        out.append("No corrections so far.")
    for card in listed:
        out += [f"## [{markup.prose_with_math(card.title)}](../cards/{card.id}.md)", ""]
        out += [f"- `{markup.text(e.seed)}`: {markup.prose_with_math(e.note)}" for e in card.errata]
        out.append("")
    return "\n".join(out)


def render_coverage(realizers: Realizers, seed_keys: list[str], topics: list[Topic]) -> str:
    """Every seed entry (handbook section and heading, cheatsheet table and row) with the card
    that realizes it, or "not yet"."""
    counts = coverage_counts(realizers, seed_keys)
    out = ["---", "title: Coverage of the source documents", "search:", "  exclude: true", "---", "",
           "# Coverage of the source documents", "",
           "The site grew from two seed documents: a handbook of equations for LLMs, RAG and agents, "
           "and a one-page cheatsheet. Every entry of both is listed here with the card that realizes "
           "it; an entry several cards realize lists them all. Generated from the cards' `seeds` fields "
           "and the numbers page. [About this site](about/index.md)", ""]
    for doc, name in (("handbook", "Handbook"), ("cheatsheet", "Cheatsheet")):
        done, total = counts[doc]
        out.append(f"- **{name}**: {done} of {total} entries covered, {total - done} not yet.")
    out.append("")
    section_topics: dict[str, list[Topic]] = {}
    for topic in topics:
        for number in topic.handbook:
            section_topics.setdefault(str(number), []).append(topic)
    groups: dict[tuple[str, str], list[str]] = {}
    for key in seed_keys:
        doc, group, _ = key.split("/", 2)
        groups.setdefault((doc, group), []).append(key)
    current_doc = None
    for (doc, group), keys in groups.items():
        if doc != current_doc:
            current_doc = doc
            out += [f"## {'Handbook' if doc == 'handbook' else 'Cheatsheet'}", ""]
        done = sum(k in realizers for k in keys)
        if doc == "handbook":
            names = ", ".join(markup.text(t.title) for t in section_topics.get(group, []))
            title = f"Section {group}" + (f": {names}" if names else "")
        else:
            title = markup.text(group)
        out += [f"### {title} ({done} of {len(keys)})", "", "| Entry | Realized by |", "|---|---|"]
        for key in keys:
            entry = markup.cell(key.split("/", 2)[2])
            found = realizers.get(key)
            where = (", ".join(f"[{markup.cell(title)}]({link})" for title, link in found)
                     if found else "*not yet*")
            out.append(f"| {entry} | {where} |")
        out.append("")
    return "\n".join(out)
