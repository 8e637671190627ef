"""Content hash of a snippet and of everything that can change its output."""

from __future__ import annotations

import ast
import hashlib
import platform
from functools import cache
from importlib import metadata
from pathlib import Path

from ..core.config import helpers_dir

# Bump when the runner changes what it records, so old cache entries stop matching.
RUNNER_VERSION = "3"  # 2: checks record their line; a failed check fails even if caught;
# 3: a figure over MAX_FIGURE_BYTES is saved as an image
# Distributions whose version can change what a snippet prints: the numerics and the reference libraries.
LIBRARIES = ("numpy", "scipy", "matplotlib", "scikit-learn", "rouge_score", "sacrebleu", "rank-bm25", "nltk",
             "networkx")


@cache
def environment_fingerprint() -> str:
    """Python and library versions: a new numpy may change a printed digit or a figure."""
    parts = [f"runner={RUNNER_VERSION}", f"python={platform.python_version()}"]
    for name in LIBRARIES:
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=absent")
    return ";".join(parts)


def local_imports(path: Path, snippets_dir: Path) -> list[Path]:
    """Helper modules (snippets_dir's lib/) that a snippet imports, transitively, in a stable order."""
    helpers = helpers_dir(snippets_dir)
    found: dict[Path, None] = {}
    pending = [path]
    while pending:
        current = pending.pop()
        try:
            tree = ast.parse(current.read_bytes(), filename=str(current))
        except SyntaxError:
            continue  # the run itself reports the syntax error with its line
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                candidate = helpers / (name.split(".")[0] + ".py")
                if candidate.is_file() and candidate != path and candidate not in found:
                    found[candidate] = None
                    pending.append(candidate)
    return sorted(found)


def snippet_key(path: Path, snippets_dir: Path, timeout: int) -> str:
    """SHA-256 over the snippet, its local helpers, the timeout and the environment."""
    digest = hashlib.sha256()
    digest.update(environment_fingerprint().encode())
    digest.update(f"timeout={timeout}".encode())
    for file in [path, *local_imports(path, snippets_dir)]:
        digest.update(file.name.encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()
