"""Benchmark pieces timing builds, snippet runs, `make serve` edits and the notebook anchor, in copies."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from eqcards.core.config import Settings
from eqcards.pages.site import CardSite
from eqcards.snippets.runner import run_snippet, snippet_server

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SUMMARY = re.compile(r"snippets: (\d+) ran, (\d+) cached, (\d+) failed")


def copy_project(dest: Path) -> Path:
    """The committed tree (git ls-files) plus uncommitted edits, without caches or site/."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    for name in files:
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def build(root: Path, site: Path, **env: str) -> tuple[float, tuple[int, int, int] | None]:
    """Seconds for one strict build, and the (ran, cached, failed) snippet summary."""
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **env}
    started = time.perf_counter()
    done = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(site)], cwd=root,
                          env=full_env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"build failed in {root}:\n{done.stderr[-3000:]}")
    found = SUMMARY.search(done.stderr)
    return seconds, (tuple(int(x) for x in found.groups()) if found else None)  # type: ignore[return-value]


def median_build(root: Path, site: Path, repeats: int, **env: str) -> float:
    return statistics.median(build(root, site, **env)[0] for _ in range(repeats))


def snippets_alone(root: Path) -> tuple[float, int]:
    """Sum of every snippet's own run time, each run by itself (nothing else running), forked
    from one snippet server that has finished starting, as a build runs them."""
    site = CardSite.load(Settings.for_project(root))
    jobs = list({j.snippet_path: j for j in site.jobs()}.values())
    with snippet_server(site.settings.snippets_dir, jobs) as server:
        server.wait_ready()
        total = sum(run_snippet(job, site.settings.snippets_dir, server).duration for job in jobs)
    return total, len(jobs)


def formulas_alone(root: Path) -> tuple[float, int]:
    """Seconds to typeset, one after another in one process from an empty cache (MathJax's own
    start-up included once), every formula the last cold build typeset: the card formulas and
    every other page's (calculators, symbols, worked examples ...), read from the build's formula
    cache, which records each one's TeX. How many formulas that was."""
    import tempfile

    from eqcards.typeset.mathsvg import MathRenderer

    formulas = []
    for path in sorted(Settings.for_project(root).math_cache.glob("*/*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))["payload"]
        if "svg" not in payload:
            continue  # a main formula's chosen line breaks (eqcards/typeset/hero.py), not a formula
        if "tex" not in payload:
            raise RuntimeError(f"{path}: a formula cached without its TeX; bench from an empty cache")
        formulas.append((payload["tex"], payload["display"]))
    if not formulas:
        raise RuntimeError(f"{Settings.for_project(root).math_cache}: no formula cached; build first")
    with tempfile.TemporaryDirectory() as empty:
        started = time.perf_counter()
        renderer = MathRenderer(Path(empty))
        for latex, display in formulas:
            renderer.svg(latex, display)
        return time.perf_counter() - started, len(formulas)


def synthesize_cards(root: Path, count: int) -> int:
    """Clone real cards under new ids until there are `count`; clones reuse the originals'
    snippets, so their results come from the cache and only page work is measured."""
    cards = sorted((root / "docs" / "cards").glob("*.md"))
    for i in range(max(0, count - len(cards))):
        source = cards[i % len(cards)]
        text = re.sub(r"^id: .*$", f"id: {source.stem}-synthetic-{i}", source.read_text(), count=1,
                      flags=re.M)
        (root / "docs" / "cards" / f"{source.stem}-synthetic-{i}.md").write_text(text)
    return len(list((root / "docs" / "cards").glob("*.md")))


def _live(base: str, path: str, version: int | None = None, token: int | None = None) -> dict:
    """The serve status of a page (eqcards/live/devserver.py), at once or, given the version and token
    the page holds, once it has changed."""
    query = f"{base}.eqcards/live?path={path}" + (f"&version={version}&token={token}" if version else "")
    with urllib.request.urlopen(query, timeout=120) as answer:
        return json.loads(answer.read())


def _save_and_time(base: str, card: str, path: Path, text: str) -> tuple[float, float]:
    """Append `text` to a file as an editor saves it; seconds until the server tells the card's
    open page to reload, and until no page is left to update (pages listing every card, search)."""
    page = f"/cards/{card}/"
    state = _live(base, page)
    started = time.perf_counter()
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    while not state.get("reload"):
        state = _live(base, page, state["version"], state["token"])
    reload = time.perf_counter() - started
    while state["updating"] or state["pending"]:
        state = _live(base, page, state["version"], state["token"])
    return reload, time.perf_counter() - started


def edit_to_reload(root: Path, card: str, repeats: int = 3, **env: str) -> dict[str, float]:
    """`make serve` in `root`: seconds until the site is first served, then the median over
    `repeats` saves of the card's Markdown (a blank line, as the issue timed it) and of its
    snippet (a comment never saved before, so the snippet runs again, not from the cache) until
    its page is told to reload (`edit_to_reload`, `..._snippet`) and until every other page is up
    to date (`..._settled`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/"
    log = root / "serve-bench.log"
    card_file, snippet = root / "docs" / "cards" / f"{card}.md", root / "snippets" / f"{card}.py"
    originals = {path: path.read_text(encoding="utf-8") for path in (card_file, snippet)}
    started = time.perf_counter()
    with log.open("w") as out:
        server = subprocess.Popen([str(BIN / "python"), "-m", "eqcards.live.serve",
                                   "-a", f"127.0.0.1:{port}"],
                                  cwd=root, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env})
    try:
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"make serve stopped:\n{log.read_text()[-3000:]}")
            try:
                if _live(base, "/")["ready"]:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        first_build = time.perf_counter() - started
        timings: dict[str, list[float]] = {}
        for _ in range(repeats):
            fresh = f"\n# serve edit {time.time_ns()}\n"
            for key, path, text in (("edit_to_reload", card_file, "\n"),
                                    ("edit_to_reload_snippet", snippet, fresh)):
                reload, settled = _save_and_time(base, card, path, text)
                timings.setdefault(key, []).append(reload)
                timings.setdefault(f"{key}_settled", []).append(settled)
        problems = _live(base, "/")["problems"]
        if problems:
            raise RuntimeError(f"make serve shows problems: {problems}")
    finally:
        server.terminate()
        server.wait(timeout=60)
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
    return {"serve_first_build": first_build,
            **{key: statistics.median(values) for key, values in timings.items()}}


def anchor(root: Path, work: Path, sample: list[str]) -> dict[str, float]:
    """The same snippets as notebooks executed by mkdocs-jupyter, against our runner on them."""
    import jupytext  # bench requirements only

    docs = work / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Anchor\n")
    site = CardSite.load(Settings.for_project(root))
    jobs = [j for j in site.jobs() if j.card_id in sample]
    for helper in site.settings.helpers_dir.glob("*.py"):  # the modules snippets import
        shutil.copy(helper, docs / helper.name)
    for job in jobs:
        jupytext.write(jupytext.read(job.snippet_path), docs / f"{job.card_id}.ipynb")
    config = ("site_name: anchor\ntheme: {name: material, font: false}\n"
              "plugins:\n  - mkdocs-jupyter:\n      execute: {execute}\n")
    timings = {}
    for label, execute in (("anchor_no_execute", "false"), ("anchor", "true")):
        (work / "mkdocs.yml").write_text(config.replace("{execute}", execute))
        started = time.perf_counter()
        subprocess.run([str(BIN / "mkdocs"), "build", "--site-dir", str(work / "site")], cwd=work, check=True,
                       capture_output=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        timings[label] = time.perf_counter() - started
    from eqcards.snippets.runner import run_snippets  # cold: no cache at all

    started = time.perf_counter()
    report = run_snippets(jobs, site.settings.snippets_dir, cache=None)
    timings["ours_sample_cold"] = time.perf_counter() - started
    # Cards that share a snippet share its run: one of them ran, the others count as cached.
    assert report.ran + report.cached == len(jobs) and not report.failures, report.summary()
    return timings
