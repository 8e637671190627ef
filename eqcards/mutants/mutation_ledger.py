"""The committed ledger of mutation scores (snippets/mutation-scores.json): hash, atomic update, lookup.

The ledger holds, per card, what `scripts/mutants.py` measured for one version of its snippet: the
hash of the snippet and the helper modules it imports (never library versions, so the ledger is
the same on every machine), the version of the mutation tool that measured it, the counts, every
mutant tried with its outcome and, for a formula with few mutants, the snippet's reason. The build
shows a card's score only when the entry's hash matches the snippet as it is now and its tool
version is the current one (new operators make every older score stale).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.config import helpers_dir
from ..core.files import write_atomically

LEDGER_NAME = "mutation-scores.json"
LEDGER_FORMAT = 1
# The version of the mutation tool (eqcards.mutation_run uses it too). Bump it when operators or
# scoring change: cached outcomes stop matching, and ledger entries measured by an older version
# read as not measured until `make mutants` runs again.
# 2: set and boolean operators, any/all, slices mirrored, argument order; `# few mutants:`.
TOOL_VERSION = 2


IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+(\w+)|import[ \t]+([\w., \t]+))", re.MULTILINE)


def content_hash(snippet: Path, snippets_dir: Path) -> str:
    """SHA-256 over the snippet and the helper modules (snippets_dir's lib/) it imports, transitively
    (by file name and content; no library or Python version). Imports are found by their lines,
    not by parsing: a build hashes every snippet, and this stays cheap."""
    texts = {snippet: snippet.read_bytes()}
    pending = [snippet]
    while pending:
        for name in _imported_names(texts[pending.pop()]):
            helper = helpers_dir(snippets_dir) / f"{name}.py"
            if helper not in texts and helper.is_file():
                texts[helper] = helper.read_bytes()
                pending.append(helper)
    digest = hashlib.sha256(b"eqcards-mutation\0")
    for file in [snippet, *sorted(f for f in texts if f != snippet)]:
        digest.update(file.name.encode() + b"\0" + hashlib.sha256(texts[file]).digest())
    return digest.hexdigest()


def _imported_names(data: bytes) -> list[str]:
    """Top-level module names on the import lines of a Python file."""
    names: list[str] = []
    for match in IMPORT_LINE.finditer(data.decode("utf-8", errors="replace")):
        if match.group(1):
            names.append(match.group(1))
        else:
            names += [part.split()[0].split(".")[0] for part in match.group(2).split(",") if part.split()]
    return names


@dataclass(frozen=True)
class MeasuredScore:
    """A card's mutation score, as recorded for the current version of its snippet."""

    killed: int  # includes timed_out
    tried: int  # mutants run (equivalents excluded)
    equivalent: int
    timed_out: int = 0
    mutants: list[dict[str, Any]] = field(default_factory=list)  # {line, operator, status, diff, by|reason}
    snippet: str = ""
    few: str | None = None  # why the formula admits fewer than five mutants (`# few mutants:`)

    @property
    def survived(self) -> int:
        return self.tried - self.killed

    @property
    def score(self) -> float | None:
        return self.killed / self.tried if self.tried else None

    def of(self, status: str) -> list[dict[str, Any]]:
        return [m for m in self.mutants if m.get("status") == status]

    def record(self) -> dict[str, Any]:
        """For cards.json."""
        record = {"measured": True, "tried": self.tried, "killed": self.killed, "survived": self.survived,
                  "equivalent": self.equivalent, "timed_out": self.timed_out,
                  "score": round(self.score, 4) if self.score is not None else None,
                  "survivors": [f"{self.snippet}:{m['line']}: {m['diff']}" for m in self.of("survived")]}
        if self.few:
            record["few_by_nature"] = self.few
        return record


def entry(snippet: str, digest: str, tool: int, mutants: list[dict[str, Any]],
          few: str | None = None) -> dict[str, Any]:
    """A ledger entry from the outcomes of one run (status: killed, timeout, survived, equivalent);
    `few`: the snippet's reason for a formula with few mutants, recorded only where it applies."""
    count = {s: sum(1 for m in mutants if m["status"] == s) for s in ("killed", "timeout", "survived",
                                                                        "equivalent")}
    return {"hash": digest, "snippet": snippet, "tool": tool,
            "tried": count["killed"] + count["timeout"] + count["survived"],
            "killed": count["killed"] + count["timeout"], "timed_out": count["timeout"],
            "equivalent": count["equivalent"], "mutants": mutants, **({"few": few} if few else {})}


def read_ledger(path: Path) -> dict[str, dict[str, Any]]:
    """Card id -> entry; an absent or unreadable ledger is empty (every card then reads unmeasured)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        cards = data.get("cards", {})
        return cards if isinstance(cards, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def measured(card_id: str, snippet: Path, snippets_dir: Path,
             ledger: dict[str, dict[str, Any]]) -> MeasuredScore | None:
    """The card's score if the ledger has one for this exact snippet (and helpers), measured by this
    version of the tool, else None."""
    item = ledger.get(card_id)
    if not isinstance(item, dict) or not snippet.is_file() or item.get("tool") != TOOL_VERSION:
        return None
    try:
        if item.get("hash") != content_hash(snippet, snippets_dir):
            return None
        few = item.get("few")
        return MeasuredScore(killed=int(item["killed"]), tried=int(item["tried"]),
                             equivalent=int(item["equivalent"]), timed_out=int(item.get("timed_out", 0)),
                             mutants=list(item.get("mutants", [])), snippet=str(item.get("snippet", "")),
                             few=str(few) if few else None)
    except (KeyError, TypeError, ValueError, OSError):
        return None


def update_ledger(path: Path, entries: dict[str, dict[str, Any]], lock_dir: Path,
                  keep: set[str] | None = None) -> None:
    """Merge entries into the ledger under a lock (concurrent runs do not lose each other's cards),
    write a temporary file next to it and rename it over: the ledger is never half-written.
    With `keep`, entries of cards not in it (deleted cards) are dropped."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / "ledger.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cards = read_ledger(path)
        cards.update(entries)
        if keep is not None:
            cards = {k: v for k, v in cards.items() if k in keep}
        text = format_json({"format": LEDGER_FORMAT, "cards": dict(sorted(cards.items()))}) + "\n"
        write_atomically(path, text)


def format_json(value: Any, indent: int = 0) -> str:
    """Indented JSON with sorted keys, where each mutant record (a flat object) keeps one line,
    so a re-measured card changes only its own lines in a diff."""
    compact = json.dumps(value, ensure_ascii=False, sort_keys=True)
    flat = isinstance(value, dict) and not any(isinstance(v, (dict, list)) for v in value.values())
    if not isinstance(value, (dict, list)) or flat or not value:
        return compact
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {format_json(v, indent + 1)}"
                 for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + format_json(v, indent + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
