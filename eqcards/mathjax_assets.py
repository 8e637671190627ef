"""Which MathJax 3 files the site serves itself, so pages typeset with no network."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

# The CHTML component, its web fonts, the TeX extensions it may autoload, and assistive MathML
# for screen readers. Everything else in the distribution (speech rule engine, SVG output) is
# left out to keep the site small.
SHIPPED = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions",
           "a11y/assistive-mml.js")
SITE_PREFIX = "assets/mathjax/"


def mathjax_dir() -> Path:
    """The es5/ tree of MathJax 3.2.2 as packaged by django-static-mathjax."""
    import mathjax  # provided by django-static-mathjax

    return Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"


def mathjax_files() -> Iterator[tuple[str, Path]]:
    """(path in the site, file on disk) for every shipped MathJax file."""
    base = mathjax_dir()
    for entry in SHIPPED:
        path = base / entry
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            yield SITE_PREFIX + file.relative_to(base).as_posix(), file
