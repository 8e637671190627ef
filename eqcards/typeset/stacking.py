"""Stack a display formula that is too wide for the page into aligned lines: one part per line
(at its top-level separators), one relation per line, a long side broken between its terms (then
at products, factors, words of a phrase, inside a \\left…\\right pair), and as last resorts the
values of a cases block and a fraction's numerator set as lines. The TeX written by the card
stays as it is; this is only how it is drawn."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Bump when a change here draws any formula's lines differently (the layouts are cached).
FORMAT = "11"
# One TeX token: a control word (with the spaces after it), a control symbol, or one character.
TOKEN = re.compile(r"\\[A-Za-z]+\s*|\\.|\s+|.", re.S)
RELATIONS = {"=", "<", ">", r"\le", r"\leq", r"\ge", r"\geq", r"\approx", r"\equiv", r"\propto",
             r"\ne", r"\neq", r"\coloneqq", r"\triangleq", r"\simeq", r"\leftarrow", r"\gets",
             r"\leqslant", r"\geqslant", r"\ll", r"\gg", r"\in", r"\notin", r"\sim", r"\subseteq",
             r"\subset"}
# A relation between two whole statements starts a part of its own: "… ⟹ x_k = …".
IMPLICATIONS = {r"\Longrightarrow", r"\implies", r"\Rightarrow", r"\iff", r"\Longleftrightarrow"}
SPACES = {r"\quad", r"\qquad", r"\ ", r"\;", r"\,", r"\:", r"\!", r"\enspace", "~"}
WIDE_SPACES = {r"\quad", r"\qquad"}
OPEN = set("([") | {r"\{", r"\langle", r"\lvert", r"\lVert"}
CLOSE = set(")]") | {r"\}", r"\rangle", r"\rvert", r"\rVert"}
SIZED = re.compile(r"\\(?:big|Big|bigg|Bigg)[lr]?$")
BINARY = {"+", "-", r"\pm", r"\mp", r"\wedge", r"\vee", r"\land", r"\lor"}
# Where a line still too wide may break further, in order of preference (a rank of 0 is the
# + or − between terms, or a comma that a space follows): before a product's \cdot or \times,
# then before a big operator or at a space between factors, then between the words of a \text.
PRODUCTS = {r"\cdot", r"\times"}
BIG_OPERATORS = {r"\sum", r"\prod", r"\mathbb", r"\exp", r"\log", r"\max", r"\min", r"\int",
                 r"\operatorname*", r"\frac", r"\dfrac", r"\tfrac"}
FACTOR_SPACES = {r"\,", r"\;", r"\ ", r"\quad", r"\qquad", r"\:"}


@dataclass
class Token:
    text: str
    nested: bool  # inside braces, \left…\right or an environment: no line may break here
    parens: int   # how many \big( \Big[ \{ … are open around it (a break there is a last resort)
    plain: int    # how many unsized ( or [ are open around it: never broken inside (too short)
    word_break: bool = False  # a \\text word after another (split_text): a line may break before it


# What opens and closes a group no line may break inside.
GROUPS = {"{": 1, "}": -1, r"\left": 1, r"\right": -1, r"\begin": 1, r"\end": -1}
PAIR = {r"\left", r"\right"}


def tokenize(latex: str) -> list[Token]:
    """The formula as tokens, each marked with whether it sits inside a brace group or an
    environment (no line may break there) and how many parentheses are open around it (a
    top-level \\left…\\right pair counts as a sized one: break_terms may reopen it on the next line)."""
    out: list[Token] = []
    depth = parens = plain = 0
    opened: list[bool] = []  # for each open parenthesis, whether it is sized (\big( …)
    after_right = False  # the delimiter after \left or \right belongs to the pair
    for match in TOKEN.finditer(latex):
        text = match.group()
        word = _word(text)
        nested = depth > 0 or (word in GROUPS and word not in PAIR)
        level, inside = parens, plain
        sized = (bool(out) and bool(SIZED.match(_word(out[-1].text)))) or word == r"\{"
        if word == r"\left" and not nested:
            opened.append(True)
            parens += 1
        elif word == r"\right" and not nested and opened:
            opened.pop()
            parens -= 1
            level = parens
        elif word in GROUPS:
            depth += GROUPS[word]
        elif not nested and not after_right and word in OPEN:
            opened.append(sized)
            parens, plain = parens + sized, plain + (not sized)
        elif not nested and not after_right and word in CLOSE and opened:
            was_sized = opened.pop()
            parens, plain = parens - was_sized, plain - (not was_sized)
            level, inside = parens, plain
        if word:
            after_right = word in PAIR
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
        if _top(tokens[i]) and _word(tokens[i].text) in RELATIONS:
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
    """A right-hand side too wide for the page, as lines broken greedily as few as fit: first
    where the fewest parentheses are open around the break and at the best kind of place (see
    PRODUCTS), and a line still too wide again at the next kind or one level further in."""
    tokens = split_text(tokenize(right))
    ranks = {i: rank for i, t in enumerate(tokens)
             if not t.nested and not t.plain and (rank := _rank(tokens, i)) is not None}
    return _break_at(Pieces(tokens, _pairs(tokens)), 0, len(tokens), ranks, fits)


def _pairs(tokens: list[Token]) -> list[tuple[int, int]]:
    """Where each top-level \\left and its \\right are, outermost first."""
    pairs, open_at = [], []
    for i, token in enumerate(tokens):
        if not token.nested and _word(token.text) == r"\left":
            open_at.append(i)
        elif not token.nested and _word(token.text) == r"\right" and open_at:
            pairs.append((open_at.pop(), i))
    return sorted(pairs)


@dataclass
class Pieces:
    """A right-hand side's tokens, and the \\left…\\right pairs a line may cut."""
    tokens: list[Token]
    pairs: list[tuple[int, int]]

    def text(self, start: int, end: int) -> str:
        """The TeX of tokens[start:end] as a line of its own: a \\left…\\right pair it cuts is
        closed (or reopened) with an invisible delimiter, both halves as tall as the whole."""
        before, after = "", ""
        for left, right in self.pairs:
            if not (left < start <= right or left < end <= right):
                continue
            # the pair's contents, less its delimiters, set as an invisible strut
            strut = rf"\vphantom{{{_text(self.tokens[left + 2:right])}}}"
            if left < start <= right:
                before += rf"\left. {strut} "
            if left < end <= right:  # open where the line ends, whether opened on it or reopened
                after = rf" {strut}\right." + after
        return (before + _text(self.tokens[start:end]) + after).strip()


def split_text(tokens: list[Token]) -> list[Token]:
    """The tokens with each top-level \\text{…} of several words cut into one \\text per word
    (drawn the same: a \\text keeps its spaces), so that a long phrase may break between words."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        end = _group_end(tokens, i + 1) if _top(token) and _word(token.text) == r"\text" else None
        inner = "".join(t.text for t in tokens[i + 2:end]) if end is not None else ""
        if end is None or "{" in inner or "}" in inner or " " not in inner.strip():
            out.append(token)
            i += 1
            continue
        words = re.findall(r"\s*\S+\s*", inner)
        out += [Token(rf"\text{{{word}}}", False, token.parens, token.plain, n > 0)
                for n, word in enumerate(words)]
        i = end + 1
    return out


def _group_end(tokens: list[Token], start: int) -> int | None:
    """The index of the } that closes the brace group opening at `start` (None if none opens)."""
    if start >= len(tokens) or _word(tokens[start].text) != "{":
        return None
    depth = 0
    for j in range(start, len(tokens)):
        depth += {"{": 1, "}": -1}.get(_word(tokens[j].text), 0)
        if depth == 0:
            return j
    return None


def _rank(tokens: list[Token], i: int) -> int | None:
    """How good a place to break before token i is (0 best), or None where no line may break."""
    word = _word(tokens[i].text)
    if word in BINARY:  # before a + or − that is an operation, not a sign
        return 0 if i > 1 and not _operator_before(tokens, i) else None
    if word in SPACES and i > 0 and _word(tokens[i - 1].text) in {",", ";"}:
        return 0 if i + 1 < len(tokens) else None  # after a comma: the break falls on the space
    if tokens[i].word_break:
        return 3
    if i == 0 or _operator_before(tokens, i) or _operand_pending(tokens, i):
        return None
    if word in PRODUCTS:
        return 1
    following = next((_word(t.text) for t in tokens[i + 1:] if _word(t.text) not in SPACES | {""}), "")
    if word in FACTOR_SPACES and following and following not in RELATIONS | BINARY | PRODUCTS | CLOSE:
        return 2
    return 2 if word in BIG_OPERATORS else None


def _operand_pending(tokens: list[Token], i: int) -> bool:
    """Whether token i is (or is spaced from) the operand of a big operator just before it, as in
    \\sum_{i} x_i: an operator is never left at the end of a line without what it applies to."""
    j = i - 1
    while j >= 0:
        word = _word(tokens[j].text)
        if word in SPACES | {""}:
            j -= 1
        elif word == "}":  # back over a sub- or superscript's group to what carries it
            depth = 0
            while j >= 0:
                depth += {"}": 1, "{": -1}.get(_word(tokens[j].text), 0)
                j -= 1
                if depth == 0:
                    break
        elif word in {"_", "^"} or (j > 0 and _word(tokens[j - 1].text) in {"_", "^"}):
            j -= 1
        else:
            return word in BIG_OPERATORS | {r"\operatorname", r"\mathrm", r"\mathcal", r"\mathbf"} \
                or _word(tokens[max(j - 1, 0)].text) in {r"\operatorname", r"\operatorname*", r"\mathbb"}
    return False


def _break_at(pieces: Pieces, start: int, end: int, ranks: dict[int, int],
              fits: Callable[[str], bool]) -> list[str]:
    tokens = pieces.tokens
    inside = {i: rank for i, rank in ranks.items() if start < i < end}
    if not inside:
        return [pieces.text(start, end)]
    def key(i: int) -> tuple[int, int]:
        return tokens[i].parens, inside[i]
    level = min(key(i) for i in inside)
    breaks = sorted(i for i in inside if key(i) == level)
    deeper = {i: rank for i, rank in inside.items() if key(i) > level}
    lines: list[str] = []
    for n, at in enumerate(breaks):
        following = breaks[n + 1] if n + 1 < len(breaks) else end
        if not fits(pieces.text(start, following)):
            lines += _refine(pieces, start, at, deeper, fits)
            start = at
    return lines + _refine(pieces, start, end, deeper, fits)


def _refine(pieces: Pieces, start: int, end: int, deeper: dict[int, int],
            fits: Callable[[str], bool]) -> list[str]:
    """One line, broken further inside its parentheses when it is still too wide."""
    line = pieces.text(start, end)
    return [line] if fits(line) else _break_at(pieces, start, end, deeper, fits)


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


ALIGNED = re.compile(r"\s*\\begin\{aligned\}(?P<rows>.*)\\end\{aligned\}\s*", re.S)


def author_rows(latex: str) -> list[list[Token]]:
    """The formula's rows, as tokens: one, or those of the one aligned block the card wrote it as
    (without its alignment marks: stack aligns its lines again, at their relations)."""
    block = ALIGNED.fullmatch(latex)
    if block is None or r"\begin{aligned}" in block.group("rows"):
        return [tokenize(latex)]
    rows: list[list[Token]] = [[]]
    for token in tokenize(block.group("rows")):
        if _top(token) and _word(token.text) == "\\\\":
            rows.append([])
        elif not (_top(token) and _word(token.text) == "&"):
            rows[-1].append(token)
    return [row for row in rows if _text(row)]


CASES = re.compile(r"(\\begin\{cases\})(.*?)(\\end\{cases\})", re.S)


def stack_cases(latex: str) -> str:
    """The formula with each value of a cases block that holds parts of its own (\"v, \\quad
    where …\") set as lines, one part per line, so the block grows down instead of across."""
    def rows(block: re.Match[str]) -> str:
        out = []
        for row in re.split(r"(\\\\(?:\[[^\]]*\])?)", block.group(2)):
            value, bar, condition = _split_at_top(row, "&")
            parts = split_parts(tokenize(value)) if value.strip() else []
            if len(parts) > 1 and not bar.startswith("\\\\"):
                lines = [_text(parts[0]), *(r"\quad " + _text(p) for p in parts[1:])]
                value = r" \begin{aligned}&" + r" \\ &".join(lines) + r"\end{aligned} "
            out.append(value + bar + condition)
        return block.group(1) + "".join(out) + block.group(3)
    return CASES.sub(rows, latex)


def _split_at_top(row: str, mark: str) -> tuple[str, str, str]:
    """A row cut at its first top-level `mark` (before, the mark, after), or the row whole."""
    tokens = tokenize(row)
    for i, token in enumerate(tokens):
        if _top(token) and _word(token.text) == mark:
            return _join(tokens[:i]), token.text, _join(tokens[i + 1:])
    return row, "", ""


def _join(tokens: list[Token]) -> str:
    return "".join(t.text for t in tokens)


def stack(latex: str, fits: Callable[[str], bool]) -> str:
    """The formula as drawn at a width `fits` accepts: as it is when it fits; else split into
    parts, then relations, then terms, stopping at the first layout that fits (or the last);
    and where none fits, the same again with the values of its cases blocks set as lines."""
    found = _stack(latex, fits)
    for rewritten in (stack_cases(latex), stack_numerator(latex, fits)):
        if fits(found) or rewritten == latex:
            continue
        found = _stack(rewritten, fits)
    return found


def stack_numerator(latex: str, fits: Callable[[str], bool]) -> str:
    """The formula with the numerator of its longest top-level fraction, where that alone is too
    wide, set as lines broken between its terms (a fraction's bar cannot be broken)."""
    tokens = tokenize(latex)
    fractions = []
    for i, token in enumerate(tokens):
        if _top(token) and _word(token.text) in {r"\frac", r"\dfrac"}:
            end = _group_end(tokens, i + 1)
            if end is not None:
                fractions.append((end - i, i + 1, end))
    if not fractions:
        return latex
    _, start, end = max(fractions)
    numerator = _join(tokens[start + 1:end])
    lines = break_terms(numerator, fits)
    if len(lines) < 2 or fits(numerator):
        return latex
    rows = [lines[0], *(r"\quad " + _unspaced(line) for line in lines[1:])]
    stacked = r"\begin{aligned}&" + r" \\ &".join(rows) + r"\end{aligned}"
    return _join(tokens[:start + 1]) + stacked + _join(tokens[end:])


def _stack(latex: str, fits: Callable[[str], bool]) -> str:
    if fits(latex):
        return latex
    rows = author_rows(latex)
    # A formula with lines or alignment of its own (other than one aligned block) is drawn as written.
    if any(_top(t) and _word(t.text) in {"\\\\", "&"} for row in rows for t in row):
        return latex
    parts = [part for row in rows for part in split_parts(row)]
    layout = latex
    for chain in (False, True):
        lines = [line for part in parts for line in relation_lines(part, chain)]
        if len(lines) > 1:
            layout = aligned(lines)
            if fits(layout):
                return layout
    lines = [line for part in parts for line in relation_lines(part, True)]
    # The lines share one column of left sides, as wide as the widest: where each line fits on
    # its own but not all together, the longest left sides (by their TeX) go on lines of their own.
    by_left = sorted((i for i, line in enumerate(lines) if line.left), key=lambda i: -len(lines[i].left))
    broken = _broken_lines(lines, fits, set())
    # Only where every line's right side fits without the column (else a line too wide by
    # itself is the trouble, and moving left sides would only cost lines).
    if all(fits(aligned([Line("", line.right)])) for line in broken):
        for forced in range(1, min(len(by_left), MAX_LEFT_FIRST) + 1):
            if len(broken) > 1 and fits(aligned(broken)):
                break
            broken = _broken_lines(lines, fits, set(by_left[:forced]))
    return aligned(broken) if len(broken) > 1 else layout


def _broken_lines(lines: list[Line], fits: Callable[[str], bool], left_first: set[int]) -> list[Line]:
    """The lines, each too wide broken (those numbered in `left_first` with their left side first)."""
    broken: list[Line] = []
    for i, line in enumerate(lines):
        whole = i not in left_first and fits(aligned([line]))
        broken += [line] if whole else _broken_line(line, fits, i in left_first)
    return broken


# How many lines stack may give their left side a line of its own to make the block fit.
MAX_LEFT_FIRST = 2


def _broken_line(line: Line, fits: Callable[[str], bool], left_first: bool = False) -> list[Line]:
    """A line too wide, broken between its terms: aligned at its relation; or, where that leaves
    a line too wide (a long left side pushes every line right) or when told, the left side
    first, on lines of its own, and the relation and right side under it."""
    relation = next((r for r in sorted(RELATIONS, key=len, reverse=True) if line.right.startswith(r)), "")
    body = line.right[len(relation):]
    pieces = break_terms(body, lambda piece: fits(aligned([Line(line.left, relation + piece)])))
    at_relation = [Line(line.left, relation + " " + pieces[0]), *_continued(pieces[1:])]
    if not line.left or (not left_first and all(fits(aligned([row])) for row in at_relation)):
        return at_relation
    left = break_terms(line.left, lambda piece: fits(aligned([Line("", piece)])))
    right = break_terms(line.right, lambda piece: fits(aligned([Line("", r"\quad " + piece)])))
    own_lines = [Line("", left[0]), *_continued(left[1:] + right)]
    too_wide = [sum(not fits(aligned([row])) for row in rows) for rows in (at_relation, own_lines)]
    return own_lines if too_wide[1] < too_wide[0] or (left_first and too_wide[1] == 0) else at_relation


def _continued(pieces: list[str]) -> list[Line]:
    """Lines that continue the one above, indented."""
    return [Line("", r"\quad " + _unspaced(piece)) for piece in pieces]
