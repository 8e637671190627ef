"""Run every mutant of the snippets through the build's forked runner, in parallel; cache, score, report.

A mutant is killed when its snippet fails: an error, a failed check (even one the snippet caught)
or the timeout, which is the unmutated snippet's run time times TIMEOUT_FACTOR plus
TIMEOUT_PADDING seconds, at least TIMEOUT_MIN and at most the card's own timeout. A card fails
under CARD_BAR, and with fewer than MIN_MUTANTS mutants run unless its snippet says why
(`# few mutants:`, eqcards.mutation). A card's outcome is cached in .cache/mutants/ under the
snippet's content hash, the mutation tool's version and the library versions: an unchanged snippet
is never mutated again.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..snippets.cache import ResultCache
from ..snippets.jobs import SnippetJob, SnippetResult
from ..snippets.runner import run_snippet, snippet_server
from ..snippets.snippet_key import environment_fingerprint
from . import mutation, mutation_operators
from .mutation import MIN_MUTANTS, Mutant, MutationError, count_problem, plan
from .mutation_ledger import TOOL_VERSION, content_hash, entry

# TOOL_VERSION is declared next to the ledger (eqcards.mutation_ledger), which checks each entry
# against it: bump it there when operators or scoring change.
TIMEOUT_FACTOR, TIMEOUT_PADDING, TIMEOUT_MIN = 4.0, 5.0, 10
CARD_BAR, SITE_BAR = 0.90, 0.95


@dataclass(frozen=True)
class Target:
    card_id: str
    snippet: Path
    timeout: int = 30
    card_path: Path | None = None


@dataclass
class CardOutcome:
    """What mutation testing found for one card (or why it could not run)."""

    target: Target
    display: str  # the snippet's path as reports print it, e.g. snippets/softmax.py
    digest: str = ""
    mutants: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    cached: bool = False
    notes: list[str] = field(default_factory=list)
    few: str | None = None  # the snippet's reason for a formula with few mutants, where it applies
    too_few_line: int | None = None  # the region's line, when too few mutants ran and no reason was given

    def count(self, *statuses: str) -> int:
        return sum(1 for m in self.mutants if m["status"] in statuses)

    @property
    def tried(self) -> int:
        return self.count("killed", "timeout", "survived")

    @property
    def killed(self) -> int:
        return self.count("killed", "timeout")

    @property
    def score(self) -> float | None:
        return self.killed / self.tried if self.tried else None

    @property
    def count_problem(self) -> str | None:
        """Too few mutants ran and the snippet does not say why (file and line of the fix)."""
        if self.too_few_line is None:
            return None
        return count_problem(self.display, self.too_few_line, self.tried, False)

    def ledger_entry(self) -> dict[str, Any]:
        return entry(self.display, self.digest, TOOL_VERSION, self.mutants, self.few)

    def passes(self, bar: float = CARD_BAR) -> bool:
        return (self.error is None and self.score is not None and self.score >= bar
                and self.too_few_line is None)


def mutant_timeout(baseline_seconds: float, card_timeout: int) -> int:
    wanted = max(TIMEOUT_MIN, math.ceil(TIMEOUT_FACTOR * baseline_seconds + TIMEOUT_PADDING))
    return max(1, min(card_timeout, wanted))


def cache_key(digest: str) -> str:
    """The snippet's content hash, the library versions, and this tool's own operators (the source
    of eqcards/mutation.py and mutation_operators.py): an edited operator re-measures every card,
    even if nobody bumped TOOL_VERSION."""
    text = f"mutation-tool={TOOL_VERSION};{_operators_hash()};{environment_fingerprint()};{digest}"
    return hashlib.sha256(text.encode()).hexdigest()


@functools.cache
def _operators_hash() -> str:
    digest = hashlib.sha256()
    for module in (mutation, mutation_operators):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


def killed_by(result: SnippetResult) -> tuple[str, str] | None:
    """None if the mutant survived, else (status, what caught it)."""
    failed = [c for c in result.checks if c.get("passed") is not True]
    if result.ok and not failed and result.checks:
        return None
    if failed:
        return "killed", f"check: {failed[0].get('what', '?')}"
    error = result.error or "the snippet failed"
    if error.startswith("timed out"):
        return "timeout", "timeout"
    if error.startswith("the snippet ran no check"):
        return "killed", "no check ran"
    return "killed", error.split(":", 1)[0].split("\n", 1)[0][:80]


def mutate(targets: list[Target], snippets_dir: Path, cache_dir: Path | None, root: Path | None = None,
           workers: int | None = None, on_card: Callable[[CardOutcome], None] | None = None,
           ) -> list[CardOutcome]:
    """Mutation-test each target's snippet; cached cards are not run. Outcomes in target order."""
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    outcomes: list[CardOutcome] = []
    todo: list[tuple[CardOutcome, str, list[Mutant]]] = []
    for target in targets:
        outcome = CardOutcome(target, _display(target.snippet, root))
        outcomes.append(outcome)
        try:
            source = target.snippet.read_text(encoding="utf-8")
            outcome.digest = content_hash(target.snippet, snippets_dir)
            # The digest covers everything the outcome depends on: a cached card is not even planned.
            stored = cache.get(cache_key(outcome.digest)) if cache is not None else None
            if stored is not None:
                outcome.mutants, outcome.notes = stored.get("mutants", []), stored.get("notes", [])
                outcome.few, outcome.too_few_line = stored.get("few"), stored.get("too_few_line")
                outcome.cached = True
            else:
                mutation_plan = plan(source, outcome.display)
        except (OSError, UnicodeDecodeError) as exc:
            outcome.error = f"{outcome.display}: cannot read the snippet ({exc})"
        except MutationError as exc:
            outcome.error = str(exc)
        if outcome.error or outcome.cached:
            if on_card:
                on_card(outcome)
            continue
        outcome.notes = [f"{outcome.display}:{line}: marked equivalent, but nothing on it is mutated"
                         for line in mutation_plan.unused_markers]
        if note := mutation_plan.count_note(outcome.display):
            outcome.notes.append(note)
        outcome.few = mutation_plan.few_reason
        if mutation_plan.count_problem(outcome.display):
            outcome.too_few_line = mutation_plan.regions[0][0] - 1
        outcome.mutants = [_record(m, source) for m in mutation_plan.mutants]
        todo.append((outcome, source, mutation_plan.runnable))
    if todo:
        _run_all(todo, snippets_dir, cache, workers or os.cpu_count() or 1, on_card)
    return outcomes


def _display(path: Path, root: Path | None) -> str:
    path = path.resolve()
    if root is not None and path.is_relative_to(root.resolve()):
        return str(path.relative_to(root.resolve()))
    return str(path)


def _record(mutant: Mutant, source: str) -> dict[str, Any]:
    record: dict[str, Any] = {"line": mutant.line, "operator": mutant.operator, "diff": mutant.diff}
    if mutant.equivalent is not None:
        record.update(status="equivalent", reason=mutant.equivalent)
    else:
        record.update(status="pending")
    return record


def _run_all(todo: list[tuple[CardOutcome, str, list[Mutant]]], snippets_dir: Path,
             cache: ResultCache | None, workers: int, on_card: Callable[[CardOutcome], None] | None) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="eqcards-mutants-"))
    jobs = [SnippetJob(o.target.card_id, o.target.card_path or o.target.snippet, o.target.snippet,
                       o.target.timeout) for o, _, _ in todo]
    try:
        with snippet_server(snippets_dir, jobs) as server, ThreadPoolExecutor(max_workers=workers) as pool:
            # The unmutated snippets first: each must pass, and its run time sets its mutants' timeout.
            baselines = {pool.submit(run_snippet, job, snippets_dir, server): (outcome, source, runnable)
                         for job, (outcome, source, runnable) in zip(jobs, todo, strict=True)}
            pending: dict[Any, tuple[CardOutcome, Mutant]] = {}
            left: dict[int, int] = {}  # mutants still running, by id() of their card's outcome
            for future in as_completed(baselines):
                outcome, source, runnable = baselines[future]
                base = future.result()
                if killed_by(base) is not None:
                    why = ((base.error or "").strip() or "a check failed").splitlines()[0]
                    outcome.error = (f"{outcome.display}: the snippet fails without any mutation, fix it "
                                     f"first ({why}; scripts/check_card.py {outcome.target.card_id} "
                                     "shows where)")
                    outcome.mutants = []
                    if on_card:
                        on_card(outcome)
                    continue
                timeout = mutant_timeout(base.duration, outcome.target.timeout)
                left[id(outcome)] = len(runnable)
                if not runnable:
                    _finish(outcome, cache, on_card)
                for mutant in runnable:
                    future_m = pool.submit(_run_mutant, mutant, source, outcome, snippets_dir, server,
                                           scratch, timeout)
                    pending[future_m] = (outcome, mutant)
            for future in as_completed(pending):
                outcome, mutant = pending[future]
                verdict = killed_by(future.result())
                record = outcome.mutants[mutant.number - 1]
                if verdict is None:
                    record["status"] = "survived"
                else:
                    record["status"], record["by"] = verdict
                left[id(outcome)] -= 1
                if left[id(outcome)] == 0:
                    _finish(outcome, cache, on_card)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _finish(outcome: CardOutcome, cache: ResultCache | None,
            on_card: Callable[[CardOutcome], None] | None) -> None:
    if cache is not None:
        cache.put(cache_key(outcome.digest), {"mutants": outcome.mutants, "notes": outcome.notes,
                                              "few": outcome.few, "too_few_line": outcome.too_few_line})
    if on_card:
        on_card(outcome)


def _run_mutant(mutant: Mutant, source: str, outcome: CardOutcome, snippets_dir: Path, server: Any,
                scratch: Path, timeout: int) -> SnippetResult:
    """The mutant is written under the snippet's own file name in a folder of its own; its helper
    imports resolve from snippets_dir's lib/, which the runner puts first on the path."""
    folder = scratch / f"{outcome.target.card_id}-{mutant.number:04d}"
    folder.mkdir()
    path = folder / outcome.target.snippet.name
    path.write_text(mutant.apply(source), encoding="utf-8")
    job = SnippetJob(outcome.target.card_id, outcome.target.card_path or path, path, timeout)
    try:
        return run_snippet(job, snippets_dir, server)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(outcomes: list[CardOutcome]) -> tuple[str, bool]:
    """The per-card lines, survivors and equivalents, the total; and whether the bars hold."""
    lines: list[str] = []
    ok = True
    killed = tried = 0
    for o in outcomes:
        if o.error:
            ok = False
            lines.append(f"{o.target.card_id}: ERROR {o.error}")
            continue
        killed, tried = killed + o.killed, tried + o.tried
        timeouts = o.count("timeout")
        score = (f"{100 * o.score:.0f}%" if o.score is not None
                 else "nothing to mutate: the formula region holds no operator, number or call")
        bar = ("" if o.score is not None and o.score >= CARD_BAR else f"  below {CARD_BAR:.0%}")
        bar += f"  under {MIN_MUTANTS} mutants, no reason given" if o.count_problem else ""
        ok = ok and o.passes()
        lines.append(f"{o.target.card_id}: {o.tried} mutants, {o.killed} killed"
                     + (f" ({timeouts} by timeout)" if timeouts else "")
                     + f", {o.count('survived')} survived, {o.count('equivalent')} equivalent: "
                       f"{score}{bar}" + (" (cached)" if o.cached else ""))
        if o.count_problem:
            lines.append(f"  too few     {o.count_problem}")
        elif o.few:
            lines.append(f"  few by nature: {o.few}")
        for m in o.mutants:
            if m["status"] == "survived":
                lines.append(f"  survived    {o.display}:{m['line']}: {m['diff']}")
        for m in o.mutants:
            if m["status"] == "equivalent":
                lines.append(f"  equivalent  {o.display}:{m['line']}: {m['diff']}  ({m['reason']})")
        for m in o.mutants:
            if m["status"] == "timeout":
                lines.append(f"  timed out   {o.display}:{m['line']}: {m['diff']}  (counted as killed)")
        lines += [f"  note: {n}" for n in o.notes]
    total = killed / tried if tried else None
    errors = sum(1 for o in outcomes if o.error)
    site_ok = total is not None and total >= SITE_BAR
    lines.append(f"total: {killed} of {tried} mutants killed"
                 + (f" ({100 * total:.1f}%)" if total is not None else "")
                 + f" over {len(outcomes) - errors} card(s)" + (f", {errors} with errors" if errors else "")
                 + ("" if site_ok else f"; below the {SITE_BAR:.0%} bar" if total is not None else ""))
    return "\n".join(lines), ok and site_ok


def card_targets(cards_dir: Path, snippets_dir: Path, ids: list[str]) -> tuple[list[Target], list[str]]:
    """Targets for these card ids (all cards when empty), and an error for each card that cannot be read."""
    from ..cards.load import parse_card
    from ..core.errors import CardError

    paths = [cards_dir / f"{i}.md" for i in ids] if ids else sorted(cards_dir.glob("*.md"))
    targets, errors = [], []
    for path in paths:
        if not path.is_file():
            errors.append(f"{path.stem}: no card {path}")
            continue
        try:
            card = parse_card(path)
        except CardError as exc:
            errors.append(f"{path.stem}: {exc}")
            continue
        targets.append(Target(card.id, snippets_dir / card.snippet, card.timeout, card.path))
    return targets, errors


def measure(root: Path, cards_dir: Path, snippets_dir: Path, cache_dir: Path, ids: list[str],
            workers: int | None = None, ledger: Path | None = None,
            progress: Callable[[str], None] | None = None) -> tuple[str, bool]:
    """Mutation-test the cards (all when ids is empty), record them in the ledger, return the report
    and whether every card and the total hold their bars."""
    from .mutation_ledger import LEDGER_NAME, update_ledger

    ResultCache(cache_dir).sweep()  # what killed runs left
    targets, errors = card_targets(cards_dir, snippets_dir, ids)

    def done(outcome: CardOutcome) -> None:
        if progress:
            text, _ = report([outcome])
            progress(text.splitlines()[0])

    outcomes = mutate(targets, snippets_dir, cache_dir, root, workers, on_card=done)
    measured = {o.target.card_id: o.ledger_entry() for o in outcomes if o.error is None}
    if measured or not ids:
        update_ledger(ledger or snippets_dir / LEDGER_NAME, measured, cache_dir,
                      keep=None if ids else {t.card_id for t in targets} | {e.split(":")[0] for e in errors})
    text, ok = report(outcomes)
    if errors:
        text = "\n".join(f"ERROR {e}" for e in errors) + "\n" + text
    return text, ok and not errors
