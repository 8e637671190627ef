"""The machine-readable export of all cards (site/cards.json)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from .model import Card
from .runner import SnippetResult


def card_records(cards: list[Card], results: dict[str, SnippetResult], site_url: str) -> list[dict[str, Any]]:
    records = []
    for card in sorted(cards, key=lambda c: c.id):
        result = results.get(card.id)
        status = "not-run" if result is None else ("verified" if result.ok else "failed")
        records.append({
            "id": card.id, "title": card.title, "topic": card.topic, "equation": card.equation,
            "summary": card.summary, "aliases": card.aliases, "tags": card.tags,
            "sources": [{k: v for k, v in asdict(s).items() if v is not None} for s in card.sources],
            "related": card.related, "seeds": card.seeds,
            "url": site_url.rstrip("/") + "/" + card.url if site_url else "/" + card.url,
            "snippet": f"snippets/{card.snippet}",
            "verification": {"status": status,
                             "checks": len(result.checks) if result else 0},
        })
    return records


def cards_json(cards: list[Card], results: dict[str, SnippetResult], site_url: str) -> str:
    return json.dumps({"cards": card_records(cards, results, site_url)},
                      indent=1, ensure_ascii=False, sort_keys=True) + "\n"
