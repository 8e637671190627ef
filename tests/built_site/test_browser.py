"""The built site in headless Chromium: math typeset, output and figures shown, search works, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from browser_fixtures import Visit, open_search
from conftest import ROOT
from playwright.sync_api import Page
from search_cases import (
    ALL_WORDS_FIRST,
    FIRST_CASES,
    NO_RESULTS,
    SEARCH_CASES,
    SHORT_LISTS,
    all_words_first,
)

pytestmark = pytest.mark.browser


def assert_all_math_typeset(page: Page) -> int:
    spans = page.locator(".arithmatex")
    total = spans.count()
    # A card's main formula carries two layouts (wide and phone screens), one shown at a time.
    typeset = page.locator(".arithmatex:has(.eqc-math svg)").count()
    assert total > 0 and typeset == total, f"{typeset} of {total} formulas typeset"
    assert page.locator("[data-mjx-error]").count() == 0, "MathJax reported an error"
    text = page.locator("article").inner_text()
    assert "\\(" not in text and "\\[" not in text and "$$" not in text, "raw TeX left on the page"
    return total


def test_home_page_lists_topics_offline(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url)
    assert page.locator("article a[href*='topics/information-theory']").count() >= 1
    assert "cards)" in page.locator("article").inner_text()
    assert visit.outside == [] and visit.failed == []


def test_card_page_shows_typeset_math_output_and_figure(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    assert assert_all_math_typeset(page) >= 5
    assert page.locator("#equation .eqc-math svg >> visible=true").count() == 1
    assert "Verified:" in page.locator(".admonition.success").inner_text()
    assert page.locator("article pre").filter(has_text="PASS").count() == 1  # the run's output
    figure = page.locator("img.eqc-figure").first
    figure.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    # Screen readers get the formula from its label, spoken words; the SVG itself is hidden.
    label = page.locator("#equation .eqc-math >> visible=true").get_attribute("aria-label")
    assert label and label.startswith("D sub KL open paren P parallel Q close paren equals sum over x")
    assert "D_{\\mathrm{KL}}" in page.locator("#equation .eqc-math >> visible=true").get_attribute("data-tex")
    assert page.locator("#equation .eqc-math >> visible=true").get_attribute("role") == "img"
    assert page.locator("#equation .eqc-math svg >> visible=true").get_attribute("aria-hidden") == "true"
    assert visit.outside == [] and visit.failed == []


def test_cheatsheet_typesets_every_row(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cheatsheet/")
    rows = page.locator(".eqc-sheet-row:has(a[href*='cards/'])").count()  # formula rows
    assert rows >= 20
    assert assert_all_math_typeset(page) >= rows
    assert visit.outside == [] and visit.failed == []


RESULT_LINKS = "li.md-search-result__item > a.md-search-result__link"  # one per page


def test_search_box_finds_a_card_typed_letter_by_letter(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url)
    open_search(page)
    # Type like a person: the theme searches on key events, which fill() does not always send.
    page.locator("input.md-search__input").press_sequentially("Jensen-Shannon divergence", delay=20)
    # Results of the partial query typed so far can be on screen: wait for the whole query's.
    page.wait_for_function(f"() => {{ const a = document.querySelector('{RESULT_LINKS}');"
                           " return a && a.href.includes('h=jensen+shannon+divergence'); }", timeout=10_000)
    hrefs = page.eval_on_selector_all(RESULT_LINKS, "links => links.slice(0, 3).map(a => a.href)")
    assert any("cards/jensen-shannon-divergence/" in h for h in hrefs), hrefs
    assert visit.outside == [] and visit.failed == []


# Empty the box first (the theme then clears the list), then send the whole query as one key
# event: whatever list appears next is this query's. Returns the count the theme reports and,
# for each result, its path and whether it matched every word (the theme marks a result that did
# not with "Missing: <words>"). The theme shows ten results and the next ten as the reader scrolls
# to the end of the list: so does this, until `upTo` results (or all there are) are on screen.
ASK = """async ([query, upTo]) => {
    const input = document.querySelector('input.md-search__input');
    const list = document.querySelector('.md-search-result__list');
    const meta = document.querySelector('.md-search-result__meta');
    const send = (value) => { input.value = value;
        input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'Enter'})); };
    const pause = () => new Promise(r => setTimeout(r, 10));
    send('');
    while (list.children.length) await pause();
    send(query);
    const started = performance.now();
    while (!list.children.length && !/No matching/i.test(meta.textContent)) {
        if (performance.now() - started > 5000) return {count: -1, results: []};
        await pause();
    }
    const count = /No matching/i.test(meta.textContent) ? 0 : parseInt(meta.textContent, 10);
    const scroller = document.querySelector('.md-search__scrollwrap');
    while (list.children.length < Math.min(count, upTo) && performance.now() - started < 5000) {
        list.lastElementChild.scrollIntoView();
        scroller.dispatchEvent(new Event('scroll'));
        await pause();
    }
    const results = [...list.querySelectorAll(':scope > li')].map(li => [
        new URL(li.querySelector('a.md-search-result__link').href).pathname,
        !li.querySelector('.md-search-result__terms')]);
    return {count, results};
}"""


def ask(page: Page, query: str, up_to: int = 10) -> tuple[int, list[tuple[str, bool]]]:
    answer = page.evaluate(ASK, [query, up_to])
    assert answer["count"] >= 0, f"no answer to {query!r} within 5 s"
    return answer["count"], [(path, full) for path, full in answer["results"]]


def test_search_box_ranks_every_query_of_the_table(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/entropy/")
    open_search(page)
    misses = []
    for query, card_id in SEARCH_CASES:
        top3 = [path for path, _ in ask(page, query)[1][:3]]
        if not any(path.endswith(f"/cards/{card_id}/") for path in top3):
            misses.append((query, card_id, top3))
    assert misses == [], misses
    assert visit.outside == [] and visit.failed == []


def test_search_box_keeps_the_rules_of_the_ranking(visit: Visit, base_url: str) -> None:
    """The ranking tables beyond the top three: a rare word first (IDF), cards matching every
    word above cards matching some, short lists for a query naming one card, nothing for nonsense."""
    page = visit.open(base_url + "cards/entropy/")
    open_search(page)
    misses = []
    for query, card_id in FIRST_CASES:
        first = ask(page, query)[1][:1]
        if not first or not first[0][0].endswith(f"/cards/{card_id}/"):
            misses.append(("first", query, card_id, first))
    for query in ALL_WORDS_FIRST:
        shown = ask(page, query)[1]
        if not all_words_first(shown):
            misses.append(("all words first", query, shown[:8]))
    for query, most in SHORT_LISTS:
        count, shown = ask(page, query, up_to=most + 1)
        if not 1 <= count <= most or len(shown) != count:
            misses.append(("short list", query, count, shown))
    for query in NO_RESULTS:
        count, shown = ask(page, query)
        if count or shown:
            misses.append(("no results", query, count, shown))
    assert misses == [], misses
    assert visit.outside == [] and visit.failed == []


def test_cite_box_offers_copyable_bibtex(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    box = page.locator("details.quote")
    box.locator("summary").click()
    code = box.locator("code").first
    assert "@misc{eqcards:kl-divergence," in code.inner_text()
    assert box.locator("code").nth(1).inner_text().startswith("@article{kullback1951information,")
    buttons = box.locator("button[data-md-type=copy]")
    buttons.first.wait_for()
    assert buttons.count() == 5  # BibTeX of the card and of its primary source, plain text, link, LaTeX


def test_a_citation_names_the_release_and_the_day_the_reader_accessed_the_card(visit: Visit,
                                                                              base_url: str) -> None:
    """The build cannot know when the card is read: the page puts the reader's own day into the
    BibTeX urldate and the plain reference, and the copy buttons copy that."""
    releases = yaml.safe_load((ROOT / "docs" / "releases.yml").read_text(encoding="utf-8"))
    visit.page.clock.set_fixed_time("2031-05-04T10:00:00")
    page = visit.open(base_url + "cards/kl-divergence/")
    box = page.locator("details.quote")
    box.locator("summary").click()
    bibtex, plain = (box.locator("code").nth(i).inner_text() for i in (0, 2))  # 1: the primary source
    assert "urldate = {2031-05-04}" in bibtex and "(accessed 2031-05-04)." in plain
    current = releases[-1]
    named = f"release {current['version']} ({current['date']})"
    assert f"version = {{{current['version']}}}" in bibtex and named in plain
    built = page.locator(".eqc-cite").get_attribute("data-accessed")
    assert built == "2031-05-04" and str(current["date"]) not in bibtex.split("urldate")[1]


def test_theme_toggle_switches_to_dark_and_back(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    figure = page.locator("img.eqc-figure").first
    seen = [page.evaluate(scheme)]
    assert seen == ["default"]  # headless Chromium prefers light
    for _ in range(2):
        page.locator("form[data-md-component='palette'] label:visible").first.click()
        seen.append(page.evaluate(scheme))
        # Figures are drawn dark-on-light: inverted in the dark theme only.
        assert ("invert" in figure.evaluate("img => getComputedStyle(img).filter")) == (seen[-1] == "slate")
    assert seen == ["default", "slate", "default"]


def test_copying_a_formula_copies_its_tex(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    copied = page.evaluate("""() => {
        const math = document.querySelector('#equation .eqc-math');
        const range = document.createRange();
        range.selectNode(math.parentElement);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        const event = new ClipboardEvent('copy', {clipboardData: new DataTransfer(), cancelable: true});
        document.dispatchEvent(event);
        return event.clipboardData.getData('text/plain');
    }""")
    assert copied.startswith("$$D_{\\mathrm{KL}}") and copied.endswith("$$")


def test_snippet_downloads_as_a_notebook(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/entropy/")
    with page.expect_download() as download_info:
        page.get_by_text("Download as a Jupyter notebook").click()
    download = download_info.value
    assert download.suggested_filename == "entropy.ipynb"
    notebook = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    code = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert "%%writefile cardcheck.py" in code and "from cardcheck import" in code
