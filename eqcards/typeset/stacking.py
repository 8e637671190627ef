"""Stack a display formula that is too wide for the page into aligned lines: one part per line
(at its top-level separators), one relation per line, and a long right-hand side broken before
a top-level + or −. The TeX written by the card stays as it is; this is only how it is drawn."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Bump when a change here draws any formula's lines differently (the layouts are cached).
FORMAT = "2"
# One TeX token: a control word (with the spaces after it), a control symbol, or one character.
TOKEN = re.compile(r"\\[A-Za-z]+\s*|\\.|\s+|.", re.S)
RELATIONS = {"=", "<", ">", r"\le", r"\leq", r"\ge", r"\geq", r"\approx", r"\equiv", r"\propto",
             r"\ne", r"\neq", r"\coloneqq", r"\triangleq", r"\simeq", r"\leftarrow", r"\gets",
             r"\leqslant", r"\geqslant", r"\ll", r"\gg"}
# A relation between two whole statements starts a part of its own: "… ⟹ x_k = …".
IMPLICATIONS = {r"\Longrightarrow", r"\implies", r"\Rightarrow", r"\iff", r"\Longleftrightarrow"}
SPACES = {r"\quad", r"\qquad", r"\ ", r"\;", r"\,", r"\:", r"\!", r"\enspace", "~"}
WIDE_SPACES = {r"\quad", r"\qquad"}
OPEN = set("([") | {r"\{", r"\langle", r"\lvert", r"\lVert"}
CLOSE = set(")]") | {r"\}", r"\rangle", r"\rvert", r"\rVert"}
SIZED = re.compile(r"\\(?:big|Big|bigg|Bigg)[lr]?$")
BINARY = {"+", "-", r"\pm", r"\mp"}


@dataclass
class Token:
    text: str
    nested: bool  # inside braces, \left…\right or an environment: no line may break here
    parens: int   # how many \big( \Big[ \{ … are open around it (a break there is a last resort)
    plain: int    # how many unsized ( or [ are open around it: never broken inside (too short)


# What opens and closes a group no line may break inside.
GROUPS = {"{": 1, "}": -1, r"\left": 1, r"\right": -1, r"\begin": 1, r"\end": -1}


def tokenize(latex: str) -> list[Token]:
    """The formula as tokens, each marked with whether it sits inside a brace group, a
    \\left…\\right pair or an environment (no line may break there) and how many parentheses
    are open around it."""
    out: list[Token] = []
    depth = parens = plain = 0
    opened: list[bool] = []  # for each open parenthesis, whether it is sized (\big( …)
    after_right = False  # the delimiter that closes \right belongs to the pair, not to `parens`
    for match in TOKEN.finditer(latex):
        text = match.group()
        word = _word(text)
        nested = depth > 0 or word in GROUPS
        level, inside = parens, plain
        sized = (bool(out) and bool(SIZED.match(_word(out[-1].text)))) or word == r"\{"
        if word in GROUPS:
            depth += GROUPS[word]
        elif not nested and not after_right and word in OPEN:
            opened.append(sized)
            parens, plain = parens + sized, plain + (not sized)
        elif not nested and not after_right and word in CLOSE and opened:
            was_sized = opened.pop()
            parens, plain = parens - was_sized, plain - (not was_sized)
            level, inside = parens, plain
        if word:
            after_right = word == r"\right"
        out.append(Token(text, nested, level, inside))
    return out


def _word(text: str) -> str:
    """A token without the spaces around it (a control space, \\ followed by a space, kept)."""
    return text if text.startswith("\\ ") else text.strip()


def _text(tokens: list[Token]) -> str:
    return "".join(t.text for t in tokens).strip()


def _top(token: Token) -> bool:
    return not token.nested and token.parens == 0 and token.plain == 0


def split_parts(tokens: list[Token]) -> list[list[Token]]:
    """The formula's parts: split where, at the top level, a comma or semicolon is followed by a
    space command, at a bare \\quad or \\qquad, and before an implication arrow. A part's closing
    comma or semicolon stays with it; the spaces between parts go."""
    parts: list[list[Token]] = [[]]
    i = 0
    while i < len(tokens):
        token, word = tokens[i], _word(tokens[i].text)
        if _top(token) and word in {",", ";"}:
            j = i + 1
            while j < len(tokens) and _word(tokens[j].text) in SPACES | {""}:
                j += 1
            spaced = any(_word(tokens[k].text) in SPACES for k in range(i + 1, j))
            if spaced and j < len(tokens):
                parts[-1].append(token)
                parts.append([])
                i = j
                continue
        if _top(token) and word in WIDE_SPACES and parts[-1] and _relation_at(parts[-1]) is not None:
            parts.append([])
            i += 1
            continue
        if _top(token) and word in IMPLICATIONS and parts[-1]:
            while parts[-1] and _word(parts[-1][-1].text) in SPACES | {""}:
                parts[-1].pop()
            parts.append([])
        parts[-1].append(token)
        i += 1
    return [p for p in parts if _text(p)]


def _relation_at(tokens: list[Token], start: int = 0) -> int | None:
    """The index of the first top-level relation from `start` on (not the part's first token)."""
    for i in range(max(start, 1), len(tokens)):
        if not tokens[i].nested and not tokens[i].plain and _word(tokens[i].text) in RELATIONS:
            return i
    return None


@dataclass
class Line:
    left: str   # before the alignment point
    right: str  # from the alignment point on


def relation_lines(part: list[Token], chain: bool) -> list[Line]:
    """A part as aligned lines, at its first relation; with `chain`, each further relation of a
    chain (a = b = c) starts a line of its own."""
    first = _relation_at(part)
    if first is None:
        return [Line("", _text(part))]
    lines = [Line(_text(part[:first]), "")]
    start = first
    while chain and (following := _relation_at(part, start + 1)) is not None:
        lines[-1].right = _text(part[start:following])
        lines.append(Line("", ""))
        start = following
    lines[-1].right = _text(part[start:])
    return lines


def break_terms(right: str, fits: Callable[[str], bool]) -> list[str]:
    """A right-hand side too wide for the page, as lines broken before a + or − (or after a comma
    that a space follows), greedily as few as fit: first where the fewest parentheses are open
    around the break, and a line still too wide again one level further in."""
    tokens = tokenize(right)
    candidates = [i for i, t in enumerate(tokens) if not t.nested and not t.plain and _breakable(tokens, i)]
    return _break_at(tokens, 0, len(tokens), candidates, fits)


def _breakable(tokens: list[Token], i: int) -> bool:
    word = _word(tokens[i].text)
    if word in BINARY:  # before a + or − that is an operation, not a sign
        return i > 1 and not _operator_before(tokens, i)
    # after a comma or semicolon followed by a space: the break falls on the space
    return i > 0 and _word(tokens[i - 1].text) in {",", ";"} and word in SPACES and i + 1 < len(tokens)


def _break_at(tokens: list[Token], start: int, end: int, candidates: list[int],
              fits: Callable[[str], bool]) -> list[str]:
    inside = [i for i in candidates if start < i < end]
    if not inside:
        return [_text(tokens[start:end])]
    level = min(tokens[i].parens for i in inside)
    breaks = [i for i in inside if tokens[i].parens == level]
    deeper = [i for i in inside if tokens[i].parens > level]
    lines: list[str] = []
    for n, at in enumerate(breaks):
        following = breaks[n + 1] if n + 1 < len(breaks) else end
        if not fits(_text(tokens[start:following])):
            lines += _refine(tokens, start, at, deeper, fits)
            start = at
    return lines + _refine(tokens, start, end, deeper, fits)


def _refine(tokens: list[Token], start: int, end: int, deeper: list[int],
            fits: Callable[[str], bool]) -> list[str]:
    """One line, broken further inside its parentheses when it is still too wide."""
    line = _text(tokens[start:end])
    return [line] if fits(line) else _break_at(tokens, start, end, deeper, fits)


def _unspaced(piece: str) -> str:
    """A continued line without the space commands it began with (it is indented already)."""
    return re.sub(r"^(?:\\[ ,;:!]|\\q?quad\b|~|\s)+", "", piece)


def _operator_before(tokens: list[Token], i: int) -> bool:
    """Whether the + or − at i is a sign, not an operation (it follows an operator or opening)."""
    j = i - 1
    while j >= 0 and _word(tokens[j].text) in SPACES | {""}:
        j -= 1
    return j < 0 or _word(tokens[j].text) in RELATIONS | BINARY | OPEN | {",", ";", "{", "&"} \
        or bool(SIZED.match(_word(tokens[j].text)))


def aligned(lines: list[Line]) -> str:
    """The lines as one `aligned` block (a continued line has no left side: it is indented)."""
    rows = [f"{line.left} &{line.right}" if line.left or not line.right.startswith(r"\quad")
            else f"&{line.right}" for line in lines]
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def stack(latex: str, fits: Callable[[str], bool]) -> str:
    """The formula as drawn at a width `fits` accepts: as it is when it fits; else split into
    parts, then relations, then terms, stopping at the first layout that fits (or the last)."""
    if fits(latex) or r"\begin" in latex or r"\\" in latex:
        return latex
    parts = split_parts(tokenize(latex))
    layout = latex
    for chain in (False, True):
        lines = [line for part in parts for line in relation_lines(part, chain)]
        if len(lines) > 1:
            layout = aligned(lines)
            if fits(layout):
                return layout
    lines = [line for part in parts for line in relation_lines(part, True)]
    broken: list[Line] = []
    for line in lines:
        if fits(aligned([line])):
            broken.append(line)
            continue
        right = line.right
        relation = next((r for r in sorted(RELATIONS, key=len, reverse=True) if right.startswith(r)), "")
        body = right[len(relation):]
        pieces = break_terms(body, lambda piece, left=line.left, rel=relation:
                             fits(aligned([Line(left, rel + piece)])))
        broken.append(Line(line.left, relation + " " + pieces[0]))
        broken += [Line("", r"\quad " + _unspaced(piece)) for piece in pieces[1:]]
    return aligned(broken) if len(broken) > 1 else layout
