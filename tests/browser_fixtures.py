"""Browser fixtures: the built site served on localhost and headless Chromium, offline."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from playwright.sync_api import Browser, Page, sync_playwright

from eqcards.browser.chromium import CHROMIUM_ARGS, chromium_executable
from eqcards.browser.localserve import serve


@pytest.fixture(scope="session")
def base_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    # If no browser can start, the test fails: a browser test is never skipped silently.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
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
        # A load the next navigation cancelled (the search worker's scripts, fetched as a page
        # opens) is no failure of the site.
        page.on("requestfailed",
                lambda req: req.failure != "net::ERR_ABORTED" and self.failed.append(req.url))
        page.on("response", lambda res: res.status >= 400 and self.failed.append(f"{res.status} {res.url}"))

    def open(self, url: str) -> Page:
        self.page.goto(url, wait_until="load")
        return self.page


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield Visit(context.new_page(), base_url)
    context.close()


def open_search(page: Page) -> None:
    """Open the header search and wait until it is ready: a query typed while the search
    worker is still starting is dropped."""
    page.locator("input.md-search__input").click()
    page.wait_for_function("() => !/Initializing/i.test("
                           "document.querySelector('.md-search-result__meta').textContent)")


# What TeX looks like when a screen reader reads it out: "backslash frac, brace ..., caret".
TEX_MARKS = re.compile(r"[\\{}^]")


def accessible_image_names(tree: str) -> list[str]:
    """Names of the images in Playwright's ARIA snapshot (YAML whose leaves read `img "name"`)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str) and node.startswith('img "'):
            found.append(json.loads(node[len("img "):]))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(key)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.load(tree, Loader=yaml.BaseLoader))  # every scalar a string: code text such as `=` too
    return found


# TeX where a reader sees text: a $ delimiter, a command (\alpha), a braced script (^{, _{) or a
# \( \) \[ \] delimiter. Typeset formulas (SVG images, named in words: accessible_image_names) and
# code are not text; see VISIBLE_TEXT for what else is exempt.
TEX_IN_TEXT = re.compile(r"\$|\\[A-Za-z]+|[\^_]\{|\\[()\[\]]")
# Every text node a reader can see, with every collapsible block (<details>: citations, snippet
# source, mutation lists) opened first. Exempt, since they hold TeX or code on purpose: code
# (<code>, <pre>, <kbd>, <samp>: the snippet source, the citation and "Equation (LaTeX)" boxes,
# mutation diffs), each formula's hidden TeX for search and copying (.eqc-tex, [data-tex]; the
# formula itself is an SVG image), scripts and styles. Anything not rendered (display: none,
# [hidden]) is not seen, so not checked.
VISIBLE_TEXT = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const exempt = 'code, pre, kbd, samp, script, style, noscript, svg, [hidden], '
    + '.eqc-math, .eqc-tex, [data-tex]';
  const seen = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.nodeValue.trim() || !parent || parent.closest(exempt) || !parent.checkVisibility()) continue;
    seen.push(node.nodeValue);
  }
  return seen.join(' ');
}"""


def tex_marks(text: str) -> list[str]:
    """Each place TeX shows in a page's visible text, with a little of the text around it."""
    text = " ".join(text.split())
    return [text[max(m.start() - 40, 0):m.end() + 40] for m in TEX_IN_TEXT.finditer(text)]
