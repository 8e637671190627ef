"""Flatten a MathJax SVG formula into one path of integer coordinates, so a browser parses it fast.

MathJax draws a formula as nested groups, each with its own transform, around <use> elements
that point at glyph outlines in <defs>. Browsers pay for every element, and most for <use>: each
one clones its glyph into a shadow tree. A page of a hundred formulas held about 3,900 groups
and 3,200 <use> elements, and parsing them was most of its time to show its math. Here every
glyph instance and rule is transformed into the formula's own coordinates (units of 1/1000 em)
and appended to a single <path>, in relative commands with integer coordinates: the same glyph
at the same size is then the same text wherever it appears, which compresses well. Rounding
moves a point by at most 1/1000 em. A nested <svg> (MathJax uses one to clip the stretched
middle of a tall brace) stays an <svg> with its own flattened path, placed by one matrix.

Anything outside this vocabulary raises Unflattenable, and the caller keeps MathJax's SVG.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
PATH_TOKEN = re.compile(rf"([A-Za-z])|({NUMBER})")
TRANSFORM = re.compile(rf"\s*(translate|scale)\(\s*({NUMBER})(?:[\s,]+({NUMBER}))?\s*\)\s*")
# Attributes that change nothing in the picture, and those the root keeps as they are.
IGNORED = {"data-mjx-texclass", "xmlns", "focusable", "aria-hidden", "role"}
ROOT_KEPT = ("style", "width", "height", "viewBox")
ROOT_PAINT = {"stroke": "currentColor", "fill": "currentColor", "stroke-width": "0"}

Affine = tuple[float, float, float, float]  # (sx, sy, tx, ty): x' = sx x + tx, y' = sy y + ty
Segment = tuple[str, list[tuple[float, float]]]  # an absolute M, L, C or Z with its points
IDENTITY: Affine = (1.0, 1.0, 0.0, 0.0)
ARITY = {"M": 1, "L": 1, "C": 3, "Z": 0}


class Unflattenable(ValueError):
    """The SVG uses something this module does not flatten; keep the original."""


def _compose(outer: Affine, inner: Affine) -> Affine:
    sx, sy, tx, ty = outer
    a, d, e, f = inner
    return (sx * a, sy * d, sx * e + tx, sy * f + ty)


def _transform(text: str | None) -> Affine:
    result = IDENTITY
    if not text:
        return result
    position = 0
    while position < len(text):
        found = TRANSFORM.match(text, position)
        if found is None:
            raise Unflattenable(f"transform {text!r}")
        name, first, second = found.groups()
        x = float(first)
        y = float(second) if second is not None else (x if name == "scale" else 0.0)
        result = _compose(result, (x, y, 0.0, 0.0) if name == "scale" else (1.0, 1.0, x, y))
        position = found.end()
    return result


def _segments(d: str) -> list[Segment]:
    """A glyph outline as absolute M/L/C/Z segments (MathJax's fonts use no other command)."""
    out: list[Segment] = []
    command, numbers = "", []

    def flush() -> None:
        arity = ARITY[command]
        if command == "Z":
            if numbers:
                raise Unflattenable("numbers after Z")
            out.append(("Z", []))
            return
        if not numbers or len(numbers) % (2 * arity):
            raise Unflattenable(f"{command} with {len(numbers)} numbers")
        points = list(zip(numbers[0::2], numbers[1::2], strict=True))
        for i in range(0, len(points), arity):
            # Pairs after a moveto are linetos, as in the SVG grammar.
            kind = "L" if command == "M" and i else command
            out.append((kind, points[i:i + arity]))

    for letter, number in PATH_TOKEN.findall(d):
        if letter:
            if command:
                flush()
            if letter not in ARITY:
                raise Unflattenable(f"path command {letter}")
            command, numbers = letter, []
        elif not command:
            raise Unflattenable("path starts with a number")
        else:
            numbers.append(float(number))
    if command:
        flush()
    return out


def _join(numbers: list[int]) -> str:
    text = ""
    for n in numbers:
        token = str(n)
        if text and text[-1].isdigit() and n >= 0:
            text += " "
        text += token
    return text


def _outline(segments: list[Segment], sx: float, sy: float) -> tuple[tuple[int, int], str]:
    """The glyph scaled and rounded in its own frame: (first point, the rest as relative
    commands). Independent of where the glyph sits, so repeats are identical text."""
    parts: list[str] = []
    last = ""
    start = current = first = None

    def emit(letter: str, numbers: list[int]) -> None:
        nonlocal last
        body = _join(numbers)
        if letter == last and letter in "lchv" and numbers:
            parts.append(body if numbers[0] < 0 else " " + body)
        else:
            parts.append(letter + body)
        last = letter

    for kind, points in segments:
        scaled = [(round(sx * x), round(sy * y)) for x, y in points]
        if kind == "M":
            if first is None:
                first = scaled[0]
            else:
                assert current is not None
                emit("m", [scaled[0][0] - current[0], scaled[0][1] - current[1]])
                last = ""  # numbers after m would be linetos: always write the next letter
            start = current = scaled[0]
        elif current is None:
            raise Unflattenable("drawing before a moveto")
        elif kind == "Z":
            emit("z", [])
            last = ""
            current = start
        elif kind == "L":
            dx, dy = scaled[0][0] - current[0], scaled[0][1] - current[1]
            if dy == 0:
                emit("h", [dx])
            elif dx == 0:
                emit("v", [dy])
            else:
                emit("l", [dx, dy])
            current = scaled[0]
        else:  # C
            emit("c", [v for x, y in scaled for v in (x - current[0], y - current[1])])
            current = scaled[-1]
    if first is None:
        raise Unflattenable("empty glyph")
    return first, "".join(parts)


def _number(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class _Flattener:
    def __init__(self, glyphs: dict[str, list[Segment]]) -> None:
        self.glyphs = glyphs
        self.outlines: dict[tuple[str, float, float], tuple[tuple[int, int], str]] = {}

    def place(self, key: str, segments: list[Segment], at: Affine, out: list[str]) -> None:
        if not segments:
            return  # a space: MathJax gives it an empty outline
        sx, sy, tx, ty = at
        cache_key = (key, sx, sy)
        if cache_key not in self.outlines:
            self.outlines[cache_key] = _outline(segments, sx, sy)
        (x, y), rest = self.outlines[cache_key]
        out.append(f"M{_join([x + round(tx), y + round(ty)])}{rest}")

    def walk(self, node: ET.Element, at: Affine, out: list[str], nested: list[str]) -> None:
        for child in node:
            tag = child.tag.removeprefix(SVG_NS)
            attributes = {k: v for k, v in child.attrib.items() if k not in IGNORED}
            here = _compose(at, _transform(attributes.pop("transform", None)))
            if tag == "g":
                if attributes:
                    raise Unflattenable(f"group attributes {sorted(attributes)}")
                self.walk(child, here, out, nested)
            elif tag == "use":
                href = attributes.pop(XLINK_HREF, None) or attributes.pop("href", None)
                if attributes or not href or href[1:] not in self.glyphs:
                    raise Unflattenable(f"use of {href!r} with {sorted(attributes)}")
                self.place(href[1:], self.glyphs[href[1:]], here, out)
            elif tag == "rect":
                try:
                    x, y, w, h = (float(attributes.pop(k, "0")) for k in ("x", "y", "width", "height"))
                except ValueError as exc:
                    raise Unflattenable("rect size") from exc
                if attributes:
                    raise Unflattenable(f"rect attributes {sorted(attributes)}")
                box = [("M", [(x, y)]), ("L", [(x + w, y)]), ("L", [(x + w, y + h)]), ("L", [(x, y + h)]),
                       ("Z", [])]
                self.place(f"rect {x} {y} {w} {h}", box, here, out)
            elif tag == "svg" and set(attributes) <= {"x", "y", "width", "height", "viewBox"}:
                inner: list[str] = []
                deeper: list[str] = []
                self.walk(child, IDENTITY, inner, deeper)
                sx, sy, tx, ty = here
                placed = " ".join(f'{k}="{attributes[k]}"' for k in ("x", "y", "width", "height", "viewBox")
                                  if k in attributes)
                nested.append(f'<g transform="matrix({_number(sx)} 0 0 {_number(sy)} {_number(tx)} '
                              f'{_number(ty)})"><svg {placed}><path d="{"".join(inner)}"/>'
                              f'{"".join(deeper)}</svg></g>')
            elif tag == "defs":
                continue
            else:
                raise Unflattenable(f"element {tag}")


def flatten(svg: str) -> str:
    """The formula as one <svg> holding one <path> (plus one per clipped nested <svg>).
    Raises Unflattenable for anything it does not know how to keep exactly."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise Unflattenable(str(exc)) from exc
    glyphs = {p.get("id", ""): _segments(p.get("d", "")) for p in root.iter(f"{SVG_NS}path")}
    if root.tag != f"{SVG_NS}svg":
        raise Unflattenable("not an svg")
    extra = set(root.attrib) - IGNORED - set(ROOT_KEPT)
    if extra:
        raise Unflattenable(f"root attributes {sorted(extra)}")
    body = [c for c in root if c.tag != f"{SVG_NS}defs"]
    if len(body) != 1 or body[0].tag != f"{SVG_NS}g":
        raise Unflattenable("expected one top-level group")
    top = dict(body[0].attrib)
    flip = _transform(top.pop("transform", None))
    if top != ROOT_PAINT:  # colour or a visible stroke: not flattened
        raise Unflattenable(f"top-level paint {top}")
    out: list[str] = []
    nested: list[str] = []
    _Flattener(glyphs).walk(body[0], flip, out, nested)
    kept = " ".join(f'{k}="{root.attrib[k]}"' for k in ROOT_KEPT if k in root.attrib)
    path = f'<path d="{"".join(out)}"/>' if out else ""
    return (f'<svg {kept} fill="currentColor" aria-hidden="true" focusable="false">'
            f'{path}{"".join(nested)}</svg>')
