"""The contributor scripts do what README.md and CONTRIBUTING.md say, each run in a scratch copy of
the project (they find the project from their own location, so the copy is what they change)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import GOOD_SNIPPET, ROOT, Project, card_markdown, make_project, snapshot

from eqcards.cards.seeds import SEEDS_ENV


@pytest.fixture
def workspace(tmp_path: Path) -> Project:
    project = make_project(tmp_path / "project")
    shutil.copytree(ROOT / "scripts", project.root / "scripts")
    return project


def run(project: Project, script: str, *args: str, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "EQCARDS_CACHE_DIR": str(project.cache), **(env or {})}
    return subprocess.run([sys.executable, str(project.root / "scripts" / script), *args], cwd=project.root,
                          env=full_env, capture_output=True, text=True, timeout=300)


def front_matter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def sources(project: Project) -> dict[str, bytes | None]:
    """Everything a contributor edits: the cards and the snippets."""
    return {**snapshot(project.root / "docs"), **snapshot(project.root / "snippets")}


# --- new_card.py: the scaffold ------------------------------------------------------------------

def test_new_card_scaffolds_a_card_and_a_snippet_that_fails_until_written(workspace: Project) -> None:
    made = run(workspace, "new_card.py", "my-formula", "--topic", "information-theory",
               "--title", "My formula")
    assert made.returncode == 0, made.stderr
    card = workspace.root / "docs" / "cards" / "my-formula.md"
    snippet = workspace.root / "snippets" / "my-formula.py"
    assert "docs/cards/my-formula.md" in made.stdout and "snippets/my-formula.py" in made.stdout
    meta = front_matter(card)
    assert (meta["id"], meta["title"], meta["topic"], meta["snippet"]) == (
        "my-formula", "My formula", "information-theory", "my-formula.py")
    assert meta["cheatsheet"]["label"] == "My formula"
    assert "from cardcheck import" in snippet.read_text(encoding="utf-8")
    # "the snippet's placeholder check fails until you write a real one": the card itself is
    # valid, and checking it runs the snippet, which fails at its placeholder check.
    checked = run(workspace, "check_card.py", "my-formula")
    assert checked.returncode == 1
    failure = r"docs/cards/my-formula\.md: snippet snippets/my-formula\.py:\d+ failed"
    assert re.search(failure, checked.stderr), checked.stdout + checked.stderr
    assert "FAIL" in checked.stdout


def test_new_card_refuses_a_bad_id_and_never_overwrites(workspace: Project) -> None:
    before = sources(workspace)
    bad = run(workspace, "new_card.py", "My_Formula", "--topic", "information-theory", "--title", "X")
    assert bad.returncode != 0 and "'My_Formula' is not a kebab-case id" in bad.stderr
    assert sources(workspace) == before
    workspace.add_card("toy-entropy")
    before = sources(workspace)
    again = run(workspace, "new_card.py", "toy-entropy", "--topic", "information-theory", "--title", "X")
    assert again.returncode != 0 and "docs/cards/toy-entropy.md already exists" in again.stderr
    assert sources(workspace) == before


# --- check_card.py: one card, without building ---------------------------------------------------

def test_check_card_validates_and_runs_one_card(workspace: Project) -> None:
    workspace.add_card("toy-entropy")
    before = sources(workspace)
    ok = run(workspace, "check_card.py", "toy-entropy")
    assert ok.returncode == 0, ok.stderr
    assert "PASS  entropy of (1/2, 1/4, 1/4) in bits" in ok.stdout
    assert re.search(r"^toy-entropy: ok, 1 checks, 1 figures, [\d.]+ s$", ok.stdout, re.M), ok.stdout
    assert sources(workspace) == before  # it writes nothing into the project's sources


def test_check_card_fails_a_wrong_formula_at_its_line(workspace: Project) -> None:
    workspace.add_card("toy-entropy", snippet=GOOD_SNIPPET.replace("1.5)", "1.6)"))
    failed = run(workspace, "check_card.py", "toy-entropy")
    assert failed.returncode == 1
    assert "docs/cards/toy-entropy.md: snippet snippets/toy-entropy.py:5 failed" in failed.stderr


def test_check_card_reports_the_named_cards_errors_and_ignores_other_broken_cards(workspace: Project) -> None:
    workspace.add_card("toy-entropy")
    broken = workspace.add_card("toy-broken", seeds=["handbook/1/Perplexity"], related=["missing-card"])
    # Someone else's broken card does not stop you from checking yours.
    mine = run(workspace, "check_card.py", "toy-entropy")
    assert mine.returncode == 0, mine.stderr
    assert "note: other cards have errors (toy-broken.md); checking yours alone" in mine.stdout
    assert "toy-entropy: ok, 1 checks" in mine.stdout
    # Your own broken card is reported with its file and line, and nothing runs.
    lines = broken.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if "missing-card" in text)
    theirs = run(workspace, "check_card.py", "toy-broken")
    assert theirs.returncode != 0
    assert f"docs/cards/toy-broken.md:{line}: related card 'missing-card' does not exist" in theirs.stderr
    assert "PASS" not in theirs.stdout


# --- build_cheatsheet.py: the cheatsheet outside the site ---------------------------------------

def test_build_cheatsheet_writes_every_card_linking_to_its_source(workspace: Project) -> None:
    workspace.add_card("toy-entropy")
    workspace.add_card("toy-other", title="Toy other", seeds=["handbook/1/Perplexity"],
                       cheatsheet={"label": "A first label", "latex": "a+b"})
    made = run(workspace, "build_cheatsheet.py")
    out = workspace.root / "build" / "cheatsheet.md"  # the documented default
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"wrote the cheatsheet of 2 cards to {out}"
    sheet = out.read_text(encoding="utf-8")
    links = re.findall(r"\[([^\]]+)\]\(([^)]+\.md)\)", sheet)
    assert [label for label, _ in links] == ["A first label", "Entropy"]  # by label, not by id
    for _, target in links:  # standalone, each row links to its card's source file
        assert (out.parent / target).resolve().is_file(), target
    assert "$a+b$" in sheet and "$H(P) = -\\sum_x P(x) \\log P(x)$" in sheet
    elsewhere = workspace.root / "elsewhere" / "sheet.md"
    assert run(workspace, "build_cheatsheet.py", "--out", str(elsewhere)).returncode == 0
    assert elsewhere.read_text(encoding="utf-8") == sheet


# --- index_seeds.py: the seed entry keys that cards cite ------------------------------------------

HANDBOOK = "# Handbook\n\n## 1. Information theory\n\n#### Entropy\n\ntext\n\n#### Perplexity\n\n" \
           "## 2. Attention\n\n#### Scaled dot-product attention\n"
CHEATSHEET = "# Cheatsheet\n\n## Information theory\n\n| Quantity | Formula |\n|---|---|\n" \
             "| **Entropy** | $H$ |\n| KL, $a\\|b$ | $D$ |\n"
KEYS = ["handbook/1/Entropy", "handbook/1/Perplexity", "handbook/2/Scaled dot-product attention",
        "cheatsheet/Information theory/Entropy", "cheatsheet/Information theory/KL, $a\\|b$"]


def test_index_seeds_writes_every_entry_key_that_a_card_may_cite(workspace: Project, tmp_path: Path) -> None:
    seeds = tmp_path / "seed-documents"
    seeds.mkdir()
    (seeds / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (seeds / "cheatsheet.md").write_text(CHEATSHEET, encoding="utf-8")
    index = workspace.root / "seeds" / "entries.txt"
    # By default: the documents at $EQCARDS_SEEDS, the index at seeds/entries.txt.
    made = run(workspace, "index_seeds.py", env={SEEDS_ENV: str(seeds)})
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"wrote {len(KEYS)} seed entries to {index}"
    assert index.read_text(encoding="utf-8") == "\n".join(KEYS) + "\n"
    # --seeds and --out name both places explicitly.
    out = tmp_path / "entries.txt"
    assert run(workspace, "index_seeds.py", "--seeds", str(seeds), "--out", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8") == index.read_text(encoding="utf-8")
    # The build accepts exactly what the index lists: a card citing a key from it is valid.
    card = workspace.add_card("toy-entropy", seeds=["handbook/2/Scaled dot-product attention"])
    assert run(workspace, "check_card.py", "toy-entropy").returncode == 0
    card.write_text(card_markdown(seeds=["handbook/3/Not there"]), encoding="utf-8")
    refused = run(workspace, "check_card.py", "toy-entropy")
    assert refused.returncode != 0 and "handbook/3/Not there" in refused.stderr


# --- release.py: a numbered release, and the history rule ------------------------------------------

CHANGED_EQUATION = r"H(P) = -\sum_x P(x) \ln P(x)"


def release(project: Project, *args: str) -> subprocess.CompletedProcess:
    return run(project, "release.py", *args)


def test_release_freezes_the_cards_declares_the_release_and_names_it_in_the_cff(workspace: Project) -> None:
    workspace.add_card("toy-entropy")
    cut = release(workspace, "1.0.0", "--summary", "First release.", "--date", "2026-12-01")
    assert cut.returncode == 0, cut.stderr
    assert "release 1.0.0 of 2026-12-01: 1 cards, 1 added, 0 changed" in cut.stdout
    declared = yaml.safe_load((workspace.root / "docs" / "releases.yml").read_text(encoding="utf-8"))
    assert declared == [{"version": "1.0.0", "date": dt.date(2026, 12, 1), "summary": "First release."}]
    snapshot_file = workspace.root / "docs" / "releases" / "1.0.0.json"
    assert snapshot_file.stat().st_mode & 0o044 == 0o044  # readable by all, like the rest of docs/
    frozen = json.loads(snapshot_file.read_text(encoding="utf-8"))
    assert frozen["release"]["version"] == "1.0.0"
    assert frozen["cards"]["toy-entropy"]["equation"] == r"H(P) = -\sum_x P(x) \log P(x)"
    cff = yaml.safe_load((workspace.root / "CITATION.cff").read_text(encoding="utf-8"))
    assert (cff["version"], str(cff["date-released"])) == ("1.0.0", "2026-12-01")
    again = release(workspace, "1.0.0")
    assert again.returncode != 0 and "release 1.0.0 is already frozen" in again.stderr
    lower = release(workspace, "0.9.0", "--summary", "x")
    assert lower.returncode != 0 and "is not above the last one, 1.0.0" in lower.stderr


def test_release_refuses_a_changed_equation_without_history_and_changes_nothing(workspace: Project) -> None:
    card = workspace.add_card("toy-entropy")
    assert release(workspace, "1.0.0", "--summary", "First.", "--date", "2026-12-01").returncode == 0
    card.write_text(card_markdown(equation=CHANGED_EQUATION), encoding="utf-8")
    before = snapshot(workspace.root)
    refused = release(workspace, "1.1.0", "--summary", "Natural logs.", "--date", "2026-12-05")
    assert refused.returncode != 0
    assert "docs/cards/toy-entropy.md:5: the equation changed in release 1.1.0" in refused.stderr
    assert snapshot(workspace.root) == before  # nothing half-done
    card.write_text(card_markdown(equation=CHANGED_EQUATION, history=[
        {"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in the source."}]),
        encoding="utf-8")
    cut = release(workspace, "1.1.0", "--summary", "Natural logs.", "--date", "2026-12-05")
    assert cut.returncode == 0, cut.stderr
    assert "1 cards, 0 added, 1 changed" in cut.stdout
    versions = [r["version"] for r in yaml.safe_load((workspace.root / "docs" / "releases.yml").read_text())]
    assert versions == ["1.0.0", "1.1.0"]


@pytest.mark.build
def test_a_release_bump_after_an_equation_change_fails_the_build_until_the_card_has_history(
        workspace: Project) -> None:
    """The issue's acceptance test: bump the release by hand in docs/releases.yml after changing one
    card's equation; the build fails naming the card, and passes once the card records the change."""
    card = workspace.add_card("toy-entropy")
    assert release(workspace, "1.0.0", "--summary", "First.", "--date", "2026-12-01").returncode == 0
    card.write_text(card_markdown(equation=CHANGED_EQUATION), encoding="utf-8")
    unreleased = workspace.build()
    assert unreleased.returncode == 0, unreleased.stderr  # a change may wait for the next release
    page = (workspace.root / "site" / "cards" / "toy-entropy" / "index.html").read_text(encoding="utf-8")
    assert "Changed since release 1.0.0 (equation): the change is not in a release yet." in page
    releases = workspace.root / "docs" / "releases.yml"
    releases.write_text(releases.read_text() + '- version: "1.1.0"\n  date: 2026-12-05\n  summary: Logs.\n')
    (workspace.root / "CITATION.cff").write_text(
        (workspace.root / "CITATION.cff").read_text().replace('"1.0.0"', '"1.1.0"').replace(
            "2026-12-01", "2026-12-05"), encoding="utf-8")
    bumped = workspace.build()
    assert bumped.returncode != 0
    assert "docs/cards/toy-entropy.md:5: the equation changed in release 1.1.0, but 'history' has no entry" \
        in bumped.stdout + bumped.stderr
    card.write_text(card_markdown(equation=CHANGED_EQUATION, history=[
        {"release": "1.1.0", "date": "2026-12-04", "note": "Natural log, as in the source."}]),
        encoding="utf-8")
    fixed = workspace.build()
    assert fixed.returncode == 0, fixed.stderr
    site = workspace.root / "site"
    page = re.sub(r"<[^>]+>", "", (site / "cards" / "toy-entropy" / "index.html").read_text(encoding="utf-8"))
    assert ("Added in release 1.0.0 (2026-12-01) · Last changed in release 1.1.0 (2026-12-05): "
            "equation.") in page
    assert "1.1.0 (2026-12-04): Natural log, as in the source." in page
    assert "version = {1.1.0}" in page and "note = {Release 1.1.0 (2026-12-05)}" in page
    changelog = re.sub(r"<[^>]+>", "", (site / "changelog" / "index.html").read_text(encoding="utf-8"))
    assert changelog.index("Release 1.1.0 (2026-12-05)") < changelog.index("Release 1.0.0 (2026-12-01)")
    assert "Toy entropy: equation. Natural log, as in the source." in changelog
    home = re.sub(r"<[^>]+>", "", (site / "index.html").read_text(encoding="utf-8"))
    assert "This is release 1.1.0 of 2026-12-05" in home
    errata = re.sub(r"<[^>]+>", "", (site / "errata" / "index.html").read_text(encoding="utf-8"))
    assert "2026-12-04, release 1.1.0: Toy entropy: Natural log, as in the source." in errata
    assert json.loads((site / "releases" / "1.0.0.json").read_text())["release"]["version"] == "1.0.0"
    exported = json.loads((site / "cards.json").read_text())
    assert exported["release"] == "1.1.0"
    assert exported["cards"][0]["release"] == {"added_in": "1.0.0", "last_changed_in": "1.1.0",
                                               "unreleased_changes": [], "history": [
                                                   {"release": "1.1.0", "date": "2026-12-04",
                                                    "note": "Natural log, as in the source."}]}
