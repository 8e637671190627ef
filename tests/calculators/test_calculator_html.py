"""The calculator's HTML as the card page carries it: fields start at the digits a reader types,
the defaults' results and chart are already written (by the page's own script, run at build time),
and a chart's caption speaks of other inputs only when there are any."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.pages.calculator_html import render_calculator


def field(name: str, default: float) -> dict:
    return {"name": name, "symbol": name, "meaning": name, "unit": "", "default": default, "min": 0,
            "max": 1e12, "step": 1}


def page(tmp_path: Path, inputs: list[dict], expr: str | None = None) -> str:
    block = {"inputs": inputs,
             "outputs": [{"name": "f", "symbol": "f", "meaning": "total", "unit": "count",
                          "expr": expr or " + ".join(i["name"] for i in inputs)}],
             "chart": {"x": inputs[0]["name"], "output": "f", "min": 1, "max": 10}}
    path = tmp_path / "toy-entropy.md"
    path.write_text(card_markdown(calculator=block), encoding="utf-8")
    return "\n".join(render_calculator(parse_card(path), {}))


def test_a_large_default_is_shown_in_plain_digits(tmp_path: Path) -> None:
    html = page(tmp_path, [field("N", 1e6), field("b", 0.25)])
    assert 'value="1000000"' in html and 'value="0.25"' in html and "1e+06" not in html


def test_the_chart_caption_names_other_inputs_only_when_there_are_some(tmp_path: Path) -> None:
    assert "the other inputs as above" in page(tmp_path, [field("N", 3), field("b", 2)])
    assert "the other inputs as above" not in page(tmp_path, [field("N", 3)])


def test_the_page_shows_its_defaults_results_and_chart_before_any_script_runs(tmp_path: Path) -> None:
    html = page(tmp_path, [field("N", 1234567), field("b", 3)])
    # 1234570 as the page's script formats a count, and its raw value for tests and tools.
    assert re.search(r'<output id="calc-out-f"[^>]* data-value="1234570">1,234,570 \(1.23 million\)</output>',
                     html), html
    chart = re.search(r'<figure class="eqc-calc-chart" id="calc-chart">(<svg .*?</svg>)<figcaption>', html)
    assert chart, html
    # The line over the chart's range (N from 1 to 10, plus b = 3: 4 ... 13) and the mark at N's default,
    # outside that range, is not drawn.
    assert 'class="eqc-calc-line"' in chart.group(1) and "eqc-calc-now" not in chart.group(1)
    assert "from 4 to 13" in chart.group(1)


def test_a_default_the_formula_cannot_take_shows_the_dash_not_a_number(tmp_path: Path) -> None:
    html = page(tmp_path, [field("N", 3)], expr="Math.log(N - 3)")
    assert re.search(r'<output id="calc-out-f"[^>]* data-value="">\u2014 \(an input', html), html
