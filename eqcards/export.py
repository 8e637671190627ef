"""The machine-readable export of all cards (site/cards.json)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from .model import Card
from .mutation_ledger import MeasuredScore
from .runner import SnippetResult


def card_records(cards: list[Card], results: dict[str, SnippetResult], site_url: str,
                 mutation: dict[str, MeasuredScore | None] | None = None) -> list[dict[str, Any]]:
    """One record per card. `mutation` holds each card's measured mutation score (see
    eqcards.mutation_ledger); a card without one is exported as not measured, never with a number."""
    records = []
    mutation = mutation or {}
    for card in sorted(cards, key=lambda c: c.id):
        result = results.get(card.id)
        score = mutation.get(card.id)
        status = "not-run" if result is None else ("verified" if result.ok else "failed")
        records.append({
            "id": card.id, "title": card.title, "topic": card.topic, "equation": card.equation,
            "summary": card.summary, "aliases": card.aliases, "tags": card.tags,
            "sources": [{k: v for k, v in asdict(s).items() if v is not None} for s in card.sources],
            "related": card.related, "seeds": card.seeds,
            "url": site_url.rstrip("/") + "/" + card.url if site_url else "/" + card.url,
            "snippet": f"snippets/{card.snippet}",
            "verification": {"status": status,
                             "checks": len(result.checks) if result else 0,
                             "mutation": score.record() if score is not None else {"measured": False}},
        })
    return records


def cards_json(cards: list[Card], results: dict[str, SnippetResult], site_url: str,
               mutation: dict[str, MeasuredScore | None] | None = None) -> str:
    return json.dumps({"cards": card_records(cards, results, site_url, mutation)},
                      indent=1, ensure_ascii=False, sort_keys=True) + "\n"
