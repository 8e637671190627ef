"""Full `mkdocs build --strict` runs: the real site, and throw-away projects for the failure paths."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import GOOD_SNIPPET, MKDOCS, ROOT, Project

from eqcards.cards.load import load_cards, load_topics
from eqcards.cards.reading_order import in_reading_order
from eqcards.cards.seeds import read_index

pytestmark = pytest.mark.build

CARDS = load_cards(ROOT / "docs" / "cards", load_topics(ROOT / "docs" / "topics.yml"),
                   read_index(ROOT / "seeds" / "entries.txt"), ROOT / "snippets")


def test_real_site_has_every_card_verified(built_site: Path) -> None:
    data = json.loads((built_site / "cards.json").read_text())
    assert sorted(c["id"] for c in data["cards"]) == sorted(c.id for c in CARDS)
    for record in data["cards"]:
        assert record["verification"]["status"] == "verified", record["id"]
        assert record["verification"]["checks"] >= 2, record["id"]
        # From the site's root, or absolute where the build has a SITE_URL.
        assert record["url"] == f"cards/{record['id']}/" or record["url"].endswith(f"/cards/{record['id']}/")
        assert record["sources"] and record["equation"] and record["snippet"].startswith("snippets/")


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.id)
def test_card_page_shows_equation_output_and_sources(built_site: Path, card) -> None:
    html = (built_site / "cards" / card.id / "index.html").read_text()
    assert 'id="equation"' in html and 'class="arithmatex"' in html
    assert "Verified:" in html and "PASS" in html
    assert "FAIL" not in html
    assert "Snippet source: snippets/" in html
    for source in card.sources:
        assert source.link.replace("&", "&amp;") in html
    figures = sorted(p.name for p in (built_site / "cards" / card.id).glob("figure-*.svg"))
    for name in figures:
        assert f'src="{name}"' in html
    # A snippet that draws with cardplot must show its figure; without this, a build that lost
    # every figure would pass the loop above.
    if re.search(r"^from cardplot import", (ROOT / "snippets" / card.snippet).read_text(), re.M):
        assert figures, f"{card.id}: the snippet draws a figure, the page shows none"
    # Its In code section: a heading per library, each mapping checked (in this build, or by
    # `make libcheck` for the code as it is), none shown as unchecked.
    if card.in_code:
        assert 'id="in-code"' in html
        assert all(f'id="{entry.library}"' in html for entry in card.in_code)
        assert html.count('data-checked="yes"') == len(card.in_code) and 'data-checked="no"' not in html


def test_cheatsheet_lists_every_card_in_topic_order(built_site: Path) -> None:
    html = (built_site / "cheatsheet" / "index.html").read_text()
    for card in CARDS:
        assert f'href="../cards/{card.id}/"' in html, card.id
    assert html.count('class="eqc-sheet-row"') >= len(CARDS)


def test_no_external_resources_in_pages(built_site: Path) -> None:
    for page in [built_site / "index.html", built_site / "cheatsheet" / "index.html",
                 *(built_site / "cards").glob("*/index.html")]:
        html = page.read_text()
        assert "fonts.googleapis" not in html and "cdn.jsdelivr" not in html, page
        assert not re.search(r'<script[^>]+src="https?://', html), page
        assert not re.search(r'<link[^>]+rel="(?:stylesheet|preload|preconnect|icon)"[^>]+href="https?://',
                             html), page
    assert "MathJax" not in (built_site / "index.html").read_text()  # typeset at build time


def test_second_build_runs_no_snippet_and_an_edit_reruns_one(project: Project) -> None:
    project.add_card("toy-entropy")
    project.add_card("toy-other", seeds=["handbook/1/Perplexity"])
    first = project.build()
    assert first.returncode == 0, first.stderr
    assert "snippets: 2 ran, 0 cached, 0 failed" in first.stderr
    second = project.build()
    assert "snippets: 0 ran, 2 cached, 0 failed" in second.stderr
    snippet = project.root / "snippets" / "toy-other.py"
    snippet.write_text(snippet.read_text() + "\n# edited\n")
    third = project.build()
    assert "snippets: 1 ran, 1 cached, 0 failed" in third.stderr


def built_once(project: Project) -> dict[str, bytes | None]:
    """Build the project successfully, so its cache is not empty, and return the cache's content."""
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert list(project.cache.rglob("*.json"))
    return project.snapshot()


def test_failing_snippet_fails_the_build_with_card_and_line(project: Project) -> None:
    project.add_card("toy-entropy")
    before = built_once(project)
    project.add_card("toy-entropy", snippet=GOOD_SNIPPET.replace("1.5)", "1.6)"))
    result = project.build()
    assert result.returncode != 0
    assert "docs/cards/toy-entropy.md: snippet snippets/toy-entropy.py:5 failed" in result.stderr
    assert "snippets: 1 ran, 0 cached, 1 failed" in result.stderr
    assert project.snapshot() == before  # failures are not cached


# Catches its own failed check (line 5), then passes another: the card is not verified.
SWALLOWED = """import numpy as np
from cardcheck import check_close

try:
    check_close('wrong formula', np.log(2.0), 0.7)
except Exception:
    pass
check_close('right formula', np.log(2.0), 0.6931471805599453)
"""


def test_a_caught_failed_check_fails_the_build_with_card_and_line(project: Project) -> None:
    project.add_card("toy-entropy", snippet=SWALLOWED)
    result = project.build()
    assert result.returncode != 0
    assert ("docs/cards/toy-entropy.md: snippet snippets/toy-entropy.py:5 failed: check 'wrong formula' "
            "failed") in result.stderr
    assert "snippets: 1 ran, 0 cached, 1 failed" in result.stderr
    assert not list(project.cache.rglob("[0-9a-f]*.json"))  # not stored as a success
    assert not (project.root / "site" / "cards" / "toy-entropy" / "index.html").exists()


def test_one_invalid_card_is_one_error_however_many_cards_relate_to_it(project: Project) -> None:
    broken = project.add_card("toy-entropy", colour="red")
    for name, seed in (("toy-a", "handbook/1/Perplexity"), ("toy-b", "handbook/1/Log-softmax")):
        project.add_card(name, related=["toy-entropy"], seeds=[seed])
    result = project.build()
    assert result.returncode != 0
    line = next(i for i, text in enumerate(broken.read_text().splitlines(), start=1) if "colour:" in text)
    errors = [text for text in result.stderr.splitlines() if "docs/cards/" in text]
    assert len(errors) == 1, result.stderr
    assert f"docs/cards/toy-entropy.md:{line}: unknown field 'colour'" in errors[0]
    assert "(so 2 cards relating to 'toy-entropy' cannot link to it: toy-a.md, toy-b.md)" in errors[0]
    assert "does not exist" not in result.stderr


def test_timed_out_snippet_fails_the_build(project: Project) -> None:
    project.add_card("toy-entropy", timeout=2)
    before = built_once(project)
    project.add_card("toy-entropy", snippet="import time\nwhile True:\n    time.sleep(0.1)\n", timeout=2)
    result = project.build()
    assert result.returncode != 0
    assert "toy-entropy.py:3 failed: timed out after 2 s" in result.stderr
    assert project.snapshot() == before


def test_invalid_card_fails_the_build_naming_file_and_line(project: Project) -> None:
    project.add_card("toy-entropy")
    before = built_once(project)
    path = project.add_card("toy-entropy", related=["missing-card"])
    result = project.build()
    assert result.returncode != 0
    line = next(i for i, text in enumerate(path.read_text().splitlines(), start=1) if "missing-card" in text)
    assert f"docs/cards/toy-entropy.md:{line}: related card 'missing-card' does not exist" in result.stderr
    assert project.snapshot() == before


def test_non_deterministic_snippet_fails_the_build_when_checked(project: Project) -> None:
    check = {"EQCARDS_CHECK_DETERMINISM": "1"}
    project.add_card("toy-entropy")
    first = project.build(env=check)  # a deterministic snippet passes the check
    assert first.returncode == 0, first.stderr
    assert "snippets: 1 ran, 0 cached, 0 failed" in first.stderr
    before = project.snapshot()
    project.add_card("toy-clock", snippet=GOOD_SNIPPET + "import time\nprint('built at', time.time_ns())\n",
                     seeds=["handbook/1/Perplexity"])
    result = project.build(env=check)
    assert result.returncode != 0
    assert ("docs/cards/toy-clock.md: snippet snippets/toy-clock.py failed: non-deterministic: its result "
            "changes between two runs: output line 2 was 'built at ") in result.stderr
    assert "seed every random generator" in result.stderr and "do not print dates, times" in result.stderr
    assert "snippets: 1 ran, 1 cached, 1 failed" in result.stderr
    assert project.snapshot() == before  # the changing result was not cached


def test_cards_link_their_topic_neighbours(built_site: Path) -> None:
    """Previous and next follow the topic's declared reading order (docs/topics.yml)."""
    for topic in load_topics(ROOT / "docs" / "topics.yml"):
        members = in_reading_order(topic, CARDS)
        for i, card in enumerate(members):
            html = (built_site / "cards" / card.id / "index.html").read_text()
            trail = html.split('class="eqc-topic-trail"')[1].split("</nav>")[0]
            links = re.findall(r'href="\.\./([^/"]+)/"', trail)
            expected = [m.id for m in members[max(i - 1, 0):i] + members[i + 1:i + 2]]
            assert links == expected, card.id
            assert f'href="../../topics/{card.topic}/"' in trail


def test_two_clean_builds_are_byte_identical(project: Project) -> None:
    project.add_card("toy-entropy")
    project.add_card("toy-other", seeds=["handbook/1/Perplexity"])
    sites = []
    for run in ("first", "second"):
        cache = project.root / f".cache-{run}" / "snippets"
        result = project.build("--site-dir", f"site-{run}", env={"EQCARDS_CACHE_DIR": str(cache)})
        assert result.returncode == 0, result.stderr
        sites.append(project.root / f"site-{run}")
    compared = ["cards.json", "cheatsheet/index.html", "cards/toy-entropy/index.html",
                "cards/toy-entropy/figure-1.svg", "cards/toy-other/index.html",
                "topics/information-theory/index.html"]
    for name in compared:
        assert (sites[0] / name).read_bytes() == (sites[1] / name).read_bytes(), name


def test_a_build_killed_mid_run_leaves_a_usable_cache(project: Project) -> None:
    slow = GOOD_SNIPPET + "import time\ntime.sleep(1.5)\n"
    for i in range(4):
        project.add_card(f"toy-{i}", snippet=slow.replace("1.5)", f"1.5)  # {i}"))
    child = subprocess.Popen([str(MKDOCS), "build", "--strict"], cwd=project.root, start_new_session=True,
                             env={**os.environ, "EQCARDS_CACHE_DIR": str(project.cache),
                                  "NO_MKDOCS_2_WARNING": "1"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(project.cache.rglob("[0-9a-f]*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)  # kill as soon as the first result has been written, mid-run
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    stored = list(project.cache.rglob("[0-9a-f]*.json"))  # not half-written .tmp- files
    assert 1 <= len(stored) < 4
    result = project.build()
    assert result.returncode == 0, result.stderr
    ran, cached = map(int, re.search(r"snippets: (\d+) ran, (\d+) cached", result.stderr).groups())
    assert ran + cached == 4 and cached >= len(stored)
    page = project.root / "site" / "cards" / "toy-3" / "index.html"
    assert "Verified: 1 check passed" in page.read_text()


def test_a_build_killed_while_typesetting_leaves_a_usable_cache(project: Project, tmp_path: Path) -> None:
    formulas = " ".join(f"$a_{{{i}}} + b^{{{i}}}$" for i in range(400))
    project.add_card("toy-entropy", body=f"Many formulas: {formulas}\n")
    math = project.cache.parent / "math"
    child = subprocess.Popen([str(MKDOCS), "build", "--strict"], cwd=project.root, start_new_session=True,
                             env={**os.environ, "EQCARDS_CACHE_DIR": str(project.cache),
                                  "NO_MKDOCS_2_WARNING": "1"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(math.rglob("[0-9a-f]*.json"))) < 20 and time.monotonic() < deadline:
        time.sleep(0.02)  # kill once some formulas are stored and most are not
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    stored = len(list(math.rglob("[0-9a-f]*.json")))
    assert 20 <= stored < 400, stored
    assert project.build().returncode == 0
    # The page built from the interrupted cache is the page a clean cache gives.
    resumed = (project.root / "site" / "cards" / "toy-entropy" / "index.html").read_bytes()
    clean = project.build("--site-dir", str(tmp_path / "clean"),
                          env={"EQCARDS_CACHE_DIR": str(tmp_path / "fresh" / "snippets")})
    assert clean.returncode == 0, clean.stderr
    assert resumed == (tmp_path / "clean" / "cards" / "toy-entropy" / "index.html").read_bytes()
