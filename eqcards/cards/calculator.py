"""A card's `calculator:` block and the shared model presets (docs/presets.yml), read and checked.

The block declares the calculator once: its inputs (name, symbol, meaning, unit, default, range),
named intermediate values and outputs, each a JavaScript expression over the inputs, the presets
that apply and an optional chart. The expressions are checked against the card's snippet at build
time (eqcards.calculators); the page runs exactly the function `function_body` builds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import CardError
from .validate import FieldChecker, check_id, yaml_list

CALCULATOR_KEYS = {"inputs": True, "define": False, "outputs": True, "presets": False, "chart": False}
INPUT_KEYS = {"name": True, "symbol": True, "meaning": True, "unit": True, "default": True,
              "min": True, "max": True, "step": False}
DEFINE_KEYS = {"name": True, "expr": True}
OUTPUT_KEYS = {"name": True, "symbol": True, "meaning": True, "unit": True, "expr": True}
CHART_KEYS = {"x": True, "output": True, "min": True, "max": True, "log": False}
PRESET_KEYS = {"id": True, "title": True, "source": True, "values": True, "published": False}
PRESET_SOURCE_KEYS = {"title": True, "url": True, "locator": True}
PUBLISHED_KEYS = {"card": True, "output": True, "value": True, "digits": True, "where": True}

# How the page formats an output, by its unit (docs/javascripts/calculator.js formats each); an
# input whose unit is one of these has its chart axis labelled the same way. Times are in seconds.
OUTPUT_UNITS = ("count", "parameters", "tokens", "bytes", "FLOPs", "FLOP/s", "bytes/s",
                "FLOP/byte", "fraction", "nats", "bits", "ratio", "seconds", "tokens/s")
# An input's name is a JavaScript identifier: it is a variable of the expressions and a URL key.
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
# What an expression may hold: numbers, names, arithmetic, comparisons and the conditional operator.
EXPRESSION_CHARS = re.compile(r"^[0-9A-Za-z_.+\-*/%()?:<>=!&|,\s]*$")
IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")
NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# A number standing alone, not the digits that end a name such as C_0 or M1.
LITERAL = re.compile(r"(?<![A-Za-z0-9_$])" + NUMBER.pattern)
# Math's members an expression may call or read.
MATH_NAMES = {"abs", "ceil", "cos", "sin", "tanh", "exp", "expm1", "floor", "log", "log10", "log1p", "log2",
              "max", "min", "pow", "round", "sqrt", "cbrt", "E", "PI", "LN2", "LN10"}
# Functions an expression may call beyond Math's, each defined in the function body the page runs
# and the build checks, so both evaluate the same code. A binomial coefficient needs a loop, which an
# expression cannot hold; the running product stays within a few ulps per factor of the exact integer.
HELPERS = {
    "comb": "function comb(n, k) { if (k < 0 || k > n) return 0; let r = 1; "
            "for (let i = 1; i <= k; i++) r = r * (n - k + i) / i; return r; }",
    # log(1 + e^x) without overflow: -log sigmoid(m) = softplus(-m) is every logistic loss's term.
    "softplus": "function softplus(x) { return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x))); }",
    # The logistic function without overflow on either side (1 / (1 + e^-x) overflows below -709).
    "sigmoid": "function sigmoid(x) { const e = Math.exp(-Math.abs(x)); "
               "return x >= 0 ? 1 / (1 + e) : e / (1 + e); }",
    # Rounding half to even, as NumPy's round and every IEEE format do; Math.round sends halves up.
    "roundeven": "function roundeven(x) { const f = Math.floor(x), d = x - f; "
                 "return d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1; }",
}


@dataclass(frozen=True)
class CalcInput:
    name: str
    symbol: str  # LaTeX, no delimiters
    meaning: str
    unit: str  # shown beside the field ("tokens", "bytes per element"); empty for a pure number
    default: float
    min: float
    max: float
    step: float | None  # None: any real number
    line: int


@dataclass(frozen=True)
class CalcExpression:
    """A named intermediate (symbol etc. empty) or an output of the calculator."""

    name: str
    expr: str
    line: int
    symbol: str = ""
    meaning: str = ""
    unit: str = ""


@dataclass(frozen=True)
class Chart:
    x: str  # the input on the horizontal axis
    output: str  # the output drawn against it
    min: float
    max: float
    log: bool


@dataclass(frozen=True)
class Calculator:
    inputs: tuple[CalcInput, ...]
    define: tuple[CalcExpression, ...]
    outputs: tuple[CalcExpression, ...]
    presets: tuple[str, ...]
    chart: Chart | None
    line: int  # the `calculator:` key in the card file

    def defaults(self) -> dict[str, float]:
        return {i.name: i.default for i in self.inputs}

    def function_body(self) -> str:
        """The JavaScript body of `function (inputs) {...}` returning {output: value}: the one
        function the build checks and the page runs."""
        lines = [*self.helpers(), *(f"const {i.name} = inputs.{i.name};" for i in self.inputs)]
        lines += [f"const {d.name} = ({d.expr});" for d in self.define]
        outputs = ", ".join(f"{o.name}: ({o.expr})" for o in self.outputs)
        return "\n".join([*lines, f"return {{{outputs}}};"])

    def helpers(self) -> list[str]:
        """The definitions of the helper functions (HELPERS) that some expression calls."""
        words = {w for e in (*self.define, *self.outputs) for w in IDENTIFIER.findall(e.expr)}
        return [source for name, source in HELPERS.items() if name in words]


@dataclass(frozen=True)
class Published:
    """A figure a preset's source prints: the card's output at that preset, to `digits` significant
    digits."""

    card: str
    output: str
    value: float
    digits: int
    where: str
    line: int

    def matches(self, computed: float) -> bool:
        """Whether `computed`, rounded as the source rounds, is the printed figure: within half a
        unit of its last significant digit."""
        if self.value == 0:
            return computed == 0
        last = math.floor(math.log10(abs(self.value))) - self.digits + 1
        return abs(computed - self.value) <= 0.5 * 10.0 ** last * (1 + 1e-12)


@dataclass(frozen=True)
class Preset:
    id: str
    title: str
    source_title: str
    source_url: str
    locator: str
    values: dict[str, float]
    published: tuple[Published, ...]
    line: int


def parse_calculator(data: Any, c: FieldChecker) -> Calculator:
    """The `calculator:` block of a card, with every name and expression checked."""
    block = c.mapping(data, ("calculator",), CALCULATOR_KEYS)
    inputs = []
    for i, raw in enumerate(c.mapping_list(block["inputs"], ("calculator", "inputs"), INPUT_KEYS)):
        at = ("calculator", "inputs", i)
        low, high, default = (_number(raw[k], (*at, k), c) for k in ("min", "max", "default"))
        if not low <= default <= high:
            raise c.fail((*at, "default"), f"default {default} is outside [{low}, {high}]")
        step = _number(raw["step"], (*at, "step"), c) if raw.get("step") is not None else None
        inputs.append(CalcInput(_name(raw["name"], (*at, "name"), c), c.text(raw["symbol"], (*at, "symbol")),
                                c.text(raw["meaning"], (*at, "meaning")),
                                c.text(raw["unit"], (*at, "unit"), allow_empty=True), default, low, high,
                                step, c.lines.get(at, 0)))
    known = {i.name for i in inputs}
    _unique([i.name for i in inputs], ("calculator", "inputs"), c)
    define = []
    raw_define = block.get("define")
    for i, raw in enumerate(c.mapping_list(raw_define, ("calculator", "define"), DEFINE_KEYS)
                            if raw_define is not None else []):
        at = ("calculator", "define", i)
        name = _name(raw["name"], (*at, "name"), c)
        if name in known:
            raise c.fail((*at, "name"), f"'{name}' is already an input or an earlier definition")
        define.append(CalcExpression(name, _expression(raw["expr"], (*at, "expr"), known, c),
                                     c.lines.get((*at, "expr"), 0)))
        known.add(name)
    outputs = []
    for i, raw in enumerate(c.mapping_list(block["outputs"], ("calculator", "outputs"), OUTPUT_KEYS)):
        at = ("calculator", "outputs", i)
        unit = c.text(raw["unit"], (*at, "unit"))
        if unit not in OUTPUT_UNITS:
            raise c.fail((*at, "unit"), f"output unit '{unit}' is not one the page formats: "
                         f"{', '.join(OUTPUT_UNITS)}")
        outputs.append(CalcExpression(_name(raw["name"], (*at, "name"), c),
                                      _expression(raw["expr"], (*at, "expr"), known, c),
                                      c.lines.get((*at, "expr"), 0), c.text(raw["symbol"], (*at, "symbol")),
                                      c.text(raw["meaning"], (*at, "meaning")), unit))
    _unique([o.name for o in outputs], ("calculator", "outputs"), c)
    presets = tuple(check_id(p, ("calculator", "presets", i), c)
                    for i, p in enumerate(c.text_list(block.get("presets"), ("calculator", "presets"))))
    chart = None
    if block.get("chart") is not None:
        raw = c.mapping(block["chart"], ("calculator", "chart"), CHART_KEYS)
        at = ("calculator", "chart")
        x, output = c.text(raw["x"], (*at, "x")), c.text(raw["output"], (*at, "output"))
        if x not in {i.name for i in inputs}:
            raise c.fail((*at, "x"), f"chart x '{x}' is not an input of the calculator")
        if output not in {o.name for o in outputs}:
            raise c.fail((*at, "output"), f"chart output '{output}' is not an output of the calculator")
        low, high = _number(raw["min"], (*at, "min"), c), _number(raw["max"], (*at, "max"), c)
        log = raw.get("log", False) is True
        if not low < high or (log and low <= 0):
            raise c.fail(at, f"chart range [{low}, {high}] must be increasing (and positive for log: true)")
        chart = Chart(x, output, low, high, log)
    return Calculator(tuple(inputs), tuple(define), tuple(outputs), presets, chart,
                      c.lines.get(("calculator",), 0))


def _number(value: Any, at: tuple[str | int, ...], c: FieldChecker) -> float:
    # PyYAML reads 7e9 and 1.0e15 as text (YAML 1.1 wants a signed exponent): take them as written.
    if isinstance(value, str) and NUMBER.fullmatch(value.strip().lstrip("-")):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise c.fail(at, f"'{at[-1]}' must be a finite number, got {value!r}")
    return float(value)


def _name(value: Any, at: tuple[str | int, ...], c: FieldChecker) -> str:
    name = c.text(value, at)
    if not re.match(NAME_PATTERN, name) or name in ("inputs", "Math"):
        raise c.fail(at, f"'{name}' is not a usable name: letters, digits and _, not starting with a "
                     "digit (it is a JavaScript variable and a URL parameter)")
    return name


def _unique(names: list[str], at: tuple[str | int, ...], c: FieldChecker) -> None:
    for k, name in enumerate(names):
        if name in names[:k]:
            raise c.fail((*at, k), f"'{name}' is declared twice")


def _expression(value: Any, at: tuple[str | int, ...], known: set[str], c: FieldChecker) -> str:
    """A JavaScript expression over the known names and Math, and nothing else (no assignment, no
    call but Math's, no property but Math's), so the page can run it as it is."""
    expr = c.text(value, at)
    if not EXPRESSION_CHARS.match(expr):
        bad = sorted({ch for ch in expr if not EXPRESSION_CHARS.match(ch)})
        raise c.fail(at, f"expression holds {' '.join(bad)}: only numbers, names, + - * / % ** ( ) "
                     "comparisons and ? : are allowed")
    if re.search(r"(?<![=!<>])=(?!=)", expr):
        raise c.fail(at, "expression assigns (=): write a comparison as == or ===")
    for match in IDENTIFIER.finditer(LITERAL.sub(lambda m: " " * len(m.group()), expr)):
        word = match.group()
        if word.startswith("Math."):
            if word[5:] not in MATH_NAMES:
                raise c.fail(at, f"'{word}' is not an allowed Math member ({', '.join(sorted(MATH_NAMES))})")
        elif word not in known and word not in HELPERS:
            raise c.fail(at, f"'{word}' is not an input or an earlier definition of the calculator "
                         f"(known: {', '.join(sorted(known))}; functions: {', '.join(HELPERS)})")
    return expr


def load_presets(path: Path) -> dict[str, Preset]:
    """docs/presets.yml: each real model's or paper's values, with its source."""
    if not path.is_file():
        return {}
    data, c = yaml_list(path, "presets {id, title, source: {title, url, locator}, values, published?}")
    presets: dict[str, Preset] = {}
    for i, raw in enumerate(data):
        p = c.mapping(raw, (i,), PRESET_KEYS)
        preset_id = check_id(c.text(p["id"], (i, "id")), (i, "id"), c)
        if preset_id in presets:
            raise c.fail((i, "id"), f"preset '{preset_id}' is declared twice")
        source = c.mapping(p["source"], (i, "source"), PRESET_SOURCE_KEYS)
        if not re.match(r"^https?://\S+$", str(source["url"])):
            raise c.fail((i, "source", "url"), "source url must be an http(s) address")
        values = p["values"]
        if not isinstance(values, dict) or not values:
            raise c.fail((i, "values"), "'values' must map input names to numbers")
        parsed = {_name(k, (i, "values", k), c): _number(v, (i, "values", k), c) for k, v in values.items()}
        published = []
        for j, fig in enumerate(p.get("published") or []):
            at = (i, "published", j)
            f = c.mapping(fig, at, PUBLISHED_KEYS)
            digits = f["digits"]
            if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
                raise c.fail((*at, "digits"), "'digits' must be the significant digits printed, 1 to 17")
            published.append(Published(check_id(c.text(f["card"], (*at, "card")), (*at, "card"), c),
                                       c.text(f["output"], (*at, "output")),
                                       _number(f["value"], (*at, "value"), c), digits,
                                       c.text(f["where"], (*at, "where")), c.lines.get(at, 0)))
        presets[preset_id] = Preset(preset_id, c.text(p["title"], (i, "title")),
                                    c.text(source["title"], (i, "source", "title")), str(source["url"]),
                                    c.text(source["locator"], (i, "source", "locator")), parsed,
                                    tuple(published), c.lines.get((i,), 0))
    return presets


def preset_problems(presets: dict[str, Preset], calculators: dict[str, tuple[Path, Calculator]],
                    presets_path: Path) -> list[CardError]:
    """A card naming an unknown preset or one that sets none of its inputs, a preset value outside
    an input's range, and a published figure of a card or output that does not exist."""
    errors = []
    for path, calc in calculators.values():
        names = {i.name: i for i in calc.inputs}
        for preset_id in calc.presets:
            preset = presets.get(preset_id)
            if preset is None:
                errors.append(CardError(path, f"preset '{preset_id}' is not declared in "
                                        f"{presets_path.name}", calc.line))
                continue
            used = {k: v for k, v in preset.values.items() if k in names}
            if not used:
                errors.append(CardError(path, f"preset '{preset_id}' sets none of this calculator's "
                                        "inputs", calc.line))
            for name, value in used.items():
                field = names[name]
                if not field.min <= value <= field.max:
                    errors.append(CardError(presets_path, f"preset '{preset_id}': {name} = {value} is "
                                            f"outside [{field.min}, {field.max}] of {path.name}",
                                            preset.line))
    for preset in presets.values():
        for fig in preset.published:
            target = calculators.get(fig.card)
            if target is None or fig.output not in {o.name for o in target[1].outputs}:
                errors.append(CardError(presets_path, f"preset '{preset.id}' publishes {fig.card}/"
                                        f"{fig.output}, which is no calculator output", fig.line))
            elif preset.id not in target[1].presets:
                errors.append(CardError(presets_path, f"preset '{preset.id}' publishes a figure of "
                                        f"{fig.card}, whose calculator does not list the preset", fig.line))
    return errors
