"""The search part of `make bench`: bytes a first query downloads and keystroke-to-results time,
on the built site and on a copy whose search index holds a given number of synthetic cards."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

from playwright.sync_api import Browser

from eqcards.browser.localserve import serve
from eqcards.pages.search_index import read_documents, write_index
from eqcards.pages.search_loads import first_download

# Word queries and formula fragments (the fragments scan every card's formulas).
SEARCH_QUERIES = ["entropy", "attention", "Adam", "perplexity", "BM25", "diffusion", "LoRA", "softmax",
                  "QK^T/sqrt(d_k)", "\\frac{p-1}{m+p-1}", "\"weight decay\" -adam", "part:rag distance"]

TIME_QUERY = """async (query) => {
    const input = document.querySelector('input.md-search__input');
    const meta = document.querySelector('.md-search-result__meta');
    const type = (value) => { input.value = value;
        input.dispatchEvent(new Event('input', {bubbles: true}));
        input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'x'})); };
    type('');
    await new Promise(r => setTimeout(r, 50));
    const before = meta.textContent;
    return await new Promise((resolve) => {
        const start = performance.now();
        const watch = new MutationObserver(() => {
            if (meta.textContent === before) return;
            watch.disconnect();
            resolve(performance.now() - start);
        });
        watch.observe(meta, {childList: true, characterData: true, subtree: true});
        type(query);
    });
}"""


def first_download_kb(site: Path) -> tuple[float, float]:
    """Kilobytes, gzipped (level 6), that a visit's first query downloads before its answer
    (the worker's loader run in QuickJS over the site's index): the median and the most over
    SEARCH_QUERIES."""
    sizes = [first_download(site / "search", query)[0] / 1024 for query in SEARCH_QUERIES]
    return statistics.median(sizes), max(sizes)


def search_latency(browser: Browser, base: str) -> tuple[float, float]:
    """Milliseconds from the last keystroke of a query to its results on screen: the first query
    of a visit (it downloads the vocabulary and what the query needs), then, once every result
    record is in, the median of the rest (each fetches only the shards no query before it loaded)."""
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    tab.goto(base, wait_until="load")
    tab.locator("input.md-search__input").click()
    tab.wait_for_function("() => !/Initializing/i.test(document.querySelector('.md-search-result__meta')"
                          ".textContent)")
    # After its first answer the worker fetches every result record; later queries wait for none.
    with tab.expect_response(lambda r: "records.json" in r.url, timeout=60_000):
        first = tab.evaluate(TIME_QUERY, SEARCH_QUERIES[0])
    samples = [tab.evaluate(TIME_QUERY, query) for query in SEARCH_QUERIES[1:] * 2]
    tab.close()
    return first, statistics.median(samples)


def synthesize_index(site: Path, out: Path, cards: int) -> int:
    """A copy of `site` whose search index holds `cards` cards: today's card documents repeated
    under new addresses and names (each copy's title numbered), pages as they are."""
    shutil.copytree(site, out)
    search = out / "search"
    index = json.loads((search / "search_index.json").read_text(encoding="utf-8"))
    docs = read_documents(search, index["config"])
    originals = [d for d in docs if d["location"].startswith("cards/")]
    new_docs = list(docs)
    copy = 0
    while sum(d["location"].startswith("cards/") for d in new_docs) < cards:
        doc = originals[copy % len(originals)]
        suffix = copy // len(originals) + 2
        card = doc["location"].split("/")[1]
        title = f"{doc['title']} {suffix}"
        new_docs.append({**doc, "location": f"cards/{card}-{suffix}/", "title": title,
                         "fields": {**doc["fields"], "name": title}})
        copy += 1
    index["config"] = write_index(search, index["config"]["fields"], new_docs)
    (search / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    return sum(d["location"].startswith("cards/") for d in new_docs)


def search_metrics(browser: Browser, site: Path, scratch: Path, synthetic_cards: int) -> dict[str, float]:
    out: dict[str, float] = {}
    out["search_kb_first"], out["search_kb_first_most"] = first_download_kb(site)
    with serve(site) as base:
        out["search_first_ms"], out["search_ms"] = search_latency(browser, base)
    big = scratch / "search-synthetic"
    out["search_cards_synthetic"] = synthesize_index(site, big, synthetic_cards)
    out["search_kb_first_synthetic"], out["search_kb_first_most_synthetic"] = first_download_kb(big)
    with serve(big) as base:
        out["search_first_ms_synthetic"], out["search_ms_synthetic"] = search_latency(browser, base)
    shutil.rmtree(big)
    return out


if __name__ == "__main__":  # the search part alone, on a built site: bench_search.py SITE [CARDS]
    import sys
    import tempfile

    from playwright.sync_api import sync_playwright

    from eqcards.browser.chromium import CHROMIUM_ARGS, chromium_executable

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as scratch:
        chromium = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        print(json.dumps(search_metrics(chromium, Path(sys.argv[1]), Path(scratch),
                                        int(sys.argv[2]) if len(sys.argv) > 2 else 2000), indent=1))
        chromium.close()
