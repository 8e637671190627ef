"""Selective risk and the risk-coverage curve: the vectorized curve vs enumeration of every threshold
(with ties), hand values, the oracle and random orderings."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def selective_risk(loss: np.ndarray, accept: np.ndarray) -> tuple[float, float]:
    """Empirical coverage phi = mean(g) and selective risk r = sum(loss * g) / sum(g)."""
    covered = np.sum(accept)
    return covered / len(accept), float(np.sum(loss * accept) / covered)


def risk_coverage_curve(conf: np.ndarray, loss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every threshold theta at a distinct confidence value (highest first), accept
    g(x) = 1[conf >= theta]: returns the coverages and selective risks."""
    order = np.argsort(-conf, kind="stable")
    c, l_sorted = conf[order], loss[order]
    cum = np.cumsum(l_sorted)
    last = np.r_[c[1:] != c[:-1], True]            # the last index of each run of equal confidences
    k = np.nonzero(last)[0] + 1                     # number accepted at each threshold
    return k / len(conf), cum[k - 1] / k
# --- end formula ---


# 1. Hand example: 6 predictions, confidences and 0/1 losses (1 = wrong).
conf = np.array([0.95, 0.9, 0.8, 0.8, 0.6, 0.3])
loss = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
cov, risk = risk_coverage_curve(conf, loss)
#    theta = 0.95: 1 accepted, risk 0;  0.9: 2, risk 1/2;  0.8 (tie, both enter): 4, risk 2/4;
#    0.6: 5, risk 2/5;  0.3: 6, risk 3/6.
check_close("coverage at each threshold: 1/6, 2/6, 4/6, 5/6, 1", cov, [1 / 6, 2 / 6, 4 / 6, 5 / 6, 1.0],
            rtol=1e-12)
check_close("selective risk at each threshold: 0, 1/2, 1/2, 2/5, 1/2", risk, [0, 0.5, 0.5, 0.4, 0.5],
            rtol=1e-12, atol=1e-15)
check_close("g = 1[conf >= 0.8]: coverage 4/6, risk 1/2", selective_risk(loss, conf >= 0.8), [4 / 6, 0.5],
            rtol=1e-12)
check_close("full coverage: the plain error rate 1/2", selective_risk(loss, np.ones(6, dtype=bool)),
            [1.0, 0.5], rtol=1e-12)

# 2. Against enumeration: for every distinct threshold, build g by an explicit loop and evaluate
#    E[loss g] / E[g] directly. Confidences rounded to 2 decimals so many ties occur; real-valued
#    losses (e.g. a squared error) as well as 0/1 losses.
rng = np.random.default_rng(0)
n = 400
c = np.round(rng.uniform(0.2, 1.0, n), 2)
for name, lo in (("0/1 loss", (rng.random(n) > c).astype(float)),
                 ("real-valued loss", rng.exponential(size=n))):
    cov, risk = risk_coverage_curve(c, lo)
    enum_cov, enum_risk = [], []
    for theta in sorted(set(c.tolist()), reverse=True):
        g = [1.0 if ci >= theta else 0.0 for ci in c]
        enum_cov.append(sum(g) / n)
        enum_risk.append(sum(li * gi for li, gi in zip(lo, g, strict=True)) / sum(g))
    check_close(f"{name}: curve vs enumeration of all {len(enum_cov)} thresholds (ties included)",
                np.r_[cov, risk], np.r_[enum_cov, enum_risk], rtol=1e-12)
    check_true(f"{name}: one point per distinct confidence, coverage increasing to 1",
               len(cov) == len(set(c.tolist())) and bool(np.all(np.diff(cov) > 0)) and cov[-1] == 1.0)

# 3. Orderings. An oracle confidence (right answers first) has zero risk up to coverage 1 - error;
#    a confidence independent of correctness has, on average, the overall error at every coverage.
err = (rng.random(2000) < 0.3).astype(float)
cov_o, risk_o = risk_coverage_curve(1.0 - err + 1e-6 * rng.random(2000), err)
check_true("oracle: risk 0 for every coverage up to 1 - error rate",
           bool(np.all(risk_o[cov_o <= 1 - err.mean()] == 0)))
curves = [risk_coverage_curve(rng.random(2000), err)[1][999] for _ in range(200)]
check_close("random confidence: mean risk at 50% coverage vs overall error (4 s.e.)", np.mean(curves),
            err.mean(), atol=4 * np.std(curves) / np.sqrt(200))

# Figure: an informative confidence (misclassifications tend to have low confidence).
n = 3000
conf_f = rng.uniform(0.3, 1.0, n)
wrong = (rng.random(n) > conf_f).astype(float)
fig, ax = figure("Risk-coverage curves", "coverage (fraction answered)", "selective risk (error on answered)")
for label, cc in (("confidence = P(correct)", conf_f), ("random order", rng.random(n)),
                  ("oracle", 1 - wrong + 1e-6 * rng.random(n))):
    cv, rk = risk_coverage_curve(cc, wrong)
    ax.plot(cv, rk, label=label)
ax.legend()
