"""Mixture-of-Depths: the top-C tokens by router weight pass through the block, their output scaled by the
router weight, the rest skip it; against a per-token loop with a Python sort and the per-position attention
reference, the identity on skipped tokens, the full-capacity limit and the router's gradient."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from transformer_reference import attention as attention_loop
from transformer_sublayers import attn


# --- formula ---
def mod_block(x, w_router, block, capacity):
    """x^{l+1}_i = r_i f_i(X~) + x_i if r_i is among the C largest router weights of the sequence, else
    x_i; X~ holds the chosen tokens in their original order, so f (causal attention) sees only them."""
    r = x @ w_router
    threshold = np.sort(r)[-capacity]
    chosen = np.flatnonzero(r >= threshold)
    out = x.copy()
    out[chosen] = x[chosen] + r[chosen, None] * block(x[chosen])
    return out, chosen
# --- end formula ---


rng = np.random.default_rng(0)
S, d, H, C = 16, 8, 2, 4                       # capacity C = 4 of S = 16 tokens: 25%
params = {"H": H, **{w: rng.normal(size=(d, d)) / np.sqrt(d) for w in ("Wq", "Wk", "Wv", "Wo")}}
x = rng.normal(size=(S, d))
w_router = rng.normal(size=d)


def block(z):
    return attn(z, params)


def loop_reference(x, w_router, capacity):
    """Rank the tokens by router weight with Python's sorted, gather the chosen ones in sequence order,
    run the per-position attention loop on them, and add r_i times its output to each chosen token."""
    r = [float(row @ w_router) for row in x]
    chosen = sorted(sorted(range(len(x)), key=lambda i: -r[i])[:capacity])
    f = attention_loop(x[chosen], params)
    out = x.copy()
    for slot, i in enumerate(chosen):
        out[i] = x[i] + r[i] * f[slot]
    return out, chosen


out, chosen = mod_block(x, w_router, block, C)
ref_out, ref_chosen = loop_reference(x, w_router, C)
check_true("the C = 4 chosen tokens are the 4 largest router weights", chosen.tolist() == ref_chosen,
           f"{chosen.tolist()}")
# Sums of a few dozen O(1) products, in another order: a few ulps, so 1e-12 is ample.
check_close("MoD block = loop (Python sort, per-position attention among the chosen)", out, ref_out,
            rtol=1e-12, atol=1e-14)
skipped = np.setdiff1d(np.arange(S), chosen)
check_close("skipped tokens pass through unchanged (identity)", out[skipped], x[skipped], rtol=0)

# Chosen tokens attend only to each other: changing a skipped token (keeping its router weight low) leaves
# every output the same.
x2 = x.copy()
j = skipped[0]
x2[j] = x[j] - 3.0 * w_router / (w_router @ w_router) * abs(x[j] @ w_router)   # lower its router weight
check_true("a skipped token changed (still skipped): no chosen output moves",
           np.array_equal(mod_block(x2, w_router, block, C)[0][chosen], out[chosen]))

# Full capacity: every token goes through, each scaled by its router weight, i.e. x + r * f(X).
full, _ = mod_block(x, w_router, block, S)
check_close("capacity = S: x + r f(X) over the whole sequence", full,
            x + (x @ w_router)[:, None] * attention_loop(x, params), rtol=1e-12, atol=1e-14)
# Capacity 1: only the token with the largest router weight changes.
one, picked = mod_block(x, w_router, block, 1)
check_true("capacity = 1: only the argmax token changes", picked.tolist() == [int(np.argmax(x @ w_router))]
           and int(np.sum(np.any(one != x, axis=1))) == 1)

# The router is trained through the multiplication by r: for a fixed choice, d(sum of outputs)/d w_router
# = sum over chosen i of (sum_k f_ik) x_i. Central differences, step 1e-6: the sum is O(10) and computed to
# a few dozen ulps, so the error floor is 64 eps 10 / 1e-6, about 1.4e-7.
f_chosen = attention_loop(x[chosen], params)
analytic = (f_chosen.sum(axis=1)[:, None] * x[chosen]).sum(axis=0)
h = 1e-6
numeric = np.array([(mod_block(x, w_router + h * e, block, C)[0].sum()
                     - mod_block(x, w_router - h * e, block, C)[0].sum()) / (2 * h) for e in np.eye(d)])
check_close("router gradient by central differences", numeric, analytic, rtol=1e-6, atol=2e-7)

# Compute: attention over C chosen tokens costs (C/S)^2 of the full block's score matrix, the MLP C/S.
# The page's calculator is checked against mod_block: the rows its block receives give C, hence beta, the
# per-token work C/S and the attention scores among the chosen, C^2 of S^2, from C = 1 to C = S.
import cardcalc  # noqa: E402


def capacity_budget(C, S):
    """Run one MoD block on S random tokens and read C off the rows its block is given."""
    seen = []

    def recording_block(chosen_rows):
        seen.append(len(chosen_rows))
        return chosen_rows

    mod_block(np.random.default_rng(S).normal(size=(S, 4)), np.ones(4), recording_block, C)
    return {"beta": 1 - seen[0] / S, "work": seen[0] / S, "scores": seen[0] ** 2 / S**2}


cardcalc.table(capacity_budget,
               [{"C": C, "S": S} for S in (1, 8, 64, 2048) for C in (1, 8, 256, 2048) if C <= S])

caps = np.array([1, 2, 4, 8, 16])
fig, ax = figure("Cost of one MoD block against a full block", "capacity C / S", "fraction of the full cost")
ax.plot(caps / S, caps / S, "o-", label="per-token work (projections, MLP): C/S")
ax.plot(caps / S, (caps / S) ** 2, "s--", label="attention scores: (C/S)²")
ax.legend(fontsize=8)
