"""Switch (top-1) routing: output against an explicit loop, the gate is the un-renormalized router
probability, and through it the router gets a gradient (finite differences), unlike renormalized top-1."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax


# --- formula ---
def switch_layer(x, W_r, experts):
    """p = softmax(x W_r); each token goes to i = argmax p and the output is p_i(x) E_i(x)."""
    h = x @ W_r
    p = np.exp(h - np.max(h, axis=1, keepdims=True))
    p = p / np.sum(p, axis=1, keepdims=True)
    choice = np.argmax(p, axis=1)
    gate = p[np.arange(len(x)), choice]
    y = np.zeros_like(x)
    for i, expert in enumerate(experts):
        sel = choice == i
        y[sel] = gate[sel, None] * expert(x[sel])
    return y, choice, gate
# --- end formula ---


rng = np.random.default_rng(0)
T, d, n = 40, 6, 5
x = rng.normal(size=(T, d))
W_r = rng.normal(size=(d, n))
A = rng.normal(size=(n, d, d)) / np.sqrt(d)
experts = [lambda z, i=i: np.tanh(z @ A[i]) for i in range(n)]

y, choice, gate = switch_layer(x, W_r, experts)

# 1. Against a per-token loop with scipy's softmax.
p_ref = softmax(x @ W_r, axis=1)
y_ref = np.stack([p_ref[t].max() * experts[int(np.argmax(p_ref[t]))](x[t:t + 1])[0] for t in range(T)])
check_close("Switch output == per-token loop p_max(x) E_argmax(x)", y, y_ref, rtol=1e-12, atol=1e-15)
check_close("chosen expert == argmax of the router logits", choice, np.argmax(x @ W_r, axis=1), rtol=0)

# 2. The gate is the router probability itself, not renormalized to 1: strictly between 1/n and 1.
check_true("gates lie in (1/n, 1): the output is scaled by the router's confidence",
           bool(np.all((gate > 1 / n) & (gate < 1))), f"gates from {gate.min():.2f} to {gate.max():.2f}")

# 3. That scaling is what trains the router: d y / d logits is non-zero (finite differences against the
#    analytic p_i (delta_ij - p_j) E_i(x)), whereas renormalizing a single gate to 1 makes it vanish.
t, h = 3, 1e-6
i = choice[t]
analytic = np.outer(p_ref[t, i] * ((np.arange(n) == i) - p_ref[t]), experts[i](x[t:t + 1])[0])
fd = np.zeros((n, d))
for j in range(n):
    def out(shift, j=j):
        W = W_r.copy()
        W[:, j] += shift * x[t] / (x[t] @ x[t])          # moves logit j of token t by `shift`
        return switch_layer(x[t:t + 1], W, experts)[0][0]
    fd[j] = (out(h) - out(-h)) / (2 * h)
check_close("dy/dlogits == p_i (delta_ij - p_j) E_i(x) (finite differences)",
            fd, analytic, rtol=1e-6, atol=1e-9)
check_true("router gradient is non-zero (renormalized top-1 would give exactly 0)", np.abs(fd).max() > 1e-2)

# 4. Wide logits (an unstable router, span > 1000): the max-shifted softmax stays finite, gates -> 1.
y_w, choice_w, gate_w = switch_layer(x, W_r * 500.0, experts)
check_true("wide logits: finite outputs, same arg-max",
           bool(np.all(np.isfinite(y_w)) and np.all(choice_w == choice)))
check_close("wide logits: gate == scipy softmax max",
            gate_w, softmax(x @ W_r * 500.0, axis=1).max(1), rtol=1e-12)
