"""Shared figure style for card snippets, so every plot looks alike on the site."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure


def figure(title: str, xlabel: str, ylabel: str, *, size: tuple[float, float] = (6.0, 3.6)
           ) -> tuple[Figure, Axes]:
    """A new figure with one labelled axes. The site inverts figures in the dark theme,
    so plots are drawn dark-on-white with colours that survive that inversion."""
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax
