"""The built site in headless Chromium: math typeset, output and figures shown, search works, offline."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

pytestmark = pytest.mark.browser

DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Debian's Chromium when installed (.ci/run installs it); otherwise Playwright's own build.
    # If neither can start, the test fails: a browser test is never skipped silently.
    executable = DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Visit:
    """A page plus everything it tried to fetch outside the site and every failed request."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.outside: list[str] = []
        self.failed: list[str] = []
        host = urlparse(base_url).netloc

        def route(r):  # the site must work with no network: refuse and record anything external
            if urlparse(r.request.url).netloc == host or r.request.url.startswith("data:"):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.on("requestfailed", lambda req: self.failed.append(req.url))
        page.on("response", lambda res: res.status >= 400 and self.failed.append(f"{res.status} {res.url}"))

    def open(self, url: str) -> Page:
        self.page.goto(url)
        self.page.evaluate("() => MathJax.startup.promise")
        return self.page


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield Visit(context.new_page(), base_url)
    context.close()


def assert_all_math_typeset(page: Page) -> int:
    spans = page.locator(".arithmatex")
    total = spans.count()
    typeset = page.locator(".arithmatex mjx-container").count()
    assert total > 0 and typeset == total, f"{typeset} of {total} formulas typeset"
    assert page.locator("mjx-merror, [data-mjx-error]").count() == 0, "MathJax reported an error"
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
    assert page.locator("#equation mjx-container").count() == 1
    assert "Verified:" in page.locator(".admonition.success").inner_text()
    assert "PASS" in page.locator("article pre").first.inner_text()
    figure = page.locator("img.eqc-figure").first
    figure.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    # MathJax's assistive MathML gives screen readers the formula.
    assert page.locator("#equation mjx-assistive-mml").count() == 1
    assert visit.outside == [] and visit.failed == []


def test_cheatsheet_typesets_every_row(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cheatsheet/")
    rows = page.locator("article table tbody tr").count()
    assert rows >= 20
    assert assert_all_math_typeset(page) >= rows
    assert visit.outside == [] and visit.failed == []


def test_search_box_finds_a_card_by_title(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url)
    page.locator("input.md-search__input").click()
    # A query typed while the index is still loading is dropped, so wait until search is ready.
    page.wait_for_function("() => !/Initializing/i.test("
                           "document.querySelector('.md-search-result__meta').textContent)")
    # Type like a person: the theme searches on key events, which fill() does not always send.
    page.locator("input.md-search__input").press_sequentially("Jensen-Shannon divergence", delay=20)
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    hrefs = [results.nth(i).get_attribute("href") for i in range(min(3, results.count()))]
    assert any("cards/jensen-shannon-divergence/" in (h or "") for h in hrefs), hrefs


def test_cite_box_offers_copyable_bibtex(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    box = page.locator("details.quote")
    box.locator("summary").click()
    code = box.locator("code").first
    assert "@misc{eqcards:kl-divergence," in code.inner_text()
    buttons = box.locator("button[data-md-type=copy]")
    buttons.first.wait_for()
    assert buttons.count() == 4  # BibTeX, plain text, link, LaTeX


def test_theme_toggle_switches_to_dark_and_back(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/kl-divergence/")
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    before = page.evaluate(scheme)
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    after = page.evaluate(scheme)
    assert {before, after} == {"default", "slate"}
    figure = page.locator("img.eqc-figure").first
    inverted = figure.evaluate("img => getComputedStyle(img).filter")
    assert ("invert" in inverted) == (after == "slate")
