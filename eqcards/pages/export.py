"""The machine-readable export of all cards (site/cards.json)."""

from __future__ import annotations

import json
from typing import Any

from ..cards.model import Card
from ..cards.releases import CardRecord
from ..mutants.mutation_ledger import MeasuredScore
from ..snippets.jobs import SnippetResult


def card_records(cards: list[Card], results: dict[str, SnippetResult], site_url: str,
                 mutation: dict[str, MeasuredScore | None] | None = None,
                 history: dict[str, CardRecord] | None = None) -> list[dict[str, Any]]:
    """One record per card. `mutation` holds each card's measured mutation score (see
    eqcards.mutants.mutation_ledger); a card without one is exported as not measured, never with a number.
    `history` holds each card's record across the releases (eqcards.cards.releases), when there are any."""
    records = []
    mutation = mutation or {}
    history = history or {}
    for card in sorted(cards, key=lambda c: c.id):
        result = results.get(card.id)
        score = mutation.get(card.id)
        status = "not-run" if result is None else ("verified" if result.ok else "failed")
        records.append({
            "id": card.id, "title": card.title, "topic": card.topic, "equation": card.equation,
            "summary": card.summary, "aliases": card.aliases, "tags": card.tags,
            "sources": [s.record() for s in card.sources],
            "related": card.related, "seeds": card.seeds,
            # Without a site URL, the path from the site's root (where cards.json is).
            "url": site_url.rstrip("/") + "/" + card.url if site_url else card.url,
            "snippet": f"snippets/{card.snippet}",
            "verification": {"status": status,
                             "checks": len(result.checks) if result else 0,
                             "mutation": score.record() if score is not None else {"measured": False}},
        })
        if card.calculator is not None:  # the URL parameters of its page: ?<name>=<value>
            records[-1]["calculator"] = {
                "inputs": [{"name": i.name, "symbol": i.symbol, "meaning": i.meaning, "unit": i.unit,
                            "default": i.default, "min": i.min, "max": i.max}
                           for i in card.calculator.inputs],
                "outputs": [{"name": o.name, "symbol": o.symbol, "meaning": o.meaning, "unit": o.unit,
                             "expression": o.expr} for o in card.calculator.outputs],
                "presets": list(card.calculator.presets)}
        if (record := history.get(card.id)) is not None:
            records[-1]["release"] = release_record(card, record)
    return records


def release_record(card: Card, record: CardRecord) -> dict[str, Any]:
    """When the card was added and last changed, whether it has changed since, and its history."""
    last = record.last_changed_in
    return {"added_in": record.added_in.version if record.added_in else None,
            "last_changed_in": last.version if last else None,
            "unreleased_changes": list(record.unreleased),
            "history": [{"release": h.release, "date": h.date, "note": h.note} for h in card.history]}


def cards_json(cards: list[Card], results: dict[str, SnippetResult], site_url: str,
               mutation: dict[str, MeasuredScore | None] | None = None,
               history: dict[str, CardRecord] | None = None, release: str | None = None) -> str:
    head = {"release": release} if release else {}
    return json.dumps({**head, "cards": card_records(cards, results, site_url, mutation, history)},
                      indent=1, ensure_ascii=False, sort_keys=True) + "\n"
