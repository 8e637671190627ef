"""How the page shows a calculator's numbers: docs/javascripts/calculator.js's own formatting run in
QuickJS (times scaled to ns ... h, chart ticks in the units of their axis), and every output unit
the build accepts is one the script formats."""

from __future__ import annotations

import json
import re

import pytest
import quickjs

from eqcards.calculators.pagescript import SCRIPT, page_script
from eqcards.cards.calculator import OUTPUT_UNITS


@pytest.fixture(scope="module")
def page() -> quickjs.Context:
    return page_script()


def shown(page: quickjs.Context, function: str, value: float, unit: str) -> str:
    return page.eval(f"window.eqcCalculator.{function}({json.dumps(value)}, {json.dumps(unit)})")


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0 s"), (3.2e-10, "0.32 ns"), (2.5e-7, "250 ns"), (1e-6, "1 \u00b5s"), (4.56e-5, "45.6 \u00b5s"),
    (0.0035, "3.5 ms"), (0.999, "999 ms"), (1, "1 s"), (59.5, "59.5 s"), (90, "1.5 min"),
    (3600, "1 h"), (5000, "1.389 h"), (-0.02, "-20 ms")])
def test_a_time_takes_the_unit_its_size_asks(page: quickjs.Context, seconds: float, text: str) -> None:
    assert shown(page, "format", seconds, "seconds") == text


@pytest.mark.parametrize(("value", "unit", "tick"), [
    (1e14, "", "1.00 \u00d7 10\u00b9\u2074"),              # a plain number with many digits
    (131072, "", "131072"),                                  # ... and one a reader takes in at a glance
    (1e18, "FLOPs", "1.00 \u00d7 10\u00b9\u2078 FLOPs"),
    (2 * 80 * 8 * 128 * 4096 * 2, "bytes", "1.25 GiB"),    # without the decimal parenthetical
    (1e9, "tokens", "1.00 \u00d7 10\u2079 tokens"),        # not the grouped digits and words
    (4096, "tokens", "4096 tokens"),
    (0.25, "fraction", "0.25"),
    (0.0035, "seconds", "3.5 ms"),
    (1 / 0.0071, "tokens/s", "140.8 tokens/s")])
def test_a_chart_tick_is_formatted_like_its_axis(page: quickjs.Context, value: float, unit: str,
                                                 tick: str) -> None:
    assert shown(page, "axisLabel", value, unit) == tick


@pytest.mark.parametrize(("value", "unit", "text"), [
    (1.0986122886681098, "nats", "1.0986 nats"), (0.000123, "nats", "0.000123 nats"),  # not 0.0000
    (0.7, "bits", "0.7 bits"), (3.3219280948873626, "bits", "3.322 bits")])
def test_an_information_quantity_names_its_unit(page: quickjs.Context, value: float, unit: str,
                                                text: str) -> None:
    assert shown(page, "format", value, unit) == text


def test_every_output_unit_has_a_format() -> None:
    """A unit the build accepts but the script does not know would fall through to a bare number."""
    cases = set(re.findall(r'case "([^"]+)":', SCRIPT.read_text(encoding="utf-8")))
    assert set(OUTPUT_UNITS) <= cases, sorted(set(OUTPUT_UNITS) - cases)
