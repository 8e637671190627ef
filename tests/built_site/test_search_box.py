"""The search box in Chromium: formula previews, formula fragments, query syntax, shared
addresses and the size of the first download (issue 27)."""

from __future__ import annotations

import gzip
import re
from urllib.parse import quote

import pytest
from browser_fixtures import TEX_MARKS, Visit, open_search
from formula_search_cases import FORMULA_CASES, FORMULA_NOT_IN_TOP
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# The most a first query may download, gzipped, before its results show: issue 27 asks for ~150 KB
# at today's size, growing sublinearly toward 2,000 cards (`make bench` measures that growth).
FIRST_DOWNLOAD_LIMIT = 150 * 1024

# Send a whole query as one key event after emptying the box, wait for its results (or "No
# matching"), and return each result's path with what a reader sees of it: its text and its
# formula image (address, accessible name, whether it loaded).
SEARCH = """async (query) => {
    const input = document.querySelector('input.md-search__input');
    const list = document.querySelector('.md-search-result__list');
    const meta = document.querySelector('.md-search-result__meta');
    const send = (value) => { input.value = value;
        input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'Enter'})); };
    const pause = () => new Promise(r => setTimeout(r, 10));
    send('');
    // The empty query clears the list and the count ("No matching documents" of a query before).
    while (list.children.length || /No matching/i.test(meta.textContent)) await pause();
    send(query);
    const started = performance.now();
    while (!list.children.length && !/No matching/i.test(meta.textContent)) {
        if (performance.now() - started > 5000) return null;
        await pause();
    }
    return [...list.querySelectorAll(':scope > li')].map(li => {
        const img = li.querySelector('img.eqc-search-formula');
        return {path: new URL(li.querySelector('a.md-search-result__link').href).pathname,
                text: li.innerText, image: img && {src: img.src, alt: img.alt}};
    });
}"""


def search(page: Page, query: str) -> list[dict]:
    results = page.evaluate(SEARCH, query)
    assert results is not None, f"no answer to {query!r} within 5 s"
    return results


def card_paths(results: list[dict]) -> list[str]:
    return [r["path"].rstrip("/").split("/cards/")[-1] for r in results if "/cards/" in r["path"]]


def test_results_show_each_cards_formula_as_an_image_and_no_tex(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url)
    open_search(page)
    results = search(page, "attention")
    cards = [r for r in results if "/cards/" in r["path"]]
    assert len(cards) >= 5, results
    for result in cards:
        card = result["path"].rstrip("/").split("/")[-1]
        assert result["image"] and result["image"]["src"].endswith(f"/search/formulas/{card}.svg"), result
        # Named by its spoken words, as the formulas on the pages are; never by its TeX.
        assert result["image"]["alt"] and not TEX_MARKS.search(result["image"]["alt"]), result
        assert not TEX_MARKS.search(result["text"]) and "$" not in result["text"], result
    first = page.locator("img.eqc-search-formula").first
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=first.element_handle())
    # The preview of the first result is drawn at the size of the formula, not as a broken image.
    box = first.bounding_box()
    assert box and box["width"] > 40 and box["height"] > 8, box
    # Keyboard: the arrow keys move through the results, as the theme's results always did.
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.classList.contains('md-search-result__link')")
    assert visit.outside == [] and visit.failed == []


def test_formula_fragments_put_their_card_first(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "cards/entropy/")
    open_search(page)
    misses = []
    for query, card_id in FORMULA_CASES:
        first = card_paths(search(page, query))[:1]
        if first != [card_id]:
            misses.append((query, card_id, first))
    for query, depth, unwanted in FORMULA_NOT_IN_TOP:
        top = card_paths(search(page, query))[:depth]
        if set(top) & set(unwanted):
            misses.append((query, top))
    assert misses == [], misses
    assert visit.outside == [] and visit.failed == []


def test_phrases_exclusions_alternatives_and_filters(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url)
    open_search(page)
    plain = card_paths(search(page, "adam"))
    assert "adam" in plain[:2] and "adamw" in plain, plain
    excluded = card_paths(search(page, "adam -adamw"))
    assert excluded and "adamw" not in excluded, excluded
    either = card_paths(search(page, "lion OR adafactor"))
    assert {"lion", "adafactor"} <= set(either[:2]), either
    phrase = card_paths(search(page, '"weight decay"'))
    words = card_paths(search(page, "weight decay"))
    # Fewer: the words must be together (each list is cut where scores fall far below the best, so
    # a card can make the shorter list and miss the longer one's cut).
    assert phrase and len(phrase) < len(words) and phrase[0] == "adamw", (phrase, words)
    rag = search(page, "part:rag distance")
    assert rag and all("/cards/" in r["path"] for r in rag), rag
    assert "angular-distance" in card_paths(rag)
    assert "kl-divergence" not in card_paths(search(page, "part:rag divergence"))
    decoding = card_paths(search(page, "topic:decoding temperature"))
    assert decoding[0] == "temperature-sampling" and "boltzmann-exploration" not in decoding, decoding
    assert visit.outside == [] and visit.failed == []


def test_a_shared_address_opens_the_search_with_its_results(visit: Visit, base_url: str) -> None:
    page = visit.open(base_url + "search/?q=" + quote("QK^T/sqrt(d_k)"))
    page.wait_for_selector("li.md-search-result__item", timeout=10_000)
    assert page.locator("input.md-search__input").input_value() == "QK^T/sqrt(d_k)"
    first = page.locator("li.md-search-result__item a.md-search-result__link").first.get_attribute("href")
    assert "cards/scaled-dot-product-attention/" in first, first
    assert visit.outside == [] and visit.failed == []


def test_the_first_query_downloads_at_most_150_kb_gzipped(visit: Visit, base_url: str) -> None:
    """What the search fetches before its first results show: the settings, the vocabulary, the
    shards of the words matched and the records of the results shown. The formula images follow
    as results appear."""
    page = visit.open(base_url)
    bodies: dict[str, bytes] = {}
    page.on("response",
            lambda r: bodies.setdefault(r.url, r.body()) if "/search/" in r.url and r.ok else None)
    open_search(page)
    results = search(page, "softmax")
    assert card_paths(results)[0] == "softmax"
    data = {url: body for url, body in bodies.items() if url.endswith(".json")}
    assert any(url.endswith("/search/index/vocabulary.json") for url in data), sorted(data)
    # A word query reads no formulas, fields or facets: those are for math, phrases and filters.
    assert not [url for url in data if re.search(r"/(formulas|facets|fields-\d+)\.json$", url)], sorted(data)
    size = sum(len(gzip.compress(body, 6)) for body in data.values())
    assert size <= FIRST_DOWNLOAD_LIMIT, f"first search fetches {size / 1024:.0f} KB gzipped: {sorted(data)}"
    assert visit.outside == [] and visit.failed == []
