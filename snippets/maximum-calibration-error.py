"""MCE: binning and the worst bin gap vs a hand-worked example and sklearn's calibration_curve;
MCE >= ECE; a model miscalibrated in one region."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.calibration import calibration_curve


# --- formula ---
def bin_of(conf: np.ndarray, m: int) -> np.ndarray:
    """Equal-width bins ((k-1)/M, k/M], k = 1..M, as 0-based indices; confidence 0 joins the first."""
    return np.digitize(conf, np.linspace(0.0, 1.0, m + 1)[1:-1], right=True)


def mce(conf: np.ndarray, correct: np.ndarray, m: int = 15) -> float:
    """max over non-empty bins of |acc(B_m) - conf(B_m)|."""
    idx = bin_of(conf, m)
    return max(abs(correct[idx == b].mean() - conf[idx == b].mean()) for b in np.unique(idx))
# --- end formula ---


# 1. Hand-worked, M = 4 bins (0, .25], (.25, .5], (.5, .75], (.75, 1]:
#    bin 1: 0.1, 0.2 (wrong, wrong)       acc 0,   conf 0.15   gap 0.15
#    bin 2: 0.3 (right)                   acc 1,   conf 0.3    gap 0.7   <- a single sample
#    bin 3: 0.55 (right), 0.6 (wrong)     acc 0.5, conf 0.575  gap 0.075
#    bin 4: 0.8, 0.85, 0.9, 1.0 (right)   acc 1,   conf 0.8875 gap 0.1125
conf = np.array([0.1, 0.2, 0.3, 0.55, 0.6, 0.8, 0.85, 0.9, 1.0])
correct = np.array([0, 0, 1, 1, 0, 1, 1, 1, 1])
check_true("bins of the 9 samples: 1 1 2 3 3 4 4 4 4",
           (bin_of(conf, 4) + 1).tolist() == [1, 1, 2, 3, 3, 4, 4, 4, 4])
check_close("MCE = 0.7 (the one-sample bin)", mce(conf, correct, 4), 0.7, rtol=1e-12)
ece = sum((bin_of(conf, 4) == b).mean() * abs(correct[bin_of(conf, 4) == b].mean()
                                              - conf[bin_of(conf, 4) == b].mean()) for b in range(4))
check_close("the ECE of the same bins is 1.6/9 (MCE weights bins equally, ECE by size)", ece, 1.6 / 9,
            rtol=1e-12)
check_true("bin edges are closed on the right: 0, 0.25, 0.2500001, 0.5, 1 -> bins 1, 1, 2, 2, 4",
           (bin_of(np.array([0.0, 0.25, 0.2500001, 0.5, 1.0]), 4) + 1).tolist() == [1, 1, 2, 2, 4])

# 2. Against scikit-learn's calibration_curve (uniform bins, right-closed, empty bins dropped):
#    MCE = max |fraction correct - mean confidence| over its bins. Confidences include exact edges.
rng = np.random.default_rng(0)
for n, m in ((2_000, 15), (500, 10), (300, 4)):
    c = np.concatenate([rng.uniform(0.3, 1.0, n), np.linspace(0.4, 1.0, 7)])
    hit = (rng.random(c.size) < c**1.5).astype(float)
    frac, mean_conf = calibration_curve(hit, c, n_bins=m, strategy="uniform")
    ours = mce(c, hit) if m == 15 else mce(c, hit, m)      # M = 15 is the default (Guo et al.)
    check_close(f"n = {n}, M = {m}: MCE vs sklearn calibration_curve", ours,
                np.max(np.abs(frac - mean_conf)), rtol=1e-12)

# 3. MCE >= ECE always, and equal when only one bin is occupied.
c = rng.uniform(0.5, 1.0, 5000)
hit = (rng.random(c.size) < c - 0.05).astype(float)
idx = bin_of(c, 15)
ece_r = sum((idx == b).mean() * abs(hit[idx == b].mean() - c[idx == b].mean()) for b in np.unique(idx))
check_true("MCE >= ECE on random data", mce(c, hit) >= ece_r, f"MCE {mce(c, hit):.4f}, ECE {ece_r:.4f}")
one = np.full(50, 0.95)
check_close("a single occupied bin: MCE = |acc - 0.95| = 0.15", mce(one, np.r_[np.ones(40), np.zeros(10)]),
            0.15, rtol=1e-12)

# 4. A model calibrated everywhere except confidences in (0.8, 0.9], where it is right only 60% of the
#    time: MCE (M = 10) picks out that bin's gap, about 0.85 - 0.6 = 0.25 (Monte Carlo, 3 s.e.).
n = 200_000
c = rng.uniform(0.0, 1.0, n)
p_true = np.where((c > 0.8) & (c <= 0.9), 0.6, c)
hit = (rng.random(n) < p_true).astype(float)
se = np.sqrt(0.24 / np.sum((c > 0.8) & (c <= 0.9)))
check_close("miscalibrated region: MCE vs 0.25 (3 s.e.)", mce(c, hit, 10), 0.25, atol=3 * se)
hit_cal = (rng.random(n) < c).astype(float)
check_true("the calibrated model's MCE is small (< 0.02)", mce(c, hit_cal, 10) < 0.02)

# Reliability diagram of that model with the worst bin marked.
edges = np.linspace(0, 1, 11)
idx = bin_of(c, 10)
acc = np.array([hit[idx == b].mean() for b in range(10)])
mconf = np.array([c[idx == b].mean() for b in range(10)])
worst = int(np.argmax(np.abs(acc - mconf)))
fig, ax = figure("Reliability diagram: MCE is the largest bin gap", "confidence", "accuracy")
ax.plot([0, 1], [0, 1], "k--", label="perfect calibration")
ax.bar(edges[:-1], acc, width=0.1, align="edge", alpha=0.5, edgecolor="k", label="accuracy per bin")
ax.plot([mconf[worst]] * 2, [acc[worst], mconf[worst]], "r-", lw=3, label=f"MCE = {mce(c, hit, 10):.3f}")
ax.set_xlim(0, 1)
ax.set_ylim(0, 1)
ax.legend()
