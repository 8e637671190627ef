"""A card's calculator section: labelled inputs, live outputs and presets, run by calculator.js.

The page carries the function the build checked (`Calculator.function_body`) in `data-calculator`;
docs/javascripts/calculator.js evaluates it as the reader types, formats each output by its unit,
keeps the inputs in the URL and draws the optional chart. The defaults' results and chart are
written here, by that same script run at build time, so the page shows them before it runs.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping

from ..calculators.pagescript import first_render
from ..cards.calculator import OUTPUT_UNITS, Calculator, Preset
from ..cards.model import Card
from . import markup


def render_calculator(card: Card, presets: Mapping[str, Preset]) -> list[str]:
    """The section's Markdown lines (a heading and one HTML block); none without a calculator."""
    calc = card.calculator
    if calc is None:
        return []
    chosen = [presets[p] for p in calc.presets if p in presets]
    config = {
        "body": calc.function_body(),
        "inputs": [{"name": i.name, "default": i.default, "min": i.min, "max": i.max, "step": i.step}
                   for i in calc.inputs],
        "outputs": [{"name": o.name, "unit": o.unit} for o in calc.outputs],
        "presets": {p.id: {"title": p.title, "values": {k: v for k, v in p.values.items()
                                                        if k in calc.defaults()}} for p in chosen},
        "chart": None if calc.chart is None else {**vars(calc.chart), **_chart_labels(calc)},
    }
    shown = first_render(config)
    out = ["## Calculator { #calculator data-search-exclude }", "",
           f'<form class="eqc-calc" data-calculator="{html.escape(json.dumps(config), quote=True)}" '
           'aria-label="Calculator" novalidate>']
    if chosen:
        options = "".join(f'<option value="{p.id}">{markup.text(p.title)}</option>' for p in chosen)
        out.append('<p class="eqc-calc-preset"><label for="calc-preset">Preset</label> '
                   f'<select id="calc-preset" name="preset"><option value="">Custom values</option>{options}'
                   '</select> <span class="eqc-calc-source" id="calc-source"></span></p>')
    out.append('<div class="eqc-calc-inputs">')
    for field in calc.inputs:
        step = "any" if field.step is None else f"{field.step:g}"
        unit = (f' <span class="eqc-calc-unit" id="calc-unit-{field.name}">{markup.text(field.unit)}</span>'
                if field.unit else "")
        described = f' aria-describedby="calc-unit-{field.name}"' if field.unit else ""
        out.append(f'<div class="eqc-calc-field"><label for="calc-in-{field.name}">{_math(field.symbol)} '
                   f'<span class="eqc-calc-meaning">{_text(field.meaning)}</span></label>'
                   f'<span class="eqc-calc-entry"><input id="calc-in-{field.name}" name="{field.name}" '
                   f'type="number" inputmode="decimal" value="{_plain(field.default)}" min="{field.min:g}" '
                   f'max="{field.max:g}" step="{step}" required{described}>{unit}</span></div>')
    out.append("</div>")
    # One live region for all results: a change announces the new values once, politely.
    out.append('<div class="eqc-calc-results" aria-live="polite" aria-atomic="true">')
    for output, result in zip(calc.outputs, shown["outputs"], strict=True):
        out.append(f'<p class="eqc-calc-result"><span class="eqc-calc-label">{_math(output.symbol)} '
                   f'<span class="eqc-calc-meaning">{_text(output.meaning)}</span></span> '
                   f'<output id="calc-out-{output.name}" name="{output.name}" data-unit="{output.unit}" '
                   f'data-value="{result["value"]}">{html.escape(result["text"], quote=False)}</output></p>')
    out.append("</div>")
    if calc.chart is not None:
        out.append(f'<figure class="eqc-calc-chart" id="calc-chart">{shown["chart"]}'
                   f"<figcaption>{_math(_symbol(calc, calc.chart.output))} "
                   f"against {_math(_symbol(calc, calc.chart.x))}"
                   + (", the other inputs as above" if len(calc.inputs) > 1 else "")
                   + "</figcaption></figure>")
    out.append('<p class="eqc-calc-share"><a id="calc-link" href="#calculator">Link to these values</a> '
               "(the address bar holds them too)</p>")
    if chosen:
        out.append('<details class="eqc-calc-sources"><summary>Where the presets come from</summary><ul>')
        out += [f'<li id="calc-source-{p.id}"><strong>{markup.text(p.title)}</strong>: '
                f'<a href="{html.escape(p.source_url, quote=True)}">{markup.text(p.source_title)}</a>, '
                f"{markup.text(p.locator)}</li>" for p in chosen]
        out.append("</ul></details>")
    out += ["</form>", ""]
    return out


def _chart_labels(calc: Calculator) -> dict[str, str]:
    """The chart's axis names as plain text (the SVG is drawn by the page's script), and the unit
    its horizontal axis is formatted in: the input's, when the page formats that unit."""
    assert calc.chart is not None
    x = next(i for i in calc.inputs if i.name == calc.chart.x)
    y = next(o for o in calc.outputs if o.name == calc.chart.output)
    return {"xlabel": markup.plain(x.meaning) + (f" ({markup.plain(x.unit)})" if x.unit else ""),
            "ylabel": markup.plain(y.meaning), "xunit": x.unit if x.unit in OUTPUT_UNITS else ""}


def _symbol(calc: Calculator, name: str) -> str:
    return next(x.symbol for x in (*calc.inputs, *calc.outputs) if x.name == name)


def _math(latex: str) -> str:
    """Inline math the build typesets to SVG (eqcards.typeset.mathsvg reads arithmatex spans)."""
    return f'<span class="arithmatex">\\({html.escape(latex, quote=False)}\\)</span>'


def _text(value: str) -> str:
    """A meaning with $math$ inside it, as HTML."""
    parts = value.split("$")
    return "".join(_math(p) if k % 2 else markup.text(p) for k, p in enumerate(parts))


def _plain(value: float) -> str:
    """A field's starting value as a reader types it: a million is 1000000, not 1e+06 (the digits
    JavaScript writes when a preset or the URL fills the field)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)
