"""`make bench`: build the site several ways in one run and report ratios against the targets.

Absolute seconds on a shared 2-core machine are noise; every target is a ratio of two numbers
measured side by side here. Results go to stdout, bench/latest.json and the README table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench_browser import browser_metrics
from bench_builds import (
    anchor,
    build,
    copy_project,
    edit_to_reload,
    formulas_alone,
    median_build,
    snippets_alone,
    synthesize_cards,
)

from eqcards.browser.chromium import chromium_executable

ROOT = Path(__file__).resolve().parent.parent
SYNTHETIC_CARDS = 2000
SERVE_CARD = "kl-divergence"  # the card the issue timed `make serve` with
# A calculator with the most to do on its first render: presets, eight inputs and a chart.
CALCULATOR_CARD = "kv-cache-memory"
# Seconds from saving a card (or its snippet) until `make serve` reloads its page: at the current
# size, and at SYNTHETIC_CARDS cards.
RELOAD_TARGET, RELOAD_TARGET_SYNTHETIC = 2.0, 3.0


def require_browser() -> None:
    """Stop before ten minutes of builds, not after them, when no Chromium is there to time pages."""
    if chromium_executable() is None:
        sys.exit("make bench: no Chromium found (it times pages in headless Chromium). Install "
                 "Debian's: apt-get install chromium (.ci/run does this), then run make bench again.")


def progress(step: int, total: int, what: str) -> None:
    print(f"[{step}/{total}] {what} ...", file=sys.stderr, flush=True)


def run(quick: bool) -> dict:
    cores = os.cpu_count() or 1
    steps = 8 if quick else 10
    results: dict = {"machine": {"cores": cores, "python": platform.python_version()}}
    with tempfile.TemporaryDirectory(prefix="eqcards-bench-") as scratch:
        work = copy_project(Path(scratch) / "project")
        site = Path(scratch) / "site"
        cache = {"EQCARDS_CACHE_DIR": str(work / ".cache" / "snippets")}

        progress(1, steps, "cold build (every cache empty: snippet results and typeset formulas)")
        results["cold_all"], (ran, _, _) = build(work, site, **cache)
        results["cards_ran_cold"] = ran
        progress(2, steps, "warm builds")
        results["warm"] = median_build(work, site, 3, **cache)
        progress(3, steps, "baseline builds (snippet execution off)")
        results["baseline"] = median_build(work, site, 3, EQCARDS_EXECUTE="0", **cache)
        progress(4, steps, "one edited snippet")
        edited = work / "snippets" / "entropy.py"
        edited.write_text(edited.read_text() + "\n# benchmark edit\n")
        results["one_edit"], (one_ran, _, _) = build(work, site, **cache)
        results["one_edit_ran"] = one_ran
        progress(5, steps, "every snippet alone; a build with the formulas cached; every formula alone")
        alone, jobs = snippets_alone(work)
        results["snippets_alone_sum"] = alone
        results["limit"] = results["baseline"] + alone / cores
        # `cold` against `limit` on the same footing: the baseline has its formulas typeset
        # already, so `cold` empties the snippet results only. With the formulas to typeset
        # too (`cold_all`), the floor adds their typesetting, one by one, over the cores.
        shutil.rmtree(work / ".cache" / "snippets")
        results["cold"], (ran, _, _) = build(work, site, **cache)
        results["math_alone_sum"], results["formulas"] = formulas_alone(work)
        results["limit_all"] = results["limit"] + results["math_alone_sum"] / cores
        progress(6, steps, "browser: math, transfer size, search")
        build(work, site, **cache)
        results.update(browser_metrics(site, card="kl-divergence", calculator_card=CALCULATOR_CARD))
        progress(7, steps, f"make serve: a card and its snippet saved, until the page reloads ({SERVE_CARD})")
        results.update(edit_to_reload(work, SERVE_CARD, **cache))
        if not quick:
            # Every card, not a hand-picked few: a small sample measures mostly our runner's
            # one-off start (about a second) and whichever slow snippet it happens to hold.
            sample = sorted(p.stem for p in (work / "docs" / "cards").glob("*.md"))
            progress(8, steps, f"notebook anchor on all {len(sample)} cards (mkdocs-jupyter, execute: true)")
            results.update(anchor(work, Path(scratch) / "anchor", sample))
            results["anchor_cards"] = len(sample)
            progress(9, steps, f"scale: warm and baseline builds and make serve at {SYNTHETIC_CARDS} cards")
            results["cards"] = len(list((work / "docs" / "cards").glob("*.md")))
            big = copy_project(Path(scratch) / "big")
            shutil.copytree(work / ".cache", big / ".cache")
            results["cards_synthetic"] = synthesize_cards(big, SYNTHETIC_CARDS)
            big_cache = {"EQCARDS_CACHE_DIR": str(big / ".cache" / "snippets")}
            build(big, Path(scratch) / "big-site", **big_cache)  # page-level caches (math) warm up
            results["warm_synthetic"] = build(big, Path(scratch) / "big-site", **big_cache)[0]
            results["baseline_synthetic"] = build(big, Path(scratch) / "big-site", EQCARDS_EXECUTE="0",
                                                  **big_cache)[0]
            results.update({f"{key}_synthetic": seconds
                            for key, seconds in edit_to_reload(big, SERVE_CARD, **big_cache).items()})
        results["snippets"] = jobs
        progress(steps, steps, "done")
    return results


def targets(r: dict) -> list[tuple[str, str, str, bool]]:
    """(what, measured, target, holds) rows."""
    rows = [
        ("warm / baseline", f"{r['warm'] / r['baseline']:.2f}", "<= 1.15", r["warm"] <= 1.15 * r["baseline"]),
        ("cold / limit (snippet results empty)", f"{r['cold'] / r['limit']:.2f}", "<= 1.30",
         r["cold"] <= 1.3 * r["limit"]),
        ("cold_all / limit_all (formulas too)", f"{r['cold_all'] / r['limit_all']:.2f}", "<= 1.30",
         r["cold_all"] <= 1.3 * r["limit_all"]),
        ("one_edit re-runs", f"{r['one_edit_ran']} snippet(s)", "exactly 1", r["one_edit_ran"] == 1),
    ]
    for page in ("cheatsheet", "card"):
        # What the formulas cost, above what any visit costs the browser (the empty page): on a
        # card the visit alone is ~10% of the control's time, so the plain ratio of the two times
        # measured the browser, not the formulas. (The plain ratio stays in the table above.)
        ours, control, empty = (r[f"math_ms_{page}{suffix}"] for suffix in ("", "_control", "_empty"))
        ratio = (ours - empty) / (control - empty)
        rows.append((f"math rendered above the empty page, {page} / control", f"{ratio:.3f}", "<= 0.10",
                     ratio <= 0.1))
    if "calc_dcl_ms" in r:
        rows.append((f"{r['calc_card']} first render (DOMContentLoaded end), with calculator / without",
                     f"{r['calc_dcl_ms'] / r['calc_dcl_ms_without']:.2f}", "<= 1.10",
                     r["calc_dcl_ms"] <= 1.1 * r["calc_dcl_ms_without"]))
    rows += [
        ("card first visit (gzip)", f"{r['gzip_kb_card']:.0f} KB", "<= 250 KB", r["gzip_kb_card"] <= 250),
        ("cheatsheet first visit (gzip)", f"{r['gzip_kb_cheatsheet']:.0f} KB", "<= 1024 KB",
         r["gzip_kb_cheatsheet"] <= 1024),
        ("search answer", f"{r['search_ms']:.0f} ms", "<= 50 ms", r["search_ms"] <= 50),
    ]
    if "search_ms_synthetic" in r:
        cards = r["search_cards_synthetic"]
        rows.append((f"search answer, index of {cards} cards", f"{r['search_ms_synthetic']:.0f} ms",
                     "<= 50 ms", r["search_ms_synthetic"] <= 50))
    if "search_kb_first_most" in r:  # measured per query since the index loads in pieces
        rows.append(("first search download (gzip), the most of the bench's queries",
                     f"{r['search_kb_first_most']:.0f} KB", "<= 150 KB", r["search_kb_first_most"] <= 150))
        # Sublinear: 4.8 times the cards (2,000 against 418) must cost well under 4.8 times the bytes.
        growth = r["search_kb_first_synthetic"] / r["search_kb_first"]
        cards = r["search_cards_synthetic"]
        rows.append((f"first search download at {cards} / at current size (median query)", f"{growth:.2f}",
                     "<= 2.5", growth <= 2.5))
    for suffix, target in (("", RELOAD_TARGET), ("_synthetic", RELOAD_TARGET_SYNTHETIC)):
        for what, key in (("card", "edit_to_reload"), ("snippet", "edit_to_reload_snippet")):
            if key + suffix in r:
                size = f"{r['cards_synthetic']} cards" if suffix else "current size"
                rows.append((f"serve: {what} saved to page reload, {size}", f"{r[key + suffix]:.2f} s",
                             f"<= {target:.0f} s", r[key + suffix] <= target))
    if "anchor" in r:
        exec_anchor = r["anchor"] - r["anchor_no_execute"]
        speedup = exec_anchor / r["ours_sample_cold"]
        rows.append(("anchor exec / ours (sample, cold)", f"{speedup:.1f}x", ">= 10x", speedup >= 10))
    if "warm_synthetic" in r:
        per_card = (r["warm_synthetic"] / r["cards_synthetic"]) / (r["warm"] / r["cards"])
        rows.append((f"warm s/card at {r['cards_synthetic']} vs {r['cards']} cards", f"{per_card:.2f}",
                     "~1 (linear)", per_card <= 1.5))
    return rows


def table(r: dict) -> str:
    lines = ["| measure | seconds, or as marked |", "|---|---|"]
    for key in ("baseline", "warm", "cold", "limit", "cold_all", "limit_all", "one_edit", "anchor",
                "anchor_no_execute",
                "ours_sample_cold", "baseline_synthetic", "warm_synthetic",
                "edit_to_reload", "edit_to_reload_settled", "edit_to_reload_snippet",
                "edit_to_reload_snippet_settled", "serve_first_build",
                "edit_to_reload_synthetic", "edit_to_reload_settled_synthetic",
                "edit_to_reload_snippet_synthetic", "edit_to_reload_snippet_settled_synthetic",
                "serve_first_build_synthetic"):
        if key in r:
            digits = 2 if key.startswith("edit_") else 1
            lines.append(f"| {key} | {r[key]:.{digits}f} |")
    for page in ("cheatsheet", "card"):
        if f"math_ms_{page}_empty" in r:
            ours, control, empty = (r[f"math_ms_{page}{suffix}"] for suffix in ("", "_control", "_empty"))
            lines.append(f"| {page}: math rendered, ours / control / empty page (ms) | "
                         f"{ours:.0f} / {control:.0f} / {empty:.0f} |")
            # The browser's own cost of showing any page (the empty one) against the control, and
            # what the formulas cost once that floor is out of both sides (the target's measure).
            lines.append(f"| {page}: empty / control (the floor of the ratio) | {empty / control:.3f} |")
            lines.append(f"| {page}: (ours - empty) / (control - empty) | "
                         f"{(ours - empty) / (control - empty):.3f} |")
    if "calc_dcl_ms" in r:
        lines.append(f"| {r['calc_card']}: DOMContentLoaded end / first contentful paint (ms), "
                     f"with calculator; without | {r['calc_dcl_ms']:.0f} / {r['calc_fcp_ms']:.0f}; "
                     f"{r['calc_dcl_ms_without']:.0f} / {r['calc_fcp_ms_without']:.0f} |")
    if "search_first_ms" in r:
        lines.append(f"| first search of a visit, with index download (ms) | {r['search_first_ms']:.0f} |")
    if "search_ms_synthetic" in r:
        cards = r["search_cards_synthetic"]
        lines.append(f"| search: first download, gzip (KB), median query, current size / {cards} cards | "
                     f"{r['search_kb_first']:.0f} / {r['search_kb_first_synthetic']:.0f} |")
        if "search_kb_first_most" in r:
            most, most_synthetic = r["search_kb_first_most"], r["search_kb_first_most_synthetic"]
            lines.append(f"| search: first download, gzip (KB), most of the queries, current size / {cards} "
                         f"cards | {most:.0f} / {most_synthetic:.0f} |")
        lines.append(f"| search at {cards} cards: first query / later queries (ms) | "
                     f"{r['search_first_ms_synthetic']:.0f} / {r['search_ms_synthetic']:.0f} |")
    lines += ["", "| ratio | measured | target | holds |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {'yes' if ok else '**no**'} |" for a, b, c, ok in targets(r)]
    return "\n".join(lines)


def update_readme(text: str) -> None:
    readme = ROOT / "README.md"
    content = readme.read_text(encoding="utf-8")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start in content and end in content:
        head, rest = content.split(start, 1)
        readme.write_text(head + start + "\n" + text + "\n" + end + rest.split(end, 1)[1], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="skip the notebook anchor and the 2,000-card scale run")
    parser.add_argument("--from-json", action="store_true",
                        help="measure nothing: print the table of bench/latest.json and put it in "
                             "the README again (after a change to the table's layout)")
    args = parser.parse_args()
    latest = ROOT / "bench" / "latest.json"
    if args.from_json:
        results = json.loads(latest.read_text(encoding="utf-8"))
    else:
        require_browser()
        started = time.perf_counter()
        results = run(args.quick)
        results["bench_seconds"] = time.perf_counter() - started
        latest.parent.mkdir(exist_ok=True)
        latest.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    text = table(results)
    print(text)
    if not args.quick:
        update_readme(f"Measured on {results['machine']['cores']} cores, "
                      f"{results['snippets']} snippets:\n\n" + text)


if __name__ == "__main__":
    main()
