"""Accessibility: axe-core in headless Chromium finds no serious or critical violation on the home
page, a card, the cheatsheet and search results, in the light and the dark palette; every formula
reaches screen readers by its accessible name."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from browser_fixtures import TEX_MARKS, VISIBLE_TEXT, Visit, accessible_image_names, open_search, tex_marks
from conftest import ROOT
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
PAGES = {"home": "", "card": "cards/kl-divergence/", "cheatsheet": "cheatsheet/",
         "example": "examples/evaluate-a-retriever/"}
SCHEMES = {"light": ("light", "default"), "dark": ("dark", "slate")}
# A desktop and a phone: the phone layout has its own header, drawer and stacked cheatsheet.
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def blocking_violations(page: Page, exclude: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Run axe-core on the page (less the excluded parts); its violations of impact serious or critical."""
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: run `make venv` (it installs axe-core with npm ci)")
    page.add_script_tag(path=str(AXE))
    context = {"include": [["html"]], "exclude": [[selector] for selector in exclude]}
    results = page.evaluate("context => axe.run(context, {resultTypes: ['violations']})", context)
    return [v for v in results["violations"] if v["impact"] in BLOCKING]


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{len(v['nodes'])} nodes] {v['helpUrl']}")
        for node in v["nodes"][:8]:
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"    {' > '.join(map(str, node['target']))}: {summary[:300]}")
    return "\n".join(lines)


def open_in(visit: Visit, url: str, scheme: str) -> Page:
    """Open a page in the light or dark palette (the site follows the system's preference)."""
    media, expected = SCHEMES[scheme]
    visit.page.emulate_media(color_scheme=media)
    page = visit.open(url)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
    return page


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_serious_violation(visit: Visit, base_url: str, name: str, scheme: str,
                                       viewport: str) -> None:
    visit.page.set_viewport_size(VIEWPORTS[viewport])
    page = open_in(visit, base_url + PAGES[name], scheme)
    # The search dialog, closed here but present on every page, is audited open, with results,
    # by the search test below: each of its problems is reported once, there.
    violations = blocking_violations(page, exclude=(".md-search",))
    assert not violations, f"{name} page, {scheme} palette, {viewport}:\n{describe(violations)}"


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_search_results_have_no_serious_violation(visit: Visit, base_url: str, scheme: str,
                                                  viewport: str) -> None:
    visit.page.set_viewport_size(VIEWPORTS[viewport])
    page = open_in(visit, base_url, scheme)
    if viewport == "phone":  # the search field is behind the header's search button
        page.locator("label.md-header__button[for='__search']").click()
    open_search(page)
    page.locator("input.md-search__input").press_sequentially("entropy", delay=20)
    results = page.locator(".md-search-result__item")
    results.first.wait_for(state="visible", timeout=10_000)
    assert results.count() > 0, "search for 'entropy' showed no result"
    violations = blocking_violations(page)
    assert not violations, f"search results, {scheme} palette:\n{describe(violations)}"


@pytest.mark.parametrize("name", ["card", "cheatsheet"])
def test_every_formula_has_an_accessible_name(visit: Visit, base_url: str, name: str) -> None:
    page = visit.open(base_url + PAGES[name])
    formulas = page.locator("article .arithmatex")
    total = formulas.count()
    assert total > 0
    labels = page.eval_on_selector_all("article .arithmatex", """spans => spans.map(span => {
        const math = span.querySelector('.eqc-math');
        const svg = math && math.querySelector('svg');
        return {role: math && math.getAttribute('role'), label: math && math.getAttribute('aria-label'),
                tex: math && math.dataset.tex, svgHidden: svg && svg.getAttribute('aria-hidden'),
                hiddenAncestor: !!(math && math.closest('[aria-hidden="true"]'))};
    })""")
    unnamed = [i for i, f in enumerate(labels)
               if f["role"] != "img" or not (f["label"] or "").strip() or f["hiddenAncestor"]]
    assert not unnamed, f"{len(unnamed)} of {total} formulas have no accessible name: {unnamed[:10]}"
    assert all(f["tex"] and f["svgHidden"] == "true" for f in labels)
    spoken_as_tex = [f["label"] for f in labels if TEX_MARKS.search(f["label"])]
    assert not spoken_as_tex, spoken_as_tex[:5]
    # The browser's own accessibility tree, which screen readers read, names each formula.
    names = Counter(accessible_image_names(page.locator("article").aria_snapshot()))
    expected = Counter(" ".join(f["label"].split()) for f in labels)
    missing = expected - names
    assert not missing, f"formulas missing from the accessibility tree: {list(missing)[:10]}"


def test_visible_text_check_finds_tex_and_lets_prose_be() -> None:
    assert tex_marks("sampling it with step size $\\Delta$ here") and tex_marks("a \\(x\\) b")
    assert tex_marks("q(x_{t-1} | x_t)") and tex_marks("e^{-u}") and tex_marks("the \\alpha weight")
    assert tex_marks("a weight_decay of 0.1, x<sub>t</sub>, Aπ, C++, 50% (a) [b] {c}") == []


@pytest.mark.parametrize("half", [0, 1], ids=["first-half", "second-half"])
def test_no_formula_on_any_page_is_read_out_as_tex(browser: Browser, base_url: str, built_site: Path,
                                                   half: int) -> None:
    """Every built page as Chromium's accessibility tree gives it to screen readers: each image
    (formula or figure) is named, and no name is TeX (a backslash, a brace or a caret). In the
    same visit, the text a reader sees (VISIBLE_TEXT) shows no TeX either.

    The names are in the HTML the build writes and no script of the site sets one, so pages are
    read with scripts off: a quarter faster over ~500 pages, and the same tree. (The text is what
    a reader without scripts sees; the only script that changes a page's text, cite.js, writes the
    reader's date and the page's address into the citation's code.)"""
    every = sorted(path.parent.relative_to(built_site).as_posix() + "/"
                   for path in built_site.rglob("index.html")
                   if 'http-equiv="refresh"' not in path.read_text(encoding="utf-8")[:600])
    assert len(every) > 400
    # Card pages are read the same way by test_responsive's visit of every card (one visit per card
    # for both tests); this test reads every other page.
    pages = [p for p in every if not p.startswith("cards/")]
    assert len(every) - len(pages) >= 378
    pages = pages[half::2]  # in two halves, shared by the test workers
    # A tag's page is the theme's template around a list of cards: the template is read whole on
    # every other page, so on the ~360 tag pages only their own content is (a quarter of the time).
    template_read = {p for p in pages if not p.startswith("tags/") or p == "tags/"}
    assert len(template_read) > 20
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    read_as_tex: list[tuple[str, str]] = []
    shown_as_tex: list[tuple[str, str]] = []
    unnamed: list[str] = []
    images = characters = 0
    try:
        for relative in pages:
            page.goto(base_url + relative.removeprefix("./"), wait_until="domcontentloaded")
            names = accessible_image_names(page.locator("body" if relative in template_read else "article")
                                           .aria_snapshot())
            images += len(names)
            unnamed += [relative for name in names if not name.strip()]
            read_as_tex += [(relative, name) for name in names if TEX_MARKS.search(name)]
            text = page.evaluate(VISIBLE_TEXT)
            characters += len(text)
            shown_as_tex += [(relative, found) for found in tex_marks(text)]
    finally:
        context.close()
    assert images > 500
    assert characters > 100_000  # the text really was read, every page's
    assert not unnamed, unnamed[:10]
    assert not read_as_tex, f"{len(read_as_tex)} images named by TeX: {read_as_tex[:10]}"
    assert not shown_as_tex, f"{len(shown_as_tex)} places show TeX as text: {shown_as_tex[:15]}"
