"""Run one snippet inside this process and write its result as JSON (the runner's child side).

The build calls run() in a child forked from the snippet server (eqcards.snippets.forkserver). By hand:
python -m eqcards.snippets.worker SNIPPET SNIPPETS_DIR RESULT_JSON TIMEOUT_SECONDS, with the environment
(Agg backend, one BLAS thread, fixed hash seed) and the working directory (a fresh temporary
folder) set as the runner sets them.
"""

from __future__ import annotations

import base64
import faulthandler
import hashlib
import io
import json
import os
import random
import runpy
import sys
import tempfile
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from ..core.config import MAX_FIGURE_BYTES, helpers_dir
from . import sandbox
from .regions import Region, RegionError, in_code_regions, runnable

# Output beyond this is dropped with a note, so a runaway print cannot bloat a page or the cache.
MAX_OUTPUT_CHARS = 100_000
SVG_HASH_SALT = "equation-cards"  # matplotlib otherwise salts SVG ids randomly per run
# Set to "1", the snippet runs in full but its figures are not rendered (they are in the build):
# rendering SVG is ~40% of a snippet's time and no BLAS work, so the reruns under other BLAS
# kernels (eqcards.portability) skip it. Set to "digest", each figure is recorded as a hash of the
# data it plots instead of its SVG: enough to see a figure that changes by itself between two runs.
SKIP_FIGURES = "EQCARDS_SKIP_FIGURES"
FIGURE_DIGESTS = "digest"
RASTER_DPI = 200  # a figure saved as an image: twice matplotlib's 100 pixels per inch, for sharp screens


class CappedWriter(io.StringIO):
    """A text buffer that keeps the first MAX_OUTPUT_CHARS characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.dropped = 0

    def write(self, text: str) -> int:
        room = self.limit - self.tell()
        if room > 0:
            super().write(text[:room])
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self) -> str:
        out = self.getvalue()
        if self.dropped:
            out += f"\n[output truncated: {self.dropped} more characters not shown]\n"
        return out


def _error(exc: BaseException, snippet: Path, snippets_dir: Path) -> dict[str, Any]:
    """The snippet's own line number and a traceback limited to the snippet and its helpers."""
    snippet = snippet.resolve()  # a worked example's runnable copy lives outside snippets_dir
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if (path := Path(f.filename).resolve()).is_relative_to(snippets_dir) or path == snippet]
    line = next((f.lineno for f in reversed(frames) if Path(f.filename).resolve() == snippet), None)
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename).resolve() == snippet:
        line = exc.lineno
    text = "".join(traceback.format_list(frames)) + "".join(
        traceback.format_exception_only(type(exc), exc))
    return {"error": f"{type(exc).__name__}: {exc}".strip(), "line": line, "traceback": text}


def _saved(figure: Any, number: int, format: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format=format, **options)
    except Exception as exc:
        raise RuntimeError(f"figure {number} could not be saved as {format.upper()}: {exc}") from exc
    return buffer.getvalue()


def _as_image(figure: Any, number: int) -> str:
    """The figure as a PNG (at twice the screen's pixels) inside an SVG of the same size, so the
    page shows it and the dark theme inverts it as it does any other figure."""
    from PIL import Image  # matplotlib's own dependency

    drawn = Image.open(io.BytesIO(_saved(figure, number, "png", dpi=RASTER_DPI))).convert("RGB")
    # 256 colours (no dithering) hold a plot's few inks and their anti-aliased edges; the file
    # is a third of the full-colour one (reverse-time-sde: 135 KB instead of 370 KB).
    buffer = io.BytesIO()
    drawn.quantize(256, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(buffer, "png", optimize=True)
    png = buffer.getvalue()
    width, height = (round(float(v) * 72, 3) for v in figure.get_size_inches())  # in pt, as an SVG
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="{height}pt" '
            f'viewBox="0 0 {width} {height}"><image width="{width}" height="{height}" '
            f'href="data:image/png;base64,{base64.b64encode(png).decode()}"/></svg>\n')


def _figures(plt: Any) -> list[str]:
    """Every open figure as SVG text; one over MAX_FIGURE_BYTES drawn as an image instead.
    Raises RuntimeError naming the figure when even the image is over the limit."""
    svgs = []
    for number in plt.get_fignums():
        figure = plt.figure(number)
        svg = _saved(figure, number, "svg", metadata={"Date": None}).decode()
        if len(svg.encode()) > MAX_FIGURE_BYTES:
            svg = _as_image(figure, number)
        if (size := len(svg.encode())) > MAX_FIGURE_BYTES:
            raise RuntimeError(f"figure {number} is {size // 1000} KB even as a PNG, over the "
                               f"{MAX_FIGURE_BYTES // 1000} KB limit for a figure: plot fewer points, "
                               "or a smaller figure")
        svgs.append(svg)
    return svgs


# What an artist plots, by the getters that return it: points, offsets, colour arrays, paths,
# rectangles, text and the axes' limits (a plot's data sets them). Values are hashed as float32, so
# a thread count's rounding in the last bits of a float64 does not read as a change.
PLOTTED = ("get_xydata", "get_offsets", "get_sizes", "get_array", "get_paths", "get_path", "get_xy",
           "get_width", "get_height", "get_text", "get_position", "get_xlim", "get_ylim")


def figure_digests(plt: Any) -> list[str]:
    """Each open figure as a hash of the data its artists plot, in drawing order; far cheaper than
    rendering it, and different whenever the data plotted is."""
    import numpy as np

    digests = []
    with np.errstate(all="ignore"):  # a value beyond float32 hashes as inf, silently
        for number in plt.get_fignums():
            digests.append(_figure_digest(plt.figure(number), np))
    return digests


def _figure_digest(figure: Any, np: Any) -> str:
    digest = hashlib.sha256()
    for artist in figure.findobj(include_self=False):
        digest.update(type(artist).__name__.encode())
        for name in PLOTTED:
            getter = getattr(artist, name, None)
            if getter is None:
                continue
            try:
                value = getter()
            except (TypeError, ValueError, AttributeError):
                continue  # a getter that needs arguments or a renderer: not plotted data
            for part in value if isinstance(value, list) else [value]:
                part = getattr(part, "vertices", part)  # a Path: its points
                try:
                    data = np.asarray(part, dtype=np.float32)
                except (TypeError, ValueError):  # text, or a ragged list
                    digest.update(repr(part).encode())
                else:
                    digest.update(np.ascontiguousarray(data).tobytes())
    return f"figure data sha256:{digest.hexdigest()}"


def run(snippet: Path, snippets_dir: Path, timeout: float, hang_report: Path) -> dict[str, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    plt.rcParams.update({"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "path",
                         "figure.max_open_warning": 0})
    random.seed(0)
    np.random.seed(0)
    sys.path.insert(0, str(helpers_dir(snippets_dir)))
    sys.argv = [str(snippet)]
    tempfile.tempdir = os.getcwd()  # temporary files go where the sandbox lets a snippet write
    # If the snippet hangs, dump where it is just before the parent's deadline.
    with open(hang_report, "w") as hang:
        sandbox.apply(Path.cwd(), hang_report.parent)
        faulthandler.dump_traceback_later(max(timeout - 0.5, 0.5), exit=True, file=hang)
        output = CappedWriter(MAX_OUTPUT_CHARS)
        result: dict[str, Any] = {"ok": False, "checks": [], "figures": []}
        regions = _regions(snippet)
        try:
            with redirect_stdout(output), redirect_stderr(output):
                _execute(snippet)
        except SystemExit as exc:
            if exc.code not in (0, None):
                result.update(_error(exc, snippet, snippets_dir))
        except BaseException as exc:
            result.update(_error(exc, snippet, snippets_dir))
        finally:
            faulthandler.cancel_dump_traceback_later()
    checks = getattr(sys.modules.get("cardcheck"), "RESULTS", [])
    result["checks"] = list(checks)
    # The calculator's grid (snippets/lib/cardcalc.py), for the build to check the page's expressions.
    result["table"] = list(getattr(sys.modules.get("cardcalc"), "TABLE", []))
    result["stdout"] = output.text()
    if "error" not in result:
        if (problem := unverified(result["checks"])) is not None:
            result.update(problem, traceback="")
        else:
            try:
                skip = os.environ.get(SKIP_FIGURES)
                result["figures"] = ([] if skip == "1" else figure_digests(plt) if skip == FIGURE_DIGESTS
                                     else _figures(plt))
                result["ok"] = True
            except RuntimeError as exc:
                result.update(error=str(exc), line=None, traceback="")
    return _attributed(result, regions)


def _regions(snippet: Path) -> list[Region]:
    """The snippet's In-code regions; none where a marker is malformed (its run reports that)."""
    try:
        return in_code_regions(snippet.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RegionError):
        return []


def _execute(snippet: Path) -> None:
    """Run the snippet as __main__, with the In-code regions of libraries the build lacks blanked
    (eqcards.snippets.regions; line numbers unchanged)."""
    source = snippet.read_text(encoding="utf-8")
    try:
        code, _ = runnable(source)
    except RegionError as exc:  # reported at the marker's line, like a syntax error
        raise SyntaxError(str(exc), (str(snippet), exc.line, 1, "")) from None
    if code == source:
        runpy.run_path(str(snippet), run_name="__main__")
    else:
        main = {"__name__": "__main__", "__file__": str(snippet), "__builtins__": __builtins__}
        exec(compile(code, str(snippet), "exec"), main)


def _attributed(result: dict[str, Any], regions: list[Region]) -> dict[str, Any]:
    """A failure inside an In-code region names the library and the version that ran it: the
    library's call no longer agrees with the card (a changed default, a wrong mapping)."""
    region = next((r for r in regions if "error" in result and r.holds(result.get("line"))), None)
    if region is not None:
        from importlib import metadata

        try:
            version = metadata.version(region.library)
        except metadata.PackageNotFoundError:
            version = "(not installed)"
        result["error"] = (f"in code: {region.library} {version} disagrees with the card: "
                           f"{result['error']}")
    return result


def unverified(checks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Why a snippet that ran to its end still does not verify its card, or None if it does.

    Verified means at least one check recorded and every recorded check passed: a failed check
    fails the card even when the snippet caught its CheckFailed and went on."""
    if not checks:
        return {"error": "the snippet ran no check: compare the formula with an independent route "
                         "using check_close/check_true from cardcheck", "line": None}
    for check in checks:
        if check.get("passed") is not True:
            return {"error": f"check {check.get('what')!r} failed ({check.get('detail')}) and the "
                             "snippet went on: a failed check fails the card, do not catch CheckFailed",
                    "line": check.get("line")}
    return None


def main() -> None:
    snippet, snippets_dir, result_path, timeout = sys.argv[1:5]
    snippet_path = Path(snippet).resolve()
    result = run(snippet_path, Path(snippets_dir).resolve(), float(timeout),
                 Path(result_path).with_suffix(".hang"))
    Path(result_path).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
