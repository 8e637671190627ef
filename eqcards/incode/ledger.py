"""The libcheck ledger (snippets/libcheck-ledger.json): which heavy-library mappings `make libcheck`
ran, against which versions, with what outcome; keyed by a hash of the mapping's code.

The build cannot run a torch or jax region (it does not install them), so it shows each one's status
from here, and `make test` fails where a region's code, or the formula it is checked against, has
changed since the ledger recorded it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cards.model import Card
from ..core.errors import CardError
from ..core.files import write_atomically
from ..snippets.regions import Region, formula_code, in_code_regions
from ..snippets.snippet_key import local_imports
from .libraries import is_heavy

LEDGER_FILE = "libcheck-ledger.json"  # in snippets/, beside mutation-scores.json
AGREES = "agrees"  # the outcome of a mapping whose every check passed


def mapping_hash(source: str, region: Region, helpers: dict[str, str] | None = None) -> str:
    """SHA-256 of the region's library and code, of the snippet's formula regions and of the helper
    modules the snippet imports (file name -> text; a fixture's data or a model wrapper the region
    uses): a change to any means the ledger's outcome no longer says anything about the mapping."""
    digest = hashlib.sha256()
    for part in (region.library, region.code, formula_code(source)):
        digest.update(part.encode() + b"\0")
    for name, text in sorted((helpers or {}).items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


def helper_texts(snippet: Path, snippets_dir: Path) -> dict[str, str]:
    """The helper modules (snippets/lib/) a snippet imports, transitively: file name -> text."""
    return {p.name: p.read_text(encoding="utf-8") for p in local_imports(snippet, snippets_dir)}


@dataclass(frozen=True)
class Status:
    """What the ledger says of one heavy mapping as the snippet now is."""

    library: str
    current: bool  # the ledger's entry is for this very code
    outcome: str | None  # AGREES, or what went wrong; None: never checked
    versions: dict[str, str]

    @property
    def checked(self) -> bool:
        return self.current and self.outcome == AGREES


def load(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """card id -> library -> {code, versions, outcome}; empty when there is no ledger yet."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CardError(path, f"the libcheck ledger is not JSON ({exc.msg}): restore it from git or "
                        "run `make libcheck`", exc.lineno) from None
    return data.get("cards", {})


def save(path: Path, cards: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Stable JSON, sorted, one key a line: a re-checked card changes only its own lines."""
    text = json.dumps({"cards": cards}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomically(path, text)


def statuses(source: str, card_id: str, ledger: dict[str, dict[str, dict[str, Any]]],
             helpers: dict[str, str] | None = None) -> dict[str, Status]:
    """The ledger's word on each heavy region of one card's snippet source (and the helper modules it
    imports, as `helper_texts` reads them), by library."""
    recorded = ledger.get(card_id, {})
    found = {}
    for region in in_code_regions(source):
        if not is_heavy(region.library):
            continue
        entry = recorded.get(region.library, {})
        code = mapping_hash(source, region, helpers)
        found[region.library] = Status(region.library, entry.get("code") == code,
                                       entry.get("outcome"), dict(entry.get("versions", {})))
    return found


def stale(cards: list[Card], snippets_dir: Path,
          ledger: dict[str, dict[str, dict[str, Any]]]) -> list[CardError]:
    """Each heavy mapping that the ledger does not record as checked for its present code."""
    problems = []
    for card in cards:
        snippet = snippets_dir / card.snippet
        source = snippet.read_text(encoding="utf-8")
        for library, status in statuses(source, card.id, ledger, helper_texts(snippet, snippets_dir)).items():
            if status.checked:
                continue
            at = next((i for i, e in enumerate(card.in_code) if e.library == library), None)
            why = ("has changed since `make libcheck` last checked it" if not status.current
                   else f"failed its last `make libcheck` ({status.outcome})")
            problems.append(CardError(card.path, f"in code: the {library} mapping of snippets/{card.snippet} "
                                      f"{why}: run `make libcheck` and commit snippets/{LEDGER_FILE}",
                                      card.line_of("in_code", at, "library") if at is not None else None))
    return problems
