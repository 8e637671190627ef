"""The calculator's HTML as the card page carries it: fields start at the digits a reader types,
and a chart's caption speaks of other inputs only when there are any."""

from __future__ import annotations

from pathlib import Path

from conftest import card_markdown

from eqcards.cards.load import parse_card
from eqcards.pages.calculator_html import render_calculator


def field(name: str, default: float) -> dict:
    return {"name": name, "symbol": name, "meaning": name, "unit": "", "default": default, "min": 0,
            "max": 1e12, "step": 1}


def page(tmp_path: Path, inputs: list[dict]) -> str:
    block = {"inputs": inputs,
             "outputs": [{"name": "f", "symbol": "f", "meaning": "total", "unit": "count",
                          "expr": " + ".join(i["name"] for i in inputs)}],
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
