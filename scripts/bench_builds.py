"""Benchmark pieces that time whole builds, snippet runs and the notebook anchor, in scratch copies."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from eqcards.config import Settings
from eqcards.runner import run_snippet, snippet_server
from eqcards.site import CardSite

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
    """Seconds to typeset every card formula one after another in one process, from an empty
    cache (MathJax's own start-up included once), and how many formulas that was."""
    import tempfile

    from eqcards.latex import page_formulas
    from eqcards.mathsvg import MathRenderer

    site = CardSite.load(Settings.for_project(root))
    formulas = list(dict.fromkeys(f for card in site.cards for f in page_formulas(card)))
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


def anchor(root: Path, work: Path, sample: list[str]) -> dict[str, float]:
    """The same snippets as notebooks executed by mkdocs-jupyter, against our runner on them."""
    import jupytext  # bench requirements only

    docs = work / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Anchor\n")
    site = CardSite.load(Settings.for_project(root))
    jobs = [j for j in site.jobs() if j.card_id in sample]
    card_snippets = {j.snippet_path.name for j in site.jobs()}
    for helper in (root / "snippets").glob("*.py"):  # the modules snippets import
        if helper.name not in card_snippets:
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
    from eqcards.runner import run_snippets  # cold: no cache at all

    started = time.perf_counter()
    report = run_snippets(jobs, site.settings.snippets_dir, cache=None)
    timings["ours_sample_cold"] = time.perf_counter() - started
    # Cards that share a snippet share its run: one of them ran, the others count as cached.
    assert report.ran + report.cached == len(jobs) and not report.failures, report.summary()
    return timings
