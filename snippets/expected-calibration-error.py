"""ECE: binned formula vs a hand-worked example, a per-sample regrouping, and models with a known gap."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def bin_index(conf: np.ndarray, m: int) -> np.ndarray:
    """Equal-width bins ((k-1)/M, k/M], k = 1..M, as 0-based indices (confidence 0 joins the first)."""
    return np.maximum(np.ceil(conf * m).astype(int) - 1, 0)


def ece(conf: np.ndarray, correct: np.ndarray, m: int = 15) -> float:
    """sum_m |B_m|/n * |acc(B_m) - conf(B_m)| over the non-empty bins."""
    idx = bin_index(conf, m)
    total = 0.0
    for b in np.unique(idx):
        in_bin = idx == b
        total += in_bin.mean() * abs(correct[in_bin].mean() - conf[in_bin].mean())
    return total
# --- end formula ---


# Hand-worked: 6 predictions, M = 2 bins (0, 0.5] and (0.5, 1].
conf = np.array([0.3, 0.45, 0.6, 0.7, 0.9, 0.95])
correct = np.array([0, 1, 1, 0, 1, 1])
# Bin 1: acc 1/2, conf 0.375 -> gap 0.125, weight 2/6. Bin 2: acc 3/4, conf 0.7875 -> gap 0.0375, weight 4/6.
check_close("6-sample example vs hand arithmetic", ece(conf, correct, m=2), 2 / 6 * 0.125 + 4 / 6 * 0.0375)

# Bin edges by hand, M = 4: bins are closed on the right, so 0.25 is in bin 1 and 0.2500001 in bin 2;
# confidence 0 is put in the first bin and 1 in the last.
check_true("bin of 0, 0.1, 0.25, 0.2500001, 0.5, 0.74, 0.75, 1 with M = 4 is 1, 1, 1, 2, 2, 3, 3, 4",
           bin_index(np.array([0.0, 0.1, 0.25, 0.2500001, 0.5, 0.74, 0.75, 1.0]), 4).tolist()
           == [0, 0, 0, 1, 1, 2, 2, 3])

rng = np.random.default_rng(0)
n = 200_000
p_hat = rng.uniform(0.4, 1.0, n)

# Regrouping: the per-bin gap times |B_m|/n equals |sum over the bin of (correct_i - conf_i)| / n.
hits = rng.random(n) < p_hat
idx = bin_index(p_hat, 15)
regrouped = np.abs(np.bincount(idx, weights=hits - p_hat, minlength=15)).sum() / n
check_close("ECE vs per-sample regrouping with bincount", ece(p_hat, hits), regrouped, rtol=1e-9)

# A calibrated model (correct with probability equal to its confidence) has ECE near 0;
# one whose accuracy is always 0.1 below its confidence has ECE near 0.1.
check_true("calibrated model: ECE below 0.01", ece(p_hat, hits) < 0.01, f"ECE = {ece(p_hat, hits):.4f}")
over = rng.random(n) < p_hat - 0.1
check_close("overconfident by 0.1: ECE vs 0.1", ece(p_hat, over), 0.1, rtol=0.05)

# --- in code: scikit-learn ---
from sklearn.calibration import calibration_curve  # noqa: E402


def ece_from_calibration_curve(conf, correct, m):
    """ECE from calibration_curve's per-bin accuracy and confidence (non-empty bins, in order), weighted
    by the bin sizes; it does not return those, so they are counted with its own binning rule."""
    acc_b, conf_b = calibration_curve(correct, conf, n_bins=m)
    sizes = np.bincount(np.searchsorted(np.linspace(0, 1, m + 1)[1:-1], conf), minlength=m)
    return float(np.sum(sizes[sizes > 0] / conf.size * np.abs(acc_b - conf_b)))


# Its bins are closed on the right like the card's (0.5 and 0.75 sit on edges here), and a sum of at
# most 15 bin terms is a few ulps from the card's: 1e-12.
edge_conf = np.array([0.3, 0.5, 0.5, 0.6, 0.75, 0.9, 1.0])
edge_correct = np.array([0, 1, 0, 1, 1, 0, 1])
check_close("calibration_curve(correct, conf, n_bins=M) per-bin acc and conf give ECE, values on edges",
            [ece_from_calibration_curve(edge_conf, edge_correct, m) for m in (2, 4)],
            [ece(edge_conf, edge_correct, m) for m in (2, 4)], rtol=1e-12)
# It returns no bin sizes. Counted with np.histogram, whose bins are closed on the left, the two
# confidences of 0.5 move to the upper bin: with M = 2 the sizes are 1 and 6, not 3 and 4.
histogram_sizes = np.histogram(edge_conf, bins=2, range=(0, 1))[0]
right_closed_sizes = np.bincount(bin_index(edge_conf, 2), minlength=2)
check_true("pitfall: np.histogram's left-closed bins count edge values in the next bin up",
           histogram_sizes.tolist() == [1, 6] and right_closed_sizes.tolist() == [3, 4],
           f"np.histogram {histogram_sizes.tolist()}, right-closed {right_closed_sizes.tolist()}")
# --- end in code ---

# Reliability diagram of the overconfident model.
edges = np.linspace(0, 1, 16)
idx = bin_index(p_hat, 15)
used = np.unique(idx)
acc = np.array([over[idx == b].mean() for b in used])
mean_conf = np.array([p_hat[idx == b].mean() for b in used])
fig, ax = figure("Reliability diagram, overconfident model (ECE ≈ 0.1)", "confidence", "accuracy")
ax.plot([0, 1], [0, 1], "k--", label="perfect calibration")
ax.bar(edges[used], acc, width=1 / 15, align="edge", alpha=0.6, edgecolor="k", label="accuracy per bin")
ax.plot(mean_conf, acc, "o", label="(conf, acc) per bin")
ax.set_xlim(0, 1)
ax.set_ylim(0, 1)
ax.legend()
