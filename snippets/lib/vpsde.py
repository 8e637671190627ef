"""The VP SDE of Song et al. (2021) with Gaussian data, whose marginals and score are exact.

Shared by the diffusion snippets as their closed-form reference.
"""

from __future__ import annotations

import numpy as np


class GaussianVPSDE:
    """f(x, t) = -beta(t) x / 2, g(t)^2 = beta(t), beta linear on [0, 1]; data N(mu, diag s^2)."""

    def __init__(self, mu, s, b0: float = 0.1, b1: float = 20.0) -> None:
        self.mu, self.s, self.b0, self.b1 = np.asarray(mu, float), np.asarray(s, float), b0, b1

    def beta(self, t):
        return self.b0 + (self.b1 - self.b0) * t

    def marginal(self, t):
        """Mean and variance of p_t (closed form)."""
        m = np.exp(-0.5 * (self.b0 * t + 0.5 * (self.b1 - self.b0) * t**2))
        return m * self.mu, m**2 * self.s**2 + 1.0 - m**2

    def score(self, x, t):
        """Exact grad_x log p_t(x)."""
        mean, var = self.marginal(t)
        return -(x - mean) / var
