"""Snippet figures: a dense one saved as an image under the size limit, one too large even so fails."""

from __future__ import annotations

from pathlib import Path

from conftest import job

from eqcards.core.config import MAX_FIGURE_BYTES
from eqcards.snippets.runner import run_snippet

CHECKED = "from cardcheck import check_true\ncheck_true('ran', True)\n"
# 40,000 points: matplotlib's SVG draws each as its own path, far over the limit.
DENSE = ("import numpy as np\nfrom cardplot import figure\n"
         "fig, ax = figure('dense', 'x', 'y')\n"
         "xy = np.random.default_rng(0).normal(size=(2, 40_000))\n"
         "ax.scatter(xy[0], xy[1], s=2)\n" + CHECKED)
# Random noise at a poster's size: no image format makes this small.
NOISE = ("import numpy as np\nfrom cardplot import figure\n"
         "fig, ax = figure('noise', 'x', 'y', size=(14.0, 14.0))\n"
         "ax.imshow(np.random.default_rng(0).random((700, 700, 3)), interpolation='nearest')\n" + CHECKED)


def test_a_dense_figure_is_saved_as_an_image_under_the_limit_and_stays_deterministic(snippets: Path) -> None:
    first = run_snippet(job(snippets, "dense", DENSE), snippets)
    assert first.ok, first.error
    [svg] = first.figures
    assert svg.startswith("<svg ") and 'href="data:image/png;base64,' in svg
    assert 'width="432.0pt" height="259.2pt"' in svg  # the figure's own size (6 x 3.6 in)
    assert 10_000 < len(svg.encode()) <= MAX_FIGURE_BYTES  # a real picture, under the limit
    assert run_snippet(job(snippets, "dense", DENSE), snippets).figures == first.figures


def test_a_figure_over_the_limit_even_as_an_image_fails_the_snippet_naming_it(snippets: Path) -> None:
    result = run_snippet(job(snippets, "noise", NOISE), snippets)
    assert not result.ok and result.figures == []
    assert "figure 1 is" in result.error and f"over the {MAX_FIGURE_BYTES // 1000} KB limit" in result.error
