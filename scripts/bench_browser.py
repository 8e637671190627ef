"""Benchmark pieces measured in headless Chromium: math ready, a calculator's cost to a card's first
render, first-visit transfer, search latency."""

from __future__ import annotations

import gzip
import html
import re
import shutil
import statistics
from pathlib import Path

from bench_search import search_metrics
from playwright.sync_api import Browser, sync_playwright

from eqcards.browser.chromium import CHROMIUM_ARGS, chromium_executable
from eqcards.browser.localserve import serve

SEARCH_SYNTHETIC_CARDS = 2000  # the search index scaled to this many cards (bench_search.py)

# When a page's formulas count as rendered: laid out (reading offsetHeight forces style and
# layout, which is also what starts the download of any web font the formulas use) with every
# font they need loaded. MathJax's CHTML output draws its glyphs in its own web fonts, and the
# browser shows no text in a font still loading, so the moment MathJax has put its markup in
# the document is not yet the moment a reader sees the formulas. Our SVG needs no font.
RENDERED = ("document.body.offsetHeight; document.fonts.ready.then(() => {{ "
            "window.__rendered = performance.now(); }});")
# The control page: the same formulas, typeset by MathJax 3 (CHTML) in its default configuration;
# the only addition records when typesetting has finished and the formulas are rendered.
CONTROL_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>control</title>
<script>window.MathJax = {{startup: {{pageReady: () => MathJax.startup.defaultPageReady()
  .then(() => {{ window.__typeset = performance.now(); """ + RENDERED + """ }})}}}};</script>
<script src="mathjax/tex-chtml.js"></script></head><body>{body}</body></html>"""
# The same formulas as our build emits them (SVG and shared glyphs), on an equally bare page;
# the script at the end runs once the parser has put every formula in the document.
OURS_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ours</title></head><body>{body}
<script>window.__typeset = performance.now(); """ + RENDERED + """</script></body></html>"""
def write_bare_pages(site: Path, page: str, browser: Browser, base: str) -> tuple[str, str]:
    """Two bare pages holding the formulas of `page`: ours (build-time SVG) and the control
    (TeX for MathJax 3 to typeset in the browser, from a local copy of MathJax)."""
    import mathjax  # django-static-mathjax: MathJax 3.2.2's es5 tree

    target = site / "_control"
    if not (target / "mathjax").exists():
        shutil.copytree(Path(mathjax.__file__).parent / "static" / "mathjax" / "es5", target / "mathjax")
    tab = browser.new_page()
    tab.goto(base + page)
    formulas = tab.evaluate("""() => [...document.querySelectorAll('.eqc-math')].map(m =>
        [m.dataset.tex, m.closest('div.arithmatex') !== null])""")
    # As the build wrote them (read from the file, not the document, where the page's script has
    # already joined each formula's glyphs into its path; eqcards/typeset/pageglyphs.py), with the
    # script that joins them last; MathJax's shared glyph definitions exist only when some
    # formula could not be flattened (eqcards/typeset/svgflat.py).
    ours = tab.evaluate("""async () => {
        const built = new DOMParser().parseFromString(await (await fetch(location.href)).text(), 'text/html');
        return [built.querySelector('.eqc-glyphs')?.outerHTML ?? '',
            ...[...built.querySelectorAll('.arithmatex')].map(a => a.outerHTML),
            built.querySelector('script.eqc-outlines')?.outerHTML ?? ''].join('\\n'); }""")
    tab.close()
    parts = [f"<div>\\[{html.escape(t)}\\]</div>" if display else f"<p>\\({html.escape(t)}\\)</p>"
             for t, display in formulas]
    name = page.strip("/").replace("/", "-")
    (target / f"{name}-control.html").write_text(CONTROL_PAGE.format(body="\n".join(parts)), encoding="utf-8")
    (target / f"{name}-ours.html").write_text(OURS_PAGE.format(body=ours), encoding="utf-8")
    return f"_control/{name}-ours.html", f"_control/{name}-control.html"


def median_ms(browser: Browser, url: str, ready: str, measure: str, repeats: int = 5) -> float:
    """Median over fresh visits of `measure` (ms since navigation start) once `ready` holds."""
    samples = []
    for _ in range(repeats):
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(url, wait_until="load")
        tab.wait_for_function(ready, timeout=120_000)
        samples.append(tab.evaluate(measure))
        context.close()
    return statistics.median(samples)


def in_turns(browser: Browser, urls: dict[str, str], ready: str, measure: str,
             repeats: int = 9) -> dict[str, float]:
    """The median of `measure` over fresh visits of each page taken in turns, so that a change in
    the machine's load between samples reaches every page alike, and in the reverse order every
    other round (a, b, b, a ...): the first visit of a round was measured slower (first contentful
    paint 408 ms against 260 ms for the same kind of page), which a fixed order hands to one page."""
    samples: dict[str, list[float]] = {label: [] for label in urls}
    order = list(urls.items())
    for round_ in range(repeats):
        for label, url in order if round_ % 2 == 0 else order[::-1]:
            samples[label].append(median_ms(browser, url, ready, measure, repeats=1))
    return {label: statistics.median(values) for label, values in samples.items()}


def time_to_math(browser: Browser, urls: dict[str, str], repeats: int = 9) -> dict[str, float]:
    """Milliseconds from navigation start until every formula on each bare page is rendered."""
    return in_turns(browser, urls, "() => window.__rendered !== undefined", "() => window.__rendered",
                    repeats)


def without_calculator(site: Path, card: str) -> str:
    """A copy of the card's built page beside it, with the calculator section cut out (its heading
    and form; the script stays, finds no form and does nothing): the same page, fonts and formulas,
    to time against the page as built."""
    page = site / "cards" / card / "index.html"
    built = page.read_text(encoding="utf-8")
    start = re.search(r'<h2[^>]* id="calculator"', built).start()
    end = built.index("</form>", start) + len("</form>")
    if "eqc-calc" in built[end:]:
        raise RuntimeError(f"{page}: more than the calculator section holds 'eqc-calc'; cut it all")
    (page.parent / "no-calculator.html").write_text(built[:start] + built[end:], encoding="utf-8")
    return f"cards/{card}/no-calculator.html"


def calculator_metrics(browser: Browser, site: Path, base: str, card: str) -> dict[str, float]:
    """A card page's first render with its calculator and without: milliseconds from navigation
    start to the end of DOMContentLoaded (the calculator's script starts in that event's handler)
    once every formula is drawn, and to the first contentful paint, each the median of fresh visits
    in turns. The difference left is small against the visit's own spread (the same page's
    DOMContentLoaded ranged from 276 to 447 ms in one run), hence more rounds than elsewhere."""
    urls = {"with": f"{base}cards/{card}/", "without": base + without_calculator(site, card)}
    ready = ("() => document.readyState === 'complete' && [...document.querySelectorAll('.arithmatex')]"
             ".every(a => a.querySelector('svg'))")
    loaded = in_turns(browser, urls, ready,
                      "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd",
                      repeats=21)
    painted = in_turns(browser, urls, ready,
                       "() => performance.getEntriesByName('first-contentful-paint')[0].startTime",
                       repeats=21)
    return {"calc_card": card, "calc_dcl_ms": loaded["with"], "calc_dcl_ms_without": loaded["without"],
            "calc_fcp_ms": painted["with"], "calc_fcp_ms_without": painted["without"]}


def control_fonts_loaded(browser: Browser, url: str) -> int:
    """How many web fonts the control page loaded; none would mean its clock stopped before
    MathJax's glyphs could be drawn, and the comparison would flatter the control."""
    return int(median_ms(browser, url, "() => window.__rendered !== undefined",
                         "() => [...document.fonts].filter(f => f.status === 'loaded').length",
                         repeats=1))


def time_to_content_loaded(browser: Browser, url: str) -> float:
    """Milliseconds from navigation start to DOMContentLoaded of the real, themed page."""
    return median_ms(browser, url,
                     "() => [...document.querySelectorAll('.arithmatex')].every(a => a.querySelector('svg'))",
                     "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")


def first_visit_gzip(browser: Browser, url: str) -> int:
    """Bytes a first visit transfers if every response is gzip-compressed (level 6)."""
    context = browser.new_context()
    tab = context.new_page()
    bodies: list[bytes] = []
    tab.on("response", lambda r: bodies.append(r.body()) if r.ok else None)
    tab.goto(url, wait_until="networkidle")
    context.close()
    return sum(len(gzip.compress(b, 6)) for b in bodies)


def browser_metrics(site: Path, card: str, calculator_card: str) -> dict[str, float]:
    with serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        out: dict[str, float] = {}
        # The floor: a bare page with no formula at all, the browser's own cost of a visit.
        (site / "_control").mkdir(exist_ok=True)
        (site / "_control" / "empty.html").write_text(OURS_PAGE.format(body=""), encoding="utf-8")
        for label, page in (("cheatsheet", "cheatsheet/"), ("card", f"cards/{card}/")):
            ours, control = write_bare_pages(site, page, browser, base)
            times = time_to_math(browser, {"ours": base + ours, "control": base + control,
                                           "empty": base + "_control/empty.html"})
            if not control_fonts_loaded(browser, base + control):
                raise RuntimeError(f"{control}: MathJax loaded no font; check the local MathJax copy")
            out[f"math_ms_{label}"] = times["ours"]
            out[f"math_ms_{label}_control"] = times["control"]
            out[f"math_ms_{label}_empty"] = times["empty"]
            out[f"page_dcl_ms_{label}"] = time_to_content_loaded(browser, base + page)
            out[f"gzip_kb_{label}"] = first_visit_gzip(browser, base + page) / 1024
        out.update(calculator_metrics(browser, site, base, calculator_card))
        out.update(search_metrics(browser, site, site.parent, SEARCH_SYNTHETIC_CARDS))
        browser.close()
    return out
