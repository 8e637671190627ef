"""The package's shape: every module sits in a stage, no import cycle, and no stage imports a later one.

The stages and their order are declared once, in eqcards.LAYERS. The import graph is read from the
source with `ast`, so it holds every import: at module level, inside functions (imported late to
start faster) and under `if TYPE_CHECKING:` (a cycle there is still a cycle of the design).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

import eqcards

PACKAGE = ROOT / "eqcards"

Graph = dict[str, set[str]]  # module -> the package's modules it imports


def module_name(path: Path, package_dir: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package_dir: Path) -> Graph:
    """Each module of the package and the package's modules it imports, relative imports resolved."""
    files = {module_name(p, package_dir): p for p in sorted(package_dir.rglob("*.py"))}
    graph: Graph = {}
    for name, path in files.items():
        # A module's imports are relative to its package; a package's __init__ is its own package.
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets |= {_known(a.name, files) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                source = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:  # `from . import markup` imports the module markup
                    submodule = f"{source}.{alias.name}"
                    targets.add(submodule if submodule in files else _known(source, files))
        graph[name] = {t for t in targets if t and t != name}
    return graph


def _known(dotted: str, files: dict[str, Path]) -> str:
    """The innermost module of the package that `dotted` names, or "" when it is not the package's."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in files:
        parts.pop()
    return ".".join(parts)


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected group of modules (Tarjan), each as a path back to its start."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(_path_within(group, graph))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _path_within(group: set[str], graph: Graph) -> list[str]:
    """A concrete cycle through the group's first module, found breadth first (the shortest one)."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node] & group):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no cycle through {start} in {sorted(group)}")


def stage_of(module: str) -> str | None:
    """The stage a module belongs to: its subpackage (eqcards.<stage>...), None at the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def layer_violations(graph: Graph, layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """Each import from a stage to a later stage, or between two peers of one layer."""
    rank = {stage: i for i, peers in enumerate(layers) for stage in peers}
    problems = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = stage_of(module), stage_of(target)
            if here is None or there is None or here == there:
                continue
            if rank[there] > rank[here]:
                problems.append(f"{module} imports {target}: stage '{here}' is below '{there}'")
            elif rank[there] == rank[here]:
                problems.append(f"{module} imports {target}: '{here}' and '{there}' are peers")
    return problems


def test_every_module_is_in_a_declared_stage() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"modules outside a stage's subpackage: {loose}"
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    declared = [stage for peers in eqcards.LAYERS for stage in peers]
    assert sorted(declared) == sorted(folders) and len(declared) == len(set(declared)), \
        f"eqcards.LAYERS declares {declared}; the subpackages are {sorted(folders)}"
    strays = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                    if p.parent != PACKAGE and p.parent.parent != PACKAGE)
    assert strays == [], f"stages are one level deep: {strays}"


def test_no_import_cycle() -> None:
    found = cycles(import_graph(PACKAGE))
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_no_stage_imports_a_later_stage() -> None:
    assert layer_violations(import_graph(PACKAGE), eqcards.LAYERS) == []


def test_the_graph_sees_every_kind_of_import() -> None:
    """The real package's graph has the edges that each kind of import makes."""
    graph = import_graph(PACKAGE)
    assert "eqcards.snippets.worker" in graph["eqcards.snippets.forkserver"]  # `from . import worker`, late
    assert "eqcards.core.errors" in graph["eqcards.cards.load"]  # `from ..core.errors import`, across stages
    assert "eqcards.cards.load" in graph["eqcards.mutants.mutation_run"]  # inside a function


def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text, encoding="utf-8")
    return package


def test_a_cycle_through_type_checking_and_late_imports_is_named(tmp_path: Path) -> None:
    package = write_package(tmp_path, {
        "low/__init__.py": "",
        "low/job.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .runner import Runner\n",
        "low/runner.py": "def run():\n    from pkg.low import twice\n",
        "low/twice.py": "from . import job\n",
        "low/alone.py": "import json\nfrom .job import x\n",
    })
    cycle = ["pkg.low.job", "pkg.low.runner", "pkg.low.twice", "pkg.low.job"]
    assert cycles(import_graph(package)) == [cycle]


def test_an_import_of_a_later_stage_or_a_peer_is_named(tmp_path: Path) -> None:
    package = write_package(tmp_path, {
        "core/__init__.py": "", "core/util.py": "from ..pages.page import render\n",
        "pages/__init__.py": "", "pages/page.py": "from ..core import util\nfrom ..math.tex import tex\n",
        "math/__init__.py": "", "math/tex.py": "from pkg.core.util import x\n",
    })
    layers = (("core",), ("math", "pages"))
    assert layer_violations(import_graph(package), layers) == [
        "pkg.core.util imports pkg.pages.page: stage 'core' is below 'pages'",
        "pkg.pages.page imports pkg.math.tex: 'pages' and 'math' are peers",
    ]
