"""Each calculator's JavaScript, run in QuickJS on its snippet's grid and compared with the formula.

The snippet records its own formula on a grid of inputs (snippets/lib/cardcalc.py); here the very
function the page runs (`Calculator.function_body`) is evaluated at each row and must agree. A
second, instrumented copy records which side of every `?:` and which argument of every
`Math.min`/`Math.max` the grid reached: a branch the grid never takes is not checked, so it fails.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import quickjs

from ..cards.calculator import IDENTIFIER, NUMBER, CalcExpression, Calculator, Preset
from ..cards.model import Card
from ..core.errors import CardError
from ..snippets.jobs import SnippetResult

# Both sides compute in IEEE doubles, the formula in a different order and each libm within an ulp
# or so of exp/log/pow: a few dozen roundings of 1.1e-16 each, so agreement to 1e-12 of the value
# (or of the output's largest value on the grid, where a difference cancels toward zero) leaves a
# margin of 100 over rounding, while a wrong constant, exponent or term is off by far more.
RTOL = 1e-12

COVERAGE_JS = """
var __cov = {};
function __mark(k, side) { (__cov[k] = __cov[k] || {})[side] = true; }
function __br(k, c) { __mark(k, c ? "true" : "false"); return c; }
function __pick(k, kind) {
  var args = Array.prototype.slice.call(arguments, 2);
  var r = Math[kind].apply(null, args);
  var at = [];
  for (var i = 0; i < args.length; i++) if (args[i] === r) at.push(i);
  if (at.length === 1) __mark(k, "argument " + (at[0] + 1));
  return r;
}
"""


def function_source(calc: Calculator, body: str | None = None) -> str:
    return f"(function (inputs) {{\n{body if body is not None else calc.function_body()}\n}})"


def evaluate(calc: Calculator, rows: list[Mapping[str, float]]) -> list[dict[str, float | None]]:
    """The page's function at each row of inputs; a value that is not a finite number is None."""
    context = quickjs.Context()
    context.eval(f"var __f = {function_source(calc)};")
    return _run_rows(context, rows)


def _run_rows(context: quickjs.Context, rows: list[Mapping[str, float]]) -> list[dict[str, float | None]]:
    context.eval(f"var __rows = {json.dumps(list(rows))};")
    # JSON has no NaN or Infinity: both come back as null, and are reported as not a number.
    return json.loads(context.eval("JSON.stringify(__rows.map(function (r) { return __f(r); }))"))


def instrument(expr: str, start: int) -> tuple[str, list[tuple[int, str, list[str]]]]:
    """The expression with each branch point wrapped to record its outcomes, and those points as
    (index, description, outcomes), numbered from `start`."""
    tokens = _tokens(expr)
    inserts: list[tuple[int, str]] = []  # (token index to insert before, text)
    replaced: dict[int, str] = {}
    sites: list[tuple[int, str, list[str]]] = []
    k = start
    for i, token in enumerate(tokens):
        if token == "?":
            depth, j = 0, i - 1
            while j >= 0:
                t = tokens[j]
                if t == ")":
                    depth += 1
                elif t == "(":
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and t in (",", "?", ":"):
                    break
                j -= 1
            condition = "".join(tokens[j + 1:i]).strip()
            inserts += [(j + 1, f"__br({k}, "), (i, ")")]
            sites.append((k, f"the condition {condition}", ["true", "false"]))
            k += 1
        elif token in ("Math.min", "Math.max") and i + 1 < len(tokens) and tokens[i + 1] == "(":
            replaced[i] = f'__pick({k}, "{token[5:]}", '
            replaced[i + 1] = ""
            arguments = _arguments(tokens, i + 1)
            sites.append((k, f"{token}(...)", [f"argument {n}" for n in range(1, arguments + 1)]))
            k += 1
    out = []
    for i, token in enumerate([*tokens, ""]):
        out += [text for at, text in inserts if at == i]
        out.append(replaced.get(i, token))
    return "".join(out), sites


def _tokens(expr: str) -> list[str]:
    tokens, i = [], 0
    while i < len(expr):
        match = NUMBER.match(expr, i) or IDENTIFIER.match(expr, i)
        if match and match.start() == i and match.end() > i:
            tokens.append(match.group())
            i = match.end()
        else:
            tokens.append(expr[i])
            i += 1
    return tokens


def coverage(calc: Calculator, rows: list[Mapping[str, float]]) -> list[tuple[CalcExpression, str, str]]:
    """Each outcome of a branch point that no row reached: (expression, point, missing outcome)."""
    bodies = [*calc.helpers(), *(f"const {i.name} = inputs.{i.name};" for i in calc.inputs)]
    sites: dict[int, tuple[CalcExpression, str, list[str]]] = {}
    outputs = []
    for item in (*calc.define, *calc.outputs):
        text, found = instrument(item.expr, len(sites))
        for k, what, sides in found:
            sites[k] = (item, what, sides)
        if item in calc.define:
            bodies.append(f"const {item.name} = ({text});")
        else:
            outputs.append(f"{item.name}: ({text})")
    if not sites:
        return []
    context = quickjs.Context()
    context.eval(COVERAGE_JS)
    body = "\n".join([*bodies, f"return {{{', '.join(outputs)}}};"])
    context.eval(f"var __f = {function_source(calc, body)};")
    _run_rows(context, rows)
    reached = json.loads(context.eval("JSON.stringify(__cov)"))
    return [(item, what, side) for k, (item, what, sides) in sites.items()
            for side in sides if not reached.get(str(k), {}).get(side)]


def _arguments(tokens: list[str], opening: int) -> int:
    """How many arguments the call whose "(" is tokens[opening] has."""
    depth, count = 0, 1
    for token in tokens[opening + 1:]:
        if token == "(":
            depth += 1
        elif token == ")":
            if depth == 0:
                return count
            depth -= 1
        elif token == "," and depth == 0:
            count += 1
    return count


def check_card(card: Card, result: SnippetResult | None, presets: dict[str, Preset],
               presets_path: Path) -> list[CardError]:
    """Every way the card's calculator disagrees with its snippet, misses a branch on the grid, or
    misses a figure its presets' sources publish."""
    calc = card.calculator
    if calc is None or result is None or not result.ok:
        return []  # no calculator, or the snippet's own failure is the error to fix first
    if not result.table:
        return [CardError(card.path, "the card has a calculator but its snippet recorded no table: "
                          f"call cardcalc.table(formula, rows) in snippets/{card.snippet} with the "
                          "formula's function and a grid over every input", calc.line)]
    names = [i.name for i in calc.inputs]
    for n, row in enumerate(result.table, start=1):
        if sorted(row["in"]) != sorted(names):
            return [CardError(card.path, f"row {n} of the snippet's table has inputs "
                              f"{', '.join(sorted(row['in']))}; the calculator's are "
                              f"{', '.join(sorted(names))}", calc.line)]
    errors = []
    for field in calc.inputs:
        if field.min < field.max and len({row["in"][field.name] for row in result.table}) < 2:
            errors.append(CardError(card.path, f"input {field.name} takes one value on the snippet's "
                                    "grid: give it at least two, so the expressions are checked as it "
                                    "varies", field.line))
    rows = [row["in"] for row in result.table]
    values = evaluate(calc, rows)
    for output in calc.outputs:
        expected = [_expected(row["out"], output.name, len(calc.outputs)) for row in result.table]
        if any(v is None for v in expected):
            errors.append(CardError(card.path, f"the snippet's table has no value for output "
                                    f"{output.name}: return a dict by output name", output.line))
            continue
        scale = max(abs(v) for v in expected)
        for row, got, want in zip(rows, values, expected, strict=True):
            js = got.get(output.name)
            if js is None or not math.isfinite(js) or abs(js - want) > RTOL * max(abs(want), scale):
                errors.append(CardError(card.path, f"calculator output {output.name} = {js} but the "
                                        f"snippet's formula gives {want!r} at {_point(row)}", output.line))
                break
    for item, what, side in coverage(calc, rows):
        errors.append(CardError(card.path, f"{what} in {item.name} never takes {side} on the snippet's "
                                "grid: add rows that reach it, so that branch is checked too", item.line))
    errors += _published(card, calc, presets, presets_path)
    return errors


def _published(card: Card, calc: Calculator, presets: dict[str, Preset],
               presets_path: Path) -> list[CardError]:
    """Each figure a preset's source publishes for this card, recomputed by the page's function."""
    errors = []
    points = [(p, {**calc.defaults(), **{k: v for k, v in p.values.items() if k in calc.defaults()}})
              for p in (presets[i] for i in calc.presets if i in presets)]
    for (preset, _), value in zip(points, evaluate(calc, [pt for _, pt in points]), strict=True):
        for fig in preset.published:
            if fig.card == card.id and not fig.matches(value.get(fig.output) or math.nan):
                errors.append(CardError(presets_path, f"preset '{preset.id}': {card.id} gives "
                                        f"{fig.output} = {value.get(fig.output)!r}, but {fig.where} "
                                        f"prints {fig.value:.{fig.digits}g}", fig.line))
    return errors


def _expected(outputs: Mapping[str, float], name: str, count: int) -> float | None:
    if name in outputs:
        return outputs[name]
    return outputs.get("") if count == 1 else None


def _point(row: Mapping[str, float]) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in row.items())


def _short(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def calculator_problems(cards: list[Card], results: Mapping[str, SnippetResult],
                        presets: dict[str, Preset], presets_path: Path) -> list[CardError]:
    """Every calculator of the site checked against its snippet's run."""
    return [e for card in cards if card.calculator is not None
            for e in check_card(card, results.get(card.id), presets, presets_path)]

