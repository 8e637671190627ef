"""Card calculators in the browser: presets through the URL reproduce their sources' figures, the
inputs live in the address, the result is in data-value and announced, and it fits a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_fixtures import Visit
from conftest import ROOT
from playwright.sync_api import Browser

from eqcards.cards.calculator import load_presets

pytestmark = pytest.mark.browser

PRESETS = load_presets(ROOT / "docs" / "presets.yml")
# One visit per card and preset: every figure its source publishes for that card is read there.
PUBLISHED = sorted({(fig.card, p.id) for p in PRESETS.values() for fig in p.published})


def test_presets_are_published() -> None:
    assert ("decoder-parameter-count", "llama-2-70b") in PUBLISHED
    assert ("zero3-memory", "zero-7-5b") in PUBLISHED


@pytest.mark.parametrize(("card", "preset"), PUBLISHED)
def test_a_preset_in_the_url_reproduces_its_published_figures(visit: Visit, base_url: str,
                                                              card: str, preset: str) -> None:
    page = visit.open(f"{base_url}/cards/{card}/?preset={preset}")
    assert page.locator("select[name=preset]").input_value() == preset
    for fig in (f for f in PRESETS[preset].published if f.card == card):
        value = page.locator(f"#calc-out-{fig.output}").get_attribute("data-value")
        assert value and fig.matches(float(value)), \
            f"{card} {fig.output} = {value}; {fig.where} prints {fig.value}"
    assert visit.outside == [] and visit.failed == []


def test_a_calculator_on_a_phone(browser: Browser, base_url: str) -> None:
    """KV-cache memory at 390 px: URL state in and out, data-value, labels, live region, chart."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = Visit(context.new_page(), base_url).open(
        f"{base_url}/cards/kv-cache-memory/?preset=llama-2-70b&T=4096")
    out = page.locator("#calc-out-M")
    # Llama 2 70B: 2 x 80 layers x 8 KV heads x 128 x 4096 tokens x 1 sequence x 2 bytes = 1.25 GiB.
    assert out.get_attribute("data-value") == str(2 * 80 * 8 * 128 * 4096 * 2)
    assert "1.25 GiB" in out.inner_text()
    assert page.locator("#calc-in-T").input_value() == "4096"
    assert page.locator("#calc-in-L").input_value() == "80"
    # Every input has a label naming its symbol and meaning; the results are announced politely.
    for field in page.locator("form.eqc-calc input").all():
        label = page.locator(f"label[for='{field.get_attribute('id')}']")
        assert label.count() == 1 and label.inner_text().strip(), field.get_attribute("id")
        assert label.locator("[role=img][aria-label]").count() == 1
    assert page.locator(".eqc-calc-results").get_attribute("aria-live") == "polite"
    # Typing updates the value and the address; that address, opened afresh, gives the same value.
    page.locator("#calc-in-B").fill("8")
    assert out.get_attribute("data-value") == str(2 * 80 * 8 * 128 * 4096 * 2 * 8)
    assert "preset=llama-2-70b" in page.url and "T=4096" in page.url and "B=8" in page.url
    shared = page.url
    # An empty field is flagged and the result says so, rather than showing a stale number.
    page.locator("#calc-in-B").fill("")
    assert out.get_attribute("data-value") == ""
    assert page.locator("#calc-in-B").get_attribute("aria-invalid") == "true"
    assert page.locator("#calc-chart svg path.eqc-calc-line").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.goto(shared)
    assert page.locator("#calc-out-M").get_attribute("data-value") == str(2 * 80 * 8 * 128 * 4096 * 2 * 8)
    context.close()


def test_no_calculator_without_a_block(built_site: Path) -> None:
    """A card without a calculator block gets no calculator section (and the script does nothing)."""
    html = (built_site / "cards" / "kl-divergence" / "index.html").read_text(encoding="utf-8")
    assert "eqc-calc" not in html and "calculator.js" in html


def test_times_and_chart_ticks_take_their_units(visit: Visit, base_url: str) -> None:
    """Seconds are shown in the unit their size asks; a chart's ticks are formatted like its axis."""
    page = visit.open(f"{base_url}/cards/serving-latency-metrics/?TTFT=0.35&TPOT=0.0125&n=101")
    # E2E = 0.35 s + 100 x 12.5 ms = 1.6 s; this request alone emits 101 / 1.6 = 63.125 tokens/s.
    assert page.locator("#calc-out-E2E").inner_text() == "1.6 s"
    assert page.locator("#calc-out-Theta").inner_text() == "63.13 tokens/s"
    ticks = page.locator("#calc-chart svg text").all_text_contents()
    # The axis title says "(tokens)", so its ticks are bare; 51.54 s = 0.35 + 4095 x 0.0125 s at n = 4096.
    assert "4096" in ticks and "4096 tokens" not in ticks and "51.54 s" in ticks, ticks
    page.locator("#calc-in-TPOT").fill("0.0000042")
    assert page.locator("#calc-out-E2E").inner_text() == "350.4 ms"
    page = visit.open(f"{base_url}/cards/compute-optimal-allocation/")
    ticks = page.locator("#calc-chart svg text").all_text_contents()
    assert "1.00 \u00d7 10\u00b9\u2078 FLOPs" in ticks and "1.00 \u00d7 10\u00b2\u2077 FLOPs" in ticks, ticks
    assert visit.outside == [] and visit.failed == []


FIRST_RENDER = """() => ({
    outputs: [...document.querySelectorAll('form.eqc-calc output')]
        .map(o => [o.id, o.dataset.value, o.textContent]),
    chart: document.querySelector('#calc-chart > svg')?.outerHTML ?? '',
    search: location.search })"""


@pytest.mark.parametrize("card", ["kv-cache-memory", "serving-latency-metrics", "compute-optimal-allocation",
                                  "decoder-parameter-count"])
def test_a_plain_visit_shows_the_builds_results_which_are_the_scripts(visit: Visit, base_url: str,
                                                                      built_site: Path, card: str) -> None:
    """At the defaults the script computes nothing before the first paint: the results and chart are
    the build's (its own run of the page's script), and the script, asked to update, draws the same."""
    page = visit.open(f"{base_url}/cards/{card}/")
    built = page.evaluate(FIRST_RENDER)
    html = (built_site / "cards" / card / "index.html").read_text(encoding="utf-8").replace("&amp;", "&")
    for name, value, text in built["outputs"]:
        assert f'id="{name}"' in html and f'data-value="{value}">{text}</output>' in html
    assert built["chart"].startswith("<svg") or "calc-chart" not in html
    # An input event with no change: the script recomputes everything from the fields.
    page.locator("form.eqc-calc input").first.dispatch_event("input")
    redrawn = page.evaluate(FIRST_RENDER)
    assert [(n, t) for n, _, t in redrawn["outputs"]] == [(n, t) for n, _, t in built["outputs"]]
    for (_, ours, _), (_, theirs, _) in zip(built["outputs"], redrawn["outputs"], strict=True):
        # QuickJS and V8 may round a pow or log differently in the last place, never more.
        assert float(ours) == pytest.approx(float(theirs), rel=1e-14)
    assert redrawn["chart"] == built["chart"] and redrawn["search"] == ""
    assert visit.outside == [] and visit.failed == []
