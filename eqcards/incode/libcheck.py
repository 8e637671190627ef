"""`make libcheck`: every snippet with a heavy-library region run whole, under the interpreter of
.venv-libcheck (which has those libraries), and the outcome of each mapping written to the ledger."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from ..cards.model import Card
from ..snippets.jobs import SnippetJob, SnippetResult
from ..snippets.regions import WHOLE, in_code_regions
from ..snippets.runner import run_snippets
from .ledger import AGREES, helper_texts, mapping_hash
from .libraries import is_heavy


def version_of(library: str) -> str:
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "not installed"


def heavy_cards(cards: list[Card], snippets_dir: Path) -> list[Card]:
    """The cards whose snippet has a region the build cannot run."""
    return [c for c in cards if any(is_heavy(r.library) for r in
                                    in_code_regions((snippets_dir / c.snippet).read_text("utf-8")))]


def outcomes(card: Card, result: SnippetResult, source: str,
             helpers: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """The ledger entry of each heavy region: agrees when the run passed; when it failed, the region
    holding the failing line disagrees, one ending before it agrees, and one after it did not run."""
    entries = {}
    for region in in_code_regions(source):
        if not is_heavy(region.library):
            continue
        if result.ok or (result.line is not None and region.end < result.line):
            outcome = AGREES
        elif region.holds(result.line):
            outcome = f"disagrees: {result.error}"
        else:
            outcome = f"not run: the snippet failed first, at line {result.line}: {result.error}"
        entries[region.library] = {"code": mapping_hash(source, region, helpers),
                                   "versions": {region.library: version_of(region.library)},
                                   "outcome": outcome}
    return entries


def libcheck(cards: list[Card], snippets_dir: Path, root: Path,
             workers: int | None = None) -> tuple[dict[str, dict[str, dict[str, Any]]], list[str],
                                                   list[str]]:
    """Run each card with a heavy region whole (no cache: the point is to run them); returns the
    ledger entries by card, one line per card that passed (its checks and the versions that ran)
    and the failures, each naming the card, the library and its version."""
    chosen = heavy_cards(cards, snippets_dir)
    jobs = [SnippetJob(c.id, c.path, snippets_dir / c.snippet, c.timeout) for c in chosen]
    report = run_snippets(jobs, snippets_dir, None, workers, environment={WHOLE: "1"})
    entries, passed, failures = {}, [], []
    for card in chosen:
        result = report.results[card.id]
        snippet = snippets_dir / card.snippet
        entries[card.id] = outcomes(card, result, snippet.read_text("utf-8"),
                                    helper_texts(snippet, snippets_dir))
        if result.ok:
            ran = ", ".join(f"{lib} {e['versions'][lib]}" for lib, e in entries[card.id].items())
            passed.append(f"{card.id}: {len(result.checks)} checks passed, with {ran}")
        else:
            failures.append(result.describe_failure(root))
    return entries, passed, failures
