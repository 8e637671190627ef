"""Karras sigma schedule: exact endpoints, even spacing in sigma^(1/rho), rho=1/rho->inf vs lin/geomspace."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def karras_sigmas(n: int, sigma_min: float = 0.002, sigma_max: float = 80.0, rho: float = 7.0,
                  append_zero: bool = True) -> np.ndarray:
    """sigma_i for i = 0..n-1 (decreasing), plus the final sigma_n = 0 that EDM appends."""
    i = np.arange(n)
    lo, hi = sigma_min ** (1.0 / rho), sigma_max ** (1.0 / rho)
    sig = (hi + i / (n - 1) * (lo - hi)) ** rho
    return np.append(sig, 0.0) if append_zero else sig
# --- end formula ---


n = 18
sig = karras_sigmas(n, append_zero=False)
# Defaults against EDM Table 1 (sigma_max = 80, sigma_min = 0.002, rho = 7), as printed there.
check_close("default endpoints are exactly Table 1's sigma_max = 80 and sigma_min = 0.002", [sig[0], sig[-1]],
            [80.0, 0.002], rtol=1e-12)
check_close("with Table 1's rho = 7, sigma^(1/7) is evenly spaced (matches np.linspace)", sig ** (1 / 7),
            np.linspace(80.0 ** (1 / 7), 0.002 ** (1 / 7), n), rtol=1e-12)
check_true("strictly decreasing, then the appended sigma_N = 0",
           np.all(np.diff(sig) < 0) and karras_sigmas(n)[-1] == 0.0 and len(karras_sigmas(n)) == n + 1)
check_close("rho = 1 is uniform spacing in sigma", karras_sigmas(n, rho=1.0, append_zero=False),
            np.linspace(80.0, 0.002, n), rtol=1e-9)
check_close("rho -> infinity is geometric spacing (np.geomspace)",
            karras_sigmas(n, rho=1e6, append_zero=False),
            np.geomspace(80.0, 0.002, n), rtol=1e-3)
fractions = [np.mean(karras_sigmas(n, rho=r, append_zero=False) < 1.0) for r in (1.0, 3.0, 7.0, 1e5)]
check_true("larger rho moves steps toward small sigma (fraction of steps with sigma < 1 rises with rho)",
           np.all(np.diff(fractions) > 0),
           "rho = 1, 3, 7, inf: " + ", ".join(f"{f:.2f}" for f in fractions))

# The page's calculator is checked against karras_sigmas on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): both endpoints, levels in between, and the appended sigma_N = 0, for
# uniform (rho = 1), EDM (rho = 7) and strongly warped spacing.
import cardcalc  # noqa: E402

levels = cardcalc.grid(i=(0, 1, 9, 17, 18, 39, 40), N=(2, 18, 40), sigma_min=(0.002, 0.5),
                       sigma_max=(1.0, 80.0), rho=(1.0, 7.0, 50.0))
cardcalc.table(lambda i, N, sigma_min, sigma_max, rho:
               {"sigma": karras_sigmas(N, sigma_min, sigma_max, rho)[i]},
               [row for row in levels if row["i"] <= row["N"]])

fig, ax = figure("Karras noise levels, N = 18", "step index i", r"$\sigma_i$ (log scale)")
for rho in (1.0, 3.0, 7.0):
    ax.plot(karras_sigmas(n, rho=rho, append_zero=False), marker="o", ms=3, label=rf"$\rho$ = {rho:g}")
ax.plot(np.geomspace(80.0, 0.002, n), ls="--", label=r"geometric ($\rho \to \infty$)")
ax.set_yscale("log")
ax.legend()
