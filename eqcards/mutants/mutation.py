"""Mutants of a snippet's formula: its marked regions, equivalent markers, each mutant and its diff.

A snippet marks the code that computes its formula between two comment lines,
`# --- formula ---` and `# --- end formula ---` (several regions are allowed); references and
checks stay outside. Each mutant changes one site inside a region in one way, by replacing its
exact source bytes (never re-formatting), so the mutant keeps every line number of the snippet.
A line ending in `# equivalent: <reason>` declares its mutants unable to change the result: they
are listed with the reason, never run. A formula with fewer than MIN_MUTANTS mutants run must say
why, on a comment line of a region, `# few mutants: <reason>` (see Plan.count_problem). The order
of mutants is fixed by their position; the operators themselves are in eqcards.mutation_operators.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, replace

from .mutation_operators import OPERATOR_ORDER, find_sites, line_starts

FORMULA_START = "# --- formula ---"
FORMULA_END = "# --- end formula ---"
EQUIVALENT = re.compile(r"#\s*equivalent:(.*)$")
FEW_MUTANTS = re.compile(r"#\s*few mutants:(.*)$")
# Under this many mutants run, a perfect score says little: the snippet must say why its formula
# admits so few (FEW_MUTANTS), and the card shows the reason beside its score.
MIN_MUTANTS = 5


class MutationError(ValueError):
    """The snippet cannot be mutated as marked (no region, unclosed region, marker misplaced)."""


@dataclass(frozen=True)
class Mutant:
    number: int  # 1-based, in source order
    operator: str  # one of OPERATOR_ORDER
    line: int  # 1-based line of the change in the snippet
    start: int  # byte offsets of the replaced text in the UTF-8 source
    end: int
    original: str
    replacement: str
    equivalent: str | None = None  # the declared reason, when the line is marked
    diff: str = ""  # `- old  + new`, one line (see describe)

    def apply(self, source: str) -> str:
        data = source.encode("utf-8")
        return (data[:self.start] + self.replacement.encode("utf-8") + data[self.end:]).decode("utf-8")

    def describe(self, source: str, comments: dict[int, int] | None = None, width: int = 90) -> str:
        """`- old  + new`: the changed line(s) without their comments, trimmed around the change
        when long. `comments` maps a line to the byte column where its comment starts."""
        data = source.encode("utf-8")
        first = data.rfind(b"\n", 0, self.start) + 1
        last = data.find(b"\n", self.end)
        last = len(data) if last < 0 else last
        end_line = data.count(b"\n", 0, self.end) + 1
        if comments and end_line in comments:  # the comment of the last changed line
            last = min(last, data.rfind(b"\n", 0, self.end) + 1 + comments[end_line])
        old = data[first:last].decode("utf-8")
        new = (data[first:self.start] + self.replacement.encode("utf-8")
               + data[self.end:last]).decode("utf-8")
        old, new = (" ".join(part.strip() for part in s.splitlines()).strip() for s in (old, new))
        if max(len(old), len(new)) > width:
            old, new = _window(old, new, width)
        return f"- {old}  + {new}"


@dataclass(frozen=True)
class Plan:
    """Every mutant of one snippet, and the formula regions they come from (line ranges)."""

    mutants: list[Mutant]
    regions: list[tuple[int, int]]  # first and last code line of each region
    unused_markers: list[int]  # lines marked equivalent on which nothing was mutated
    few: tuple[int, str] | None = None  # the `# few mutants:` line and its reason

    @property
    def runnable(self) -> list[Mutant]:
        return [m for m in self.mutants if m.equivalent is None]

    @property
    def few_reason(self) -> str | None:
        """Why the formula admits fewer than MIN_MUTANTS mutants, when it does and the snippet says."""
        return self.few[1] if self.few is not None and len(self.runnable) < MIN_MUTANTS else None

    def count_problem(self, name: str) -> str | None:
        """The error for a formula with fewer than MIN_MUTANTS mutants run and no reason given."""
        return count_problem(name, self.regions[0][0] - 1, len(self.runnable), self.few is not None)

    def count_note(self, name: str) -> str | None:
        """A `# few mutants:` reason that no longer applies (the formula has enough mutants)."""
        if self.few is None or len(self.runnable) < MIN_MUTANTS:
            return None
        return (f"{name}:{self.few[0]}: `# few mutants:` given, but {len(self.runnable)} mutants ran "
                f"(at least {MIN_MUTANTS}); remove the line")


def count_problem(name: str, line: int, count: int, has_reason: bool) -> str | None:
    """`name:line: ...` when `count` mutants ran, fewer than MIN_MUTANTS, and no reason was given;
    `line` is where the reason goes (the first `# --- formula ---` line)."""
    if count >= MIN_MUTANTS or has_reason:
        return None
    return (f"{name}:{line}: only {count} mutant{'s' if count != 1 else ''} in the formula "
            f"(at least {MIN_MUTANTS}, or say why): widen the region to the whole formula if it "
            f"covers only part of it, else add a comment line `# few mutants: <reason>` inside it "
            "(the card shows the reason beside its score)")


def _window(old: str, new: str, width: int) -> tuple[str, str]:
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    context = max(10, (width - max(len(old), len(new)) + prefix + suffix) // 2)
    cut_left = max(0, prefix - context)
    keep_right = max(0, suffix - context)
    # Cut at a space where one is near, so no token is shown in half.
    if cut_left and (space := old.find(" ", cut_left, prefix)) >= 0:
        cut_left = space + 1
    if keep_right and (space := old.rfind(" ", len(old) - suffix, len(old) - keep_right)) >= 0:
        keep_right = len(old) - space

    def trim(s: str) -> str:
        body = s[cut_left:len(s) - keep_right]
        return ("…" if cut_left else "") + body + ("…" if keep_right else "")
    return trim(old), trim(new)


def markers(source: str, name: str) -> tuple[list[tuple[int, int]], dict[int, str], dict[int, int],
                                             tuple[int, str] | None]:
    """The formula regions (first and last line inside each), the equivalent markers by line, the
    byte column where each line's comment starts and the `# few mutants:` line and reason, if any."""
    regions: list[tuple[int, int]] = []
    equivalent: dict[int, str] = {}
    few: tuple[int, str] | None = None
    opened: int | None = None
    lines = source.splitlines()
    try:
        comments = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError) as exc:
        raise MutationError(f"{name}: cannot read the snippet ({exc})") from None
    for token in comments:
        line = token.start[0]
        text = token.string.strip()
        alone = lines[line - 1].strip() == token.string.strip()
        if text == FORMULA_START and alone:
            if opened is not None:
                raise MutationError(f"{name}:{line}: `{FORMULA_START}` inside the region opened at "
                                    f"line {opened}: close it first with `{FORMULA_END}`")
            opened = line
        elif text == FORMULA_END and alone:
            if opened is None:
                raise MutationError(f"{name}:{line}: `{FORMULA_END}` without a `{FORMULA_START}` before it")
            regions.append((opened + 1, line - 1))
            opened = None
        elif match := EQUIVALENT.match(text):
            reason = match.group(1).strip()
            if not reason:
                raise MutationError(f"{name}:{line}: `# equivalent:` needs a reason, e.g. "
                                    "`# equivalent: x*2 and x+x are the same number`")
            equivalent[line] = reason
        elif match := FEW_MUTANTS.match(text):
            reason = " ".join(match.group(1).split())
            if not reason:
                raise MutationError(f"{name}:{line}: `# few mutants:` needs a reason, e.g. "
                                    "`# few mutants: one ratio of two set sizes, nothing else to break`")
            if few is not None:
                raise MutationError(f"{name}:{line}: a second `# few mutants:` (the first is at line "
                                    f"{few[0]}): give one reason, on one line")
            few = (line, reason)
    if opened is not None:
        raise MutationError(f"{name}:{opened}: `{FORMULA_START}` is never closed: add a line "
                            f"`{FORMULA_END}` after the formula's code")
    if not regions:
        raise MutationError(
            f"{name}: no formula region: add a line `{FORMULA_START}` before the code that computes "
            f"the formula and a line `{FORMULA_END}` after it (references and checks stay outside)")
    for line in equivalent:
        if not any(a <= line <= b for a, b in regions):
            raise MutationError(f"{name}:{line}: `# equivalent:` marker outside a formula region")
    if few is not None and not any(a <= few[0] <= b for a, b in regions):
        raise MutationError(f"{name}:{few[0]}: `# few mutants:` outside a formula region: put it on "
                            "a comment line inside one")
    columns = {t.start[0]: len(lines[t.start[0] - 1][:t.start[1]].encode("utf-8")) for t in comments}
    return regions, equivalent, columns, few


def plan(source: str, name: str = "snippet") -> Plan:
    """Every mutant of the snippet's formula regions, in source order (raises MutationError)."""
    regions, equivalent, comments, few = markers(source, name)
    try:
        tree = ast.parse(source, filename=name)
    except SyntaxError as exc:
        raise MutationError(f"{name}:{exc.lineno}: syntax error: {exc.msg}") from None
    data = source.encode("utf-8")
    found_sites = find_sites(data, tree)
    starts = line_starts(data)
    spans = [(starts[a - 1], starts[b] if b < len(starts) else len(data)) for a, b in regions]
    found: dict[tuple[int, int, str], tuple[str, int, int, str]] = {}
    for operator, start, end, replacement in found_sites:
        if not any(lo <= start and end <= hi for lo, hi in spans):
            continue
        key = (start, end, replacement)
        found.setdefault(key, (operator, start, end, replacement))
    ordered = sorted(found.values(), key=lambda f: (f[1], f[2], OPERATOR_ORDER.index(f[0]), f[3]))
    mutants: list[Mutant] = []
    for operator, start, end, replacement in ordered:
        original = data[start:end].decode("utf-8")
        line = data.count(b"\n", 0, start) + 1
        candidate = Mutant(len(mutants) + 1, operator, line, start, end, original, replacement,
                           equivalent.get(line))
        # Swapping one operator, name or number for another keeps the syntax; removing a token,
        # wrapping an expression, rewriting a slice or moving arguments is parsed to be sure (a
        # whole-file parse, so only then).
        if original == replacement or (operator in ("unary", "index", "slice", "arguments")
                                       and not _parses(candidate.apply(source))):
            continue
        mutants.append(replace(candidate, diff=candidate.describe(source, comments)))
    used = {m.line for m in mutants}
    return Plan(mutants, regions, sorted(line for line in equivalent if line not in used), few)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True
