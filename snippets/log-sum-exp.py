"""Log-sum-exp: checked against scipy (logits spanning 2000 nats), exact values at ±1000, and its bounds."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp as scipy_logsumexp


# --- formula ---
def log_sum_exp(z: np.ndarray) -> float:
    """log sum_i exp(z_i) = m + log sum_i exp(z_i - m), with m = max_i z_i."""
    m = np.max(z)
    return float(m + np.log(np.sum(np.exp(z - m))))
# --- end formula ---


def naive(z: np.ndarray) -> float:
    with np.errstate(over="ignore", divide="ignore"):
        return float(np.log(np.sum(np.exp(z))))


rng = np.random.default_rng(0)
z = rng.normal(scale=5.0, size=1000)
check_close("shifted form vs scipy.special.logsumexp", log_sum_exp(z), scipy_logsumexp(z),
            rtol=1e-13)
check_close("shifted form equals the naive one where the naive one is safe", log_sum_exp(z),
            naive(z), rtol=1e-13)

# Logits around +1000: exp overflows. Exact answer: log(e^1000 + 3 e^1000) = 1000 + log 4.
high = np.array([1000.0, 1000.0 + np.log(3.0)])
check_true("naive evaluation overflows to inf at z ~ 1000", naive(high) == np.inf,
           f"naive = {naive(high)}")
check_close("z = [1000, 1000 + log 3] gives 1000 + log 4", log_sum_exp(high),
            1000.0 + np.log(4.0), rtol=1e-15)
noisy = 1000.0 + rng.normal(scale=5.0, size=32000)
check_close("32k logits around 1000 vs scipy", log_sum_exp(noisy), scipy_logsumexp(noisy),
            rtol=1e-13)

# Logits spread over [-1000, 1000]: only the shift by the maximum keeps every exp(z - m) <= 1.
# Shifting by the minimum or the mean would overflow (z - m reaches ~2000 or ~1000, past ~709).
wide = rng.uniform(-1000.0, 1000.0, size=4000)
check_close("logits spanning 2000 nats vs scipy.special.logsumexp", log_sum_exp(wide),
            scipy_logsumexp(wide), rtol=1e-13)
skewed = np.concatenate([rng.normal(-1000.0, 3.0, size=999), [-150.0]])
check_close("999 logits near -1000 and one at -150: LSE = -150 + log(1 + tiny) vs scipy",
            log_sum_exp(skewed), scipy_logsumexp(skewed), rtol=1e-13)

# Logits around -1000: every exp underflows to 0 and the naive log gives -inf.
low = np.full(8, -1000.0)
check_true("naive evaluation underflows to -inf at z ~ -1000", naive(low) == -np.inf,
           f"naive = {naive(low)}")
check_close("eight logits of -1000 give -1000 + log 8", log_sum_exp(low), -1000.0 + np.log(8.0),
            rtol=1e-15)

# A smooth maximum: max(z) <= LSE(z) <= max(z) + log V, with the upper end reached at equal logits.
rows = rng.normal(scale=3.0, size=(500, 16))
lse = np.array([log_sum_exp(r) for r in rows])
check_true("max(z) <= LSE(z) <= max(z) + log V on 500 random vectors",
           bool(np.all(rows.max(1) <= lse) and np.all(lse <= rows.max(1) + np.log(16) + 1e-12)))

# --- in code: scipy ---
# `rows` (500 x 16): scipy.special.logsumexp reduces over the whole array unless told the axis.
check_close("scipy.special.logsumexp(Z, axis=-1) = LSE of each row", scipy_logsumexp(rows, axis=-1), lse,
            rtol=1e-13)
check_close("pitfall: the default axis=None is one LSE over all 500 x 16 logits",
            scipy_logsumexp(rows), log_sum_exp(rows.ravel()), rtol=1e-13)
check_close("b= weights each exp: logsumexp(z, b=1/V) is the log-mean-exp, LSE - log V",
            scipy_logsumexp(rows[0], b=1 / 16), log_sum_exp(rows[0]) - np.log(16), rtol=1e-13)
masked = np.full(4, -np.inf)  # a row whose every logit is masked out
with np.errstate(invalid="ignore"):
    shifted = log_sum_exp(masked)
check_true("every logit -inf: scipy gives -inf, the max-shifted form as written gives nan",
           scipy_logsumexp(masked) == -np.inf and np.isnan(shifted), f"scipy {scipy_logsumexp(masked)}, "
           f"shifted {shifted}")
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402

check_close("torch.logsumexp(x, dim=-1) = LSE of each row",
            torch.logsumexp(torch.tensor(rows), dim=-1).numpy(), lse, rtol=1e-13)
try:
    torch.logsumexp(torch.tensor(rows))
    no_dim = "accepted"
except TypeError:
    no_dim = "TypeError"
check_true("dim has no default: a call without it raises, unlike scipy's axis=None", no_dim == "TypeError",
           no_dim)
check_true("every logit -inf gives -inf, as in scipy",
           torch.logsumexp(torch.tensor(masked), dim=0).item() == -np.inf)
# --- end in code ---

# Two-argument case LSE(x, 0) = log(1 + e^x) (softplus): it hugs max(x, 0), at most log 2 above it.
x = np.linspace(-6, 6, 400)
fig, ax = figure("Log-sum-exp as a smooth maximum", "x", "value")
ax.plot(x, [log_sum_exp(np.array([xi, 0.0])) for xi in x], label="LSE(x, 0)")
ax.plot(x, np.maximum(x, 0), ls="--", label="max(x, 0)")
ax.plot(x, np.maximum(x, 0) + np.log(2), ls=":", label="max(x, 0) + log 2")
ax.legend()
