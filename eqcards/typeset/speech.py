"""Spoken words for a formula, made at build time from the MathML tree MathJax draws into its SVG.

MathJax marks every group of its SVG with the MathML node it draws (`data-mml-node`) and every
glyph with its character (`data-c`), so the SVG carries the formula's MathML tree. This module
reads that tree back and speaks it in plain English (in the spirit of MathSpeak and ClearSpeak),
so a screen reader says "D sub KL of P parallel Q" instead of the formula's TeX. Nothing of it
runs in the reader's browser.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from .speech_words import ACCENTS, POWERS, char_name, script_letter, sign

SVG_NS = "{http://www.w3.org/2000/svg}"
TRANSLATE = re.compile(r"translate\(\s*([-\d.e]+)[ ,]+([-\d.e]+)\s*\)")
TOKENS = {"mi", "mn", "mo", "mtext", "ms"}
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
CALLIGRAPHIC = re.compile(r"-C-[0-9A-F]+$")  # MathJax's glyph id for a \mathcal letter
DIGITS = "0123456789.,"
SKIPPED = {"mspace", "mphantom", "none", "mprescripts", "malignmark", "maligngroup"}

BRACES = {"\u23de", "\u23df", "\ufe37", "\ufe38"}  # over- and underbraces: their label matters
LARGE = {"sum", "product", "integral", "contour integral", "union", "intersection", "max", "min",
         "arg max", "arg min", "argmax", "argmin", "sup", "inf", "lim", "limit", "maximum",
         "minimum", "supremum", "infimum", "expectation"}
@dataclass
class Node:
    """One MathML node as drawn: its kind, its text (tokens), children and vertical offset."""

    kind: str
    text: str = ""
    children: list[Node] = field(default_factory=list)
    y: float = 0.0
    rule: bool = False  # an mfrac drawn with its bar (a binomial has none)
    latex: str = ""  # the TeX MathJax drew the node from (data-latex), where it says
    texclass: str = ""  # TeX's class of the node where MathJax says it: OPEN, CLOSE, REL, ORD ...


def _offset(element: ET.Element) -> float:
    return sum(float(y) for _, y in TRANSLATE.findall(element.get("transform", "")))


def _glyphs(element: ET.Element) -> str:
    chars = []
    for item in element.iter():
        if item.tag == SVG_NS + "use" and item.get("data-c"):
            text = "".join(chr(int(code, 16)) for code in item.get("data-c", "").split())
            if CALLIGRAPHIC.search(item.get(XLINK_HREF, "")) and text.isascii() and text.isalpha():
                text = "".join(script_letter(c) for c in text)  # \mathcal draws plain letters
            chars.append(text)
        elif item.tag == SVG_NS + "text" and item.text:
            chars.append(item.text)
    return "".join(chars)


def _nodes(element: ET.Element, y: float = 0.0) -> list[Node]:
    """The MathML nodes drawn by `element`; groups that only move things are looked through."""
    kind = element.get("data-mml-node")
    y += _offset(element)
    if kind is None:
        return [n for child in element for n in _nodes(child, y)]
    tex = {"latex": element.get("data-latex", ""), "texclass": element.get("data-mjx-texclass", "")}
    if kind in TOKENS:
        text = _glyphs(element)
        return [Node(kind, text=sign(text) if kind == "mo" else text, y=y, **tex)]
    children = [n for child in element for n in _nodes(child, 0.0)]
    rule = any(child.tag == SVG_NS + "rect" for child in element)
    return [Node(kind, children=children, y=y, rule=rule, **tex)]


def formula_tree(svg: str) -> Node:
    """The `math` node of a MathJax SVG (with its data-mml-node annotations still in)."""
    root = ET.fromstring(svg)
    for element in root.iter():
        if element.get("data-mml-node") == "math":
            return _nodes(element)[0]
    raise ValueError("not a MathJax SVG: no data-mml-node=\"math\" group")


def speak(svg: str) -> str:
    """What a screen reader should say for the formula drawn in `svg`."""
    return _clean(_say(formula_tree(svg)))


def _clean(words: str) -> str:
    words = re.sub(r"\s+", " ", words).strip(" ,")
    words = re.sub(r"\barg of (max|min)\b", r"arg \1", words)
    words = re.sub(r"\s+,", ",", words)
    return re.sub(r",(\s*,)+", ",", words)


def _text(node: Node) -> str:
    if node.kind == "mtext":  # text set in a math alphabet (\texttt{...}) is read as its letters
        return " ".join(unicodedata.normalize("NFKC", node.text).split())
    if node.kind == "mn":
        return " ".join(c if c in DIGITS else char_name(c) for c in node.text) if node.text.strip(DIGITS) \
            else node.text
    if node.kind in {"mi", "mo"} and len(node.text) > 1 and node.text.isascii() \
            and node.text.replace(" ", "").isalpha():
        return node.text  # a word set upright: log, softmax, KL, min
    return " ".join(filter(None, (char_name(c) for c in node.text)))


# --- structure ----------------------------------------------------------------------------

def _words(node: Node) -> int:
    return len(_say(node).replace(",", " ").split())


def _is_brace(node: Node) -> bool:
    return node.kind == "mo" and node.text in BRACES


def _braced_base(node: Node) -> Node | None:
    """`x` when `node` is x drawn with an over- or underbrace (the label comes one level up)."""
    inner = _unwrapped(node)[-1]
    if inner.kind in {"munder", "mover"} and len(inner.children) == 2 and _is_brace(inner.children[1]):
        return inner.children[0]
    return None


def _large(node: Node) -> bool:
    spoken = _say(_unwrapped(node)[-1]).strip()
    return spoken in LARGE or spoken.startswith("arg ")


def _script(base: Node, kind: str, script: Node) -> str:
    said = _say(script).strip()
    said = said.removeprefix("is ")  # x_{<t}: "x sub less than t", not "sub is less than"
    if kind == "sup":
        if said in POWERS:
            return POWERS[said]
        return f"superscript {said}" + (", end superscript," if _words(script) > 1 else "")
    return f"sub {said}" + (", end sub," if _words(script) > 1 else "")


def _by_height(children: list[Node]) -> list[Node]:
    """Scripts of a base, lowest first (MathJax draws them in no fixed order)."""
    return sorted(children, key=lambda n: n.y)


BARS = {"\u2016", "|", "\u2225", "\u2223"}  # \lvert and sized bars are drawn as U+2223
DOUBLE_BARS = {"\u2016", "\u2225"}
QUIET = SKIPPED | {"mstyle"}
OPENING = {"(", "[", "{", "\u27e8", "\u2308", "\u230a"}
CLOSING = {")", "]", "}", "\u27e9", "\u2309", "\u230b"}
# What the TeX of a bar says it is: \mid and \parallel separate, \lvert \left| \bigl| open, and
# \rvert \right| \bigr| close. A plain | or \| is told by where it stands (_sequence).
SEPARATING_TEX = re.compile(r"\\(?:mid|parallel|middle)\b")
OPENING_TEX = re.compile(r"\\(?:lvert|lVert|left|[bB]igg?l)\b|\\[bB]igg?l(?=[|\\])")
CLOSING_TEX = re.compile(r"\\(?:rvert|rVert|right|[bB]igg?r)\b|\\[bB]igg?r(?=[|\\])")


def _unwrapped(node: Node) -> list[Node]:
    """The node and the single children it wraps (TeXAtom, mrow and mstyle of one child), outermost
    first."""
    chain = [node]
    while chain[-1].kind in {"TeXAtom", "mrow", "mstyle"} and len(chain[-1].children) == 1:
        chain.append(chain[-1].children[0])
    return chain


def _bar_of(node: Node) -> tuple[Node, str] | None:
    """The bar `node` is (or carries as the base of its scripts, as the closing bar of ||x||_2
    does), and what its TeX says it does: "open", "close", "separate", or "" when TeX does not say."""
    chain = _unwrapped(node)
    if chain[-1].kind in {"msub", "msup", "msubsup"} and chain[-1].children:
        inner = _bar_of(chain[-1].children[0])
        return None if inner is None else (inner[0], inner[1] or _role(chain))
    bar = chain[-1]
    if bar.kind != "mo" or bar.text not in BARS:
        return None
    return bar, _role(chain)


def _role(chain: list[Node]) -> str:
    for item in chain:
        if SEPARATING_TEX.search(item.latex) or item.texclass == "REL":
            return "separate"
        if OPENING_TEX.search(item.latex) or item.texclass == "OPEN":
            return "open"
        if CLOSING_TEX.search(item.latex) or item.texclass == "CLOSE":
            return "close"
    return ""


def _depths(children: list[Node]) -> list[int]:
    """Each child's bracket depth in the row: (y | x) inside a p( ) is one deeper than what is around it."""
    depth, out = 0, []
    for child in children:
        sign = _unwrapped(child)[-1]
        if sign.kind == "mo" and sign.text in CLOSING:
            depth -= 1
        out.append(depth)
        if sign.kind == "mo" and sign.text in OPENING:
            depth += 1
    return out


def _sequence(children: list[Node]) -> str:
    """A row of nodes read in order. A bar whose TeX says what it is (\\mid, \\lvert, \\right|)
    is read so; a plain bar by where it stands: one that closes an open bar ends a norm or absolute
    value; one between two operands with no partner later in its brackets separates (KL's P || Q, a
    conditional y | x); any other opens a norm or absolute value (beta |x| has a partner)."""
    parts: list[str] = []
    open_bars: list[bool] = []  # for each bar still open: whether it is a double (norm) bar
    closed = set()  # positions of bars that closed something: not operands for what follows
    visible = [i for i, c in enumerate(children) if c.kind not in QUIET and _say(c).strip()]
    depths = _depths(children)
    for i, child in enumerate(children):
        found = _bar_of(child)
        if found is not None and len(visible) == 1:  # a bar alone, as in h_{\parallel}
            parts.append(_say(child))
        elif found is not None:
            bar, role = found
            double = bar.text in DOUBLE_BARS
            at = visible.index(i)
            before = children[visible[at - 1]] if at > 0 else None
            after = children[visible[at + 1]] if at + 1 < len(visible) else None
            before_is_operand = _operand(before) and (at == 0 or visible[at - 1] not in closed)
            partners = 0
            for j in range(i + 1, len(children)):
                if depths[j] < depths[i]:
                    break
                other = _bar_of(children[j]) if depths[j] == depths[i] else None
                partners += other is not None and (other[0].text in DOUBLE_BARS) == double
            closes = open_bars and open_bars[-1] == double and (
                role == "close" or (role == "" and before_is_operand))
            if role == "separate" or (not closes and role == "" and before_is_operand
                                      and _operand(after) and _bar_of(after) is None and partners % 2 == 0):
                word = "parallel" if double else "given"
            elif closes:
                open_bars.pop()
                closed.add(i)
                word = "end norm" if double else "end absolute value"
            elif role == "" and child is not bar and not open_bars and before_is_operand \
                    and child.kind in {"msub", "msubsup"}:
                word = "evaluated at"  # f(x)|_{x=0}: a bar with a limit that opens nothing
            else:
                open_bars.append(double)
                word = "the norm of" if double else "the absolute value of"
            scripted = _unwrapped(child)[-1]
            if scripted is bar:
                parts.append(word)
            elif word == "evaluated at":
                parts.append(f"evaluated at {' '.join(_say(k) for k in scripted.children[1:])},")
            else:  # the word in the bar's place, its scripts kept: "end norm sub 2"
                parts.append(_say(Node(scripted.kind, children=[Node("mtext", text=word),
                                                                *scripted.children[1:]])))
        elif child.kind == "mo" and child.text == "{" and i + 1 < len(children) \
                and children[i + 1].kind == "mtable":
            parts.append("cases:")
        elif child.kind == "mo" and child.text == "." and i == len(children) - 1:
            continue  # the full stop ending a displayed sentence
        else:
            parts.append(_say(child))
    return " ".join(parts)


PLACEHOLDERS = {"\u22c5", "\u00b7", "\u2219"}  # the dot of p(. | x), an argument left open


def _operand(node: Node | None) -> bool:
    """Whether `node` ends or begins a term (so a bar beside it may separate two terms)."""
    if node is None:
        return False
    node = _unwrapped(node)[-1]
    if node.kind == "mo":
        return node.text in CLOSING or node.text in PLACEHOLDERS
    if node.kind in {"munder", "munderover", "msub", "msubsup"} and node.children:
        return not _large(node.children[0])  # max over m, a sum: an operator, not a term
    return not _large(node)


def _say(node: Node) -> str:
    kind, kids = node.kind, node.children
    if kind in TOKENS:
        return _text(node)
    if kind in SKIPPED:
        return ""
    if kind == "mfrac" and len(kids) == 2:
        top, bottom = sorted(kids, key=lambda n: -n.y)
        if not node.rule:
            return f"{_say(top)} choose {_say(bottom)}"
        if _words(top) == 1 and _words(bottom) == 1:
            return f"{_say(top)} over {_say(bottom)}"
        return f"fraction, {_say(top)}, over {_say(bottom)}, end fraction,"
    if kind == "msqrt":
        inner = _sequence([k for k in kids if not (k.kind == "mo" and k.text == "\u221a")])
        return f"square root of {inner}" + (", end root," if len(inner.split()) > 1 else "")
    if kind == "mroot" and len(kids) >= 2:
        radicand = [k for k in kids if not (k.kind == "mo" and k.text == "\u221a")]
        base, index = radicand[0], radicand[-1]
        return f"root of index {_say(index)} of {_say(base)}, end root,"
    if kind in {"msub", "msup"} and len(kids) == 2:
        base, script = kids
        if kind == "msub" and _large(base):
            return f"{_say(base)} over {_say(script)}"
        return f"{_say(base)} {_script(base, kind[1:], script)}"
    if kind in {"msubsup", "munderover"} and len(kids) == 3:
        base, low, high = kids[0], *_by_height(kids[1:])
        if _large(base):
            return f"{_say(base)} from {_say(low)} to {_say(high)} of"
        if kind == "munderover":
            return f"{_say(base)} under {_say(low)} over {_say(high)}"
        return f"{_say(base)} {_script(base, 'sub', low)} {_script(base, 'sup', high)}"
    if kind in {"munder", "mover"} and len(kids) == 2:
        base, mark = kids
        if _is_brace(mark):
            return _say(base)
        braced = _braced_base(base)
        if braced is not None:
            return f"{_say(braced)}, labelled {_say(mark)},"
        if mark.kind == "mo" and mark.text in ACCENTS:
            accent = ACCENTS[mark.text]
            return f"vector {_say(base)}" if accent == "vector" else f"{_say(base)} {accent}"
        if _large(base):
            return f"{_say(base)} over {_say(mark)}"
        where = "under" if kind == "munder" else "with, above it,"
        return f"{_say(base)} {where} {_say(mark)}"
    if kind == "mtable":
        rows = [_say(row) for row in kids]
        return "; ".join(f"case {n}: {row}" if len(rows) > 1 else row
                         for n, row in enumerate(rows, 1)) + ("; end cases;" if len(rows) > 1 else "")
    if kind in {"mtr", "mlabeledtr"}:
        return ", ".join(filter(None, (_say(cell).strip() for cell in kids)))
    return _sequence(kids)
