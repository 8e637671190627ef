"""Auxiliary-loss-free load balancing: top-K selection by score + bias with gates from the score alone,
and the sign update of the bias, against a sorted loop; a routing simulation with skewed experts in which
the loads balance (within a few standard errors of the batch noise) while every gate stays the raw score."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def route(scores, bias, k, normalize=False):
    """Gates (tokens, experts): s_it where s_it + b_i is among the token's k largest, else 0. The bias
    chooses; the gate is the score. normalize=True divides the chosen scores by their sum (DeepSeek-V3)."""
    biased = scores + bias
    kth = np.sort(biased, axis=1)[:, -k][:, None]
    gates = np.where(biased >= kth, scores, 0.0)
    if normalize:
        gates = gates / gates.sum(axis=1, keepdims=True)
    return gates


def update_bias(bias, load, u):
    """b_i <- b_i + u sign(mean load - load_i): overloaded experts are pushed down, idle ones up."""
    return bias + u * np.sign(load.mean() - load)
# --- end formula ---


rng = np.random.default_rng(0)
E, K, B = 8, 2, 512


def loop_route(scores, bias, k, normalize):
    """Per token: sort experts by biased score in Python, keep the first k, gate by the raw score."""
    out = np.zeros_like(scores)
    for t, row in enumerate(scores):
        chosen = sorted(range(len(row)), key=lambda i: -(row[i] + bias[i]))[:k]
        total = sum(row[i] for i in chosen)
        for i in chosen:
            out[t, i] = row[i] / total if normalize else row[i]
    return out


def loop_update(bias, load, u):
    mean = sum(load) / len(load)
    return np.array([b + u if c < mean else b - u if c > mean else b
                     for b, c in zip(bias, load, strict=True)])


s = 1 / (1 + np.exp(-rng.normal(size=(40, E))))
b = rng.normal(0, 0.3, E)
for norm in (False, True):
    check_close(f"route (normalize={norm}) = sorted loop", route(s, b, K, norm), loop_route(s, b, K, norm),
                rtol=1e-15)
check_close("the bias selects but never enters a gate: chosen gates equal the raw scores",
            route(s, b, K)[route(s, b, K) > 0], s[route(s, b, K) > 0], rtol=0)
check_close("a bias shared by all experts changes nothing", route(s, b + 5.0, K), route(s, b, K), rtol=0)
load = np.array([10.0, 2.0, 6.0, 6.0])
check_close("update by hand: loads 10, 2, 6, 6 (mean 6) -> -u, +u, 0, 0",
            update_bias(np.zeros(4), load, 0.001), [-0.001, 0.001, 0.0, 0.0], rtol=1e-15)
counts = rng.integers(0, 50, E).astype(float)
check_close("update = loop with explicit branches",
            update_bias(b, counts, 0.001), loop_update(b, counts, 0.001), rtol=1e-15)

# Simulation. Each token's affinities are sigmoid(x . w_i + skew_i): experts 0 and 1 are favoured by up to
# +1.5 in logit, so unbiased top-2 routing overloads them. The bias is updated after every batch with the
# paper's u = 0.001; the loads are compared over the last 400 batches.
w = rng.normal(size=(16, E)) / 4
skew = np.array([1.5, 1.0, 0.3, 0.0, -0.2, -0.5, -0.8, -1.2])
steps = 1500
bias = np.zeros(E)
loads, loads_plain, max_vio, max_vio_plain = [], [], [], []
for step in range(steps):
    x = rng.normal(size=(B, 16))
    scores = 1 / (1 + np.exp(-(x @ w + skew)))
    gates = route(scores, bias, K)
    load = (gates > 0).sum(axis=0).astype(float)
    plain = (route(scores, np.zeros(E), K) > 0).sum(axis=0).astype(float)
    loads.append(load)
    loads_plain.append(plain)
    max_vio.append(load.max() / load.mean() - 1)
    max_vio_plain.append(plain.max() / plain.mean() - 1)
    if step == steps - 1:
        last = (scores, gates)
    bias = update_bias(bias, load, 0.001)

tail = np.array(loads[-400:])
expected = B * K / E
mean_load = tail.mean(axis=0)
# Standard error of each expert's mean load from the batch-to-batch spread (batches are close to
# independent: the bias moves by at most 0.001 per batch).
se = tail.std(axis=0, ddof=1) / np.sqrt(len(tail))
worst = np.max(np.abs(mean_load - expected) / se)
check_true("with the bias: every expert's mean load within 5 standard errors of B K / E = 128",
           worst < 5, f"loads {np.round(mean_load, 1).tolist()}, worst {worst:.1f} standard errors")
plain_mean = np.array(loads_plain[-400:]).mean(axis=0)
check_true("without it: expert 0 carries over twice its share", plain_mean[0] > 2 * expected,
           f"{plain_mean[0]:.0f} tokens vs {expected:.0f}")
check_true("MaxVio over the last 400 batches: below 0.25 with the bias, above 1 without",
           np.mean(max_vio[-400:]) < 0.25 < 1 < np.mean(max_vio_plain[-400:]),
           f"{np.mean(max_vio[-400:]):.3f} vs {np.mean(max_vio_plain[-400:]):.3f}")
check_true("the learned bias ranks experts opposite to their skew", bool(np.all(np.diff(bias) > -0.02))
           and bias[0] < bias[-1], f"bias {np.round(bias, 3).tolist()}")
scores_last, gates_last = last
chosen = gates_last > 0
check_close("after training the gates are still the raw affinities of the chosen experts", gates_last[chosen],
            scores_last[chosen], rtol=0)
check_true("...while the chosen set differs from the unbiased top-2 on many tokens",
           np.mean(np.any(chosen != (route(scores_last, np.zeros(E), K) > 0), axis=1)) > 0.2)

fig, ax = figure("Load imbalance per batch (8 experts, top-2)", "batch", "MaxVio = max load / mean load − 1")
ax.plot(max_vio_plain, lw=0.6, label="no balancing")
ax.plot(max_vio, lw=0.6, label="bias updated with u = 0.001")
ax.legend(fontsize=8)
