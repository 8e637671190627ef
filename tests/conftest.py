"""Shared fixtures: a minimal throw-away project, and a valid card to mutate in tests."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from eqcards.snippets.jobs import SnippetJob

pytest_plugins = ["browser_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"

VALID_CARD = {
    "id": "toy-entropy",
    "title": "Toy entropy",
    "topic": "information-theory",
    "equation": r"H(P) = -\sum_x P(x) \log P(x)",
    "summary": "Average surprise of a distribution.",
    "symbols": [{"symbol": "P", "meaning": "a distribution"}],
    "aliases": ["H(p)"],
    "tags": ["entropy"],
    "sources": [{"authors": "C. E. Shannon", "year": 1948,
                 "title": "A Mathematical Theory of Communication",
                 "venue": "Bell System Technical Journal 27(3)",
                 "doi": "10.1002/j.1538-7305.1948.tb01338.x", "locator": "Sec. 6"}],
    "related": [],
    "seeds": ["handbook/1/Entropy"],
    "snippet": "toy-entropy.py",
    "cheatsheet": {"label": "Entropy"},
}

GOOD_SNIPPET = '''import numpy as np
from cardcheck import check_close
from cardplot import figure
p = np.array([0.5, 0.25, 0.25])
check_close("entropy of (1/2, 1/4, 1/4) in bits", -np.sum(p * np.log2(p)), 1.5)
fig, ax = figure("toy", "x", "y")
ax.plot([0, 1], [0, 1])
'''


def card_markdown(body: str = "Some prose with $x$.\n", **changes: object) -> str:
    data = {**VALID_CARD, **changes}
    data = {k: v for k, v in data.items() if v is not None}
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n\n" + body


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Each file's bytes and each folder (None) under a folder, by path. Nothing is left out,
    so a stray temporary file or a new empty folder counts as a change."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


class Project:
    """A copy of the site's machinery with only the cards a test gives it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / ".cache" / "snippets"

    def add_card(self, card_id: str, snippet: str = GOOD_SNIPPET, **changes: object) -> Path:
        path = self.root / "docs" / "cards" / f"{card_id}.md"
        path.write_text(card_markdown(id=card_id, snippet=f"{card_id}.py", **changes), encoding="utf-8")
        (self.root / "snippets" / f"{card_id}.py").write_text(snippet, encoding="utf-8")
        return path

    def snapshot(self) -> dict[str, bytes | None]:
        """Everything under .cache/: snippet results and typeset formulas."""
        return snapshot(self.cache.parent)

    def build(self, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        full_env = {**os.environ, "EQCARDS_CACHE_DIR": str(self.cache), "NO_MKDOCS_2_WARNING": "1",
                    **(env or {})}
        return subprocess.run([str(MKDOCS), "build", "--strict", *extra], cwd=self.root, env=full_env,
                              capture_output=True, text=True, timeout=600)


def toy_topics() -> str:
    """The real parts and topics without their reading orders, which name the real cards: a toy
    project holds others."""
    parts = yaml.safe_load((ROOT / "docs" / "topics.yml").read_text(encoding="utf-8"))
    for part in parts:
        for topic in part["topics"]:
            topic.pop("cards", None)
    return yaml.safe_dump(parts, sort_keys=False, allow_unicode=True)


def make_project(dest: Path, with_cards: bool = False) -> Project:
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "overrides", "seeds", "CITATION.cff"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    (dest / "docs" / "cards").mkdir(parents=True)
    for name in ("index.md", "javascripts", "stylesheets"):
        src = ROOT / "docs" / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / "docs" / name)
    topics = (ROOT / "docs" / "topics.yml").read_text(encoding="utf-8") if with_cards else toy_topics()
    (dest / "docs" / "topics.yml").write_text(topics, encoding="utf-8")
    (dest / "snippets" / "lib").mkdir(parents=True)
    for helper in ("cardcheck.py", "cardplot.py"):
        shutil.copy(ROOT / "snippets" / "lib" / helper, dest / "snippets" / "lib" / helper)
    if with_cards:
        shutil.copytree(ROOT / "docs" / "cards", dest / "docs" / "cards", dirs_exist_ok=True)
        shutil.copytree(ROOT / "snippets", dest / "snippets", dirs_exist_ok=True)
    return Project(dest)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path / "project")


def build_once(folder: Path, env_changes: dict[str, str] | None = None) -> Path:
    """The real site, built into `folder`/site by the first test process that asks; the others (pytest-xdist
    workers of the same run) wait for it and share it. A failed build is recorded, so each of them
    reports the same failure at once instead of building again."""
    out, done, failed = folder / "site", folder / "site.done", folder / "site.failed"
    with open(folder / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists() and not failed.exists():
            env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env_changes or {})}
            result = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                                    env=env, capture_output=True, text=True, timeout=1200)
            if result.returncode == 0:
                done.touch()
            else:
                failed.write_text(result.stdout + result.stderr, encoding="utf-8")
    assert not failed.exists(), failed.read_text(encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shared by every worker of this test run (each xdist worker has its own basetemp below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def built_site(shared_tmp: Path) -> Path:
    """The real site, built once per test run from the real cards. Each snippet runs once here: the
    portability tests run each twice more under other kernels and fail one whose result changes by
    itself (tests/portability), so a third run here would check nothing new."""
    return build_once(shared_tmp)


@pytest.fixture
def snippets(tmp_path: Path) -> Path:
    """A snippets folder holding only the shared helpers (in its lib/), for runner tests."""
    folder = tmp_path / "snippets"
    (folder / "lib").mkdir(parents=True)
    for helper in ("cardcheck.py", "cardplot.py"):
        shutil.copy(ROOT / "snippets" / "lib" / helper, folder / "lib" / helper)
    return folder


def job(snippets: Path, name: str, source: str, timeout: int = 30) -> SnippetJob:
    """Write `source` as snippet `name` and the job that runs it for a card of the same name."""
    path = snippets / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return SnippetJob(name, snippets.parent / "cards" / f"{name}.md", path, timeout)


def run_notebook(notebook: dict, folder: Path) -> subprocess.CompletedProcess:
    """Run a notebook's code cells in order in a fresh Python, as Jupyter would: `%%writefile`
    writes its file, other magics (`%matplotlib inline`) are display-only. PYTHONPATH is dropped,
    so only what the notebook writes and the installed libraries can be imported."""
    script = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if source.startswith("%%writefile "):
            name, _, body = source.partition("\n")
            (folder / name.split()[1]).write_text(body, encoding="utf-8")
            continue
        script.append("\n".join(line for line in source.splitlines() if not line.startswith("%")))
    (folder / "notebook.py").write_text("\n\n".join(script) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["MPLBACKEND"] = "Agg"
    return subprocess.run([sys.executable, "-E", "-s", "notebook.py"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run order, for pytest-xdist's work stealing, which first hands each worker a contiguous share:
    the portability runs and the tests that need no site first, the tests of the built site last. The
    first worker then starts on the long snippet runs while the last builds the site, instead of
    waiting on the build's lock with a core idle."""
    def needs_site(item: pytest.Item) -> bool:
        return bool({"built_site", "base_url"} & set(getattr(item, "fixturenames", ())))
    # The every-card browser visits, the longest of the site's tests, start as soon as the site is built.
    items.sort(key=lambda item: (item.get_closest_marker("portability") is None, needs_site(item),
                                 not item.name.startswith("test_every_card_shows")))
