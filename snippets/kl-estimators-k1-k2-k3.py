"""KL estimators k1, k2, k3 of KL(q || p) from samples of q: means and variances by simulation against
the closed-form Gaussian KL and exact moments, exact expectations on a vocabulary, k3 >= 0, and what
each estimator's gradient estimates when it is differentiated as a loss."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.special import log_softmax
from scipy.stats import entropy, norm


# --- formula ---
def kl_estimators(logq, logp):
    """Per-sample k1 = -log r, k2 = (log r)^2 / 2, k3 = (r - 1) - log r with r = p(x) / q(x), x ~ q."""
    log_r = logp - logq
    k1 = -log_r
    k2 = 0.5 * log_r**2
    k3 = np.exp(log_r) - 1 - log_r
    return k1, k2, k3
# --- end formula ---


def gaussian_kl(m1, s1, m2, s2):
    """KL(N(m1, s1^2) || N(m2, s2^2)) in closed form (the Gaussian KL card)."""
    return np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5


def se_of_variance(x):
    """Standard error of the sample variance: sqrt((m4 - s^4) / n), central moments from the samples."""
    c = x - x.mean()
    return np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / len(x))


rng = np.random.default_rng(0)
n = 200_000
Z = 5.0  # every Monte-Carlo check allows 5 standard errors, computed from the same samples

# 1. q = N(0, 1), p = N(mu, 1): KL(q || p) = mu^2 / 2 and log r = mu x - mu^2 / 2 is Gaussian, so every
#    moment is exact: Var k1 = mu^2; E k2 = mu^2/2 + mu^4/8 (bias mu^4/8), Var k2 = mu^4/2 + mu^6/4;
#    E k3 = mu^2/2 with Var k3 = e^{mu^2} - 1 - mu^2 (E r = 1, E r^2 = e^{mu^2}, Cov(r, log r) = mu^2).
x = rng.standard_normal(n)
for mu in (0.1, 1.0):
    k1, k2, k3 = kl_estimators(norm.logpdf(x), norm.logpdf(x, loc=mu))
    kl = mu**2 / 2
    exact_var = {"k1": mu**2, "k2": mu**4 / 2 + mu**6 / 4, "k3": np.exp(mu**2) - 1 - mu**2}
    for name, k, mean in (("k1", k1, kl), ("k2", k2, kl + mu**4 / 8), ("k3", k3, kl)):
        se = k.std() / np.sqrt(n)
        check_close(f"mu = {mu}: sample mean of {name} = {mean:.6g} within {Z:.0f} SE", k.mean(), mean,
                    rtol=0, atol=Z * se)
        check_close(f"mu = {mu}: sample variance of {name} = exact {exact_var[name]:.6g} within {Z:.0f} SE",
                    k.var(), exact_var[name], rtol=0, atol=Z * se_of_variance(k))
    print(f"mu = {mu}: KL = {kl}, std/KL  k1 {k1.std() / kl:.3g}  k2 {k2.std() / kl:.3g}  "
          f"k3 {k3.std() / kl:.3g}")
    # The same moments by numerical integration against q's density (quad, relative error ~1e-11).
    for name, j, mean in (("k1", 0, kl), ("k2", 1, kl + mu**4 / 8), ("k3", 2, kl)):
        m, _ = quad(lambda t, j=j, mu=mu: kl_estimators(norm.logpdf(t), norm.logpdf(t, loc=mu))[j]
                    * norm.pdf(t), -40, 40, epsabs=0, epsrel=1e-12, limit=200)
        check_close(f"mu = {mu}: E_q[{name}] by quadrature = {mean:.6g}", m, mean, rtol=1e-9)

# k2's bias is real: at mu = 1 the sample mean sits mu^4/8 = 0.125 above KL, dozens of SEs away.
k1, k2, k3 = kl_estimators(norm.logpdf(x), norm.logpdf(x, loc=1.0))
check_true("mu = 1: k2's mean exceeds KL = 0.5 by more than 20 SE (biased); k1, k3 do not",
           (k2.mean() - 0.5) / (k2.std() / np.sqrt(n)) > 20, f"bias {k2.mean() - 0.5:.4f}")
check_true("mu = 1: Var k3 < Var k1 (same samples)", k3.var() < k1.var(),
           f"{k3.var():.4f} < {k1.var():.4f}")

# 2. Unequal widths, q = N(0.3, 1), p = N(-0.2, 0.8^2) (p narrower, so r is bounded): k1 and k3 are
#    unbiased for the closed-form KL; k2 is not. Samples drawn afresh from q.
mq, sq, mp, sp = 0.3, 1.0, -0.2, 0.8
y = mq + sq * rng.standard_normal(n)
kl = gaussian_kl(mq, sq, mp, sp)
k1, k2, k3 = kl_estimators(norm.logpdf(y, mq, sq), norm.logpdf(y, mp, sp))
for name, k in (("k1", k1), ("k3", k3)):
    check_close(f"N(0.3, 1) vs N(-0.2, 0.8^2): mean of {name} = closed-form KL {kl:.5f}", k.mean(), kl,
                rtol=0, atol=Z * k.std() / np.sqrt(n))
check_true("N(0.3, 1) vs N(-0.2, 0.8^2): k2's mean is more than 10 SE from KL",
           abs(k2.mean() - kl) > 10 * k2.std() / np.sqrt(n), f"{k2.mean():.5f} vs {kl:.5f}")

# 3. A vocabulary of 9 tokens: exact expectations by enumeration, KL from scipy.stats.entropy.
q = rng.dirichlet(np.ones(9))
p = rng.dirichlet(np.ones(9))
k1, k2, k3 = kl_estimators(np.log(q), np.log(p))
check_close("vocabulary: sum_x q(x) k1(x) = KL(q || p) (scipy.stats.entropy)", q @ k1, entropy(q, p),
            rtol=1e-12)
check_close("vocabulary: sum_x q(x) k3(x) = KL(q || p)", q @ k3, entropy(q, p), rtol=1e-12)
check_true("vocabulary: sum_x q(x) k2(x) differs from KL by over 1%", abs(q @ k2 / entropy(q, p) - 1) > 0.01,
           f"{q @ k2:.5f} vs {entropy(q, p):.5f}")
check_true("k1 is negative on some tokens (r > 1), k3 on none", bool(np.any(k1 < 0) and np.all(k3 >= 0)))

# 4. k3 >= 0 for every ratio (it is log's tangent-line gap: log r <= r - 1), 0 only at r = 1;
#    near r = 1, k3 and k2 agree to second order, k3 - k2 = (log r)^3 / 6 + O((log r)^4).
log_r = np.linspace(-30, 30, 6001)
_, k2, k3 = kl_estimators(np.zeros_like(log_r), log_r)
check_true("k3 >= 0 for log r in [-30, 30]", bool(np.all(k3 >= 0)), f"min {k3.min():.2e}")
check_true("k3 = 0 exactly at r = 1 and > 0 elsewhere on the grid",
           k3[3000] == 0 and bool(np.all(np.delete(k3, 3000) > 0)))
small = np.array([-1e-2, -1e-3, 1e-3, 1e-2])
_, k2s, k3s = kl_estimators(np.zeros(4), small)
# (log r)^4 / 24 is the next term: relative to (log r)^3 / 6 it is under 0.3% at |log r| = 1e-2;
# the cancellation k3 - k2 loses ~eps / |log r|^3 relative, 2e-10 at 1e-2 and 2e-7 at 1e-3.
check_close("near r = 1: k3 - k2 = (log r)^3 / 6 to leading order", k3s - k2s, small**3 / 6, rtol=3e-3)
check_close("k3 by hand at r = e and r = 1/e: e - 2 and 1/e",
            kl_estimators(np.zeros(2), np.array([1.0, -1.0]))[2], [np.e - 2, np.exp(-1)], rtol=1e-14)

# 5. Differentiated as a loss (sample held fixed, gradient through log q_theta only), the three estimate
#    different gradients (Tang & Munos 2025): E_q[grad k1] = 0, E_q[grad k2] = grad KL(q || p), and
#    E_q[grad k3] = grad KL(p || q), the forward KL. q_theta = softmax(theta) over 6 tokens; per-token
#    gradients and the KL gradients by central differences of scipy's KL.
theta = rng.normal(size=6)
p6 = rng.dirichlet(np.ones(6))
h = 1e-6


def expected_loss_gradient(j):
    qt = np.exp(log_softmax(theta))
    grad = np.zeros(6)
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        up = kl_estimators(log_softmax(theta + e), np.log(p6))[j]
        down = kl_estimators(log_softmax(theta - e), np.log(p6))[j]
        grad[i] = qt @ ((up - down) / (2 * h))  # sample x fixed, averaged over x ~ q_theta
    return grad


def fd(fun):
    out = np.zeros(6)
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        out[i] = (fun(theta + e) - fun(theta - e)) / (2 * h)
    return out


reverse = fd(lambda t: entropy(np.exp(log_softmax(t)), p6))
forward = fd(lambda t: entropy(p6, np.exp(log_softmax(t))))
# Central differences of O(1) quantities: rounding ~64 eps |f| / h ~ 1.4e-8; truncation h^2 ~ 1e-12.
atol = 64 * np.finfo(float).eps * 3 / h
check_close("E_q[grad k1] = 0: the naive loss only adds noise", expected_loss_gradient(0), np.zeros(6),
            atol=atol)
check_close("E_q[grad k2] = grad KL(q || p), the reverse KL", expected_loss_gradient(1), reverse, atol=atol)
check_close("E_q[grad k3] = grad KL(p || q), the forward KL", expected_loss_gradient(2), forward, atol=atol)
check_true("and the forward and reverse KL gradients differ here",
           float(np.max(np.abs(forward - reverse))) > 100 * atol)

# --- in code: trl ---
import torch  # noqa: E402
import trl_fixture  # noqa: E402

# GRPO's KL penalty on G = 4 sampled answers: q = pi_theta (a random tiny language model; the answers are
# its samples) and p = pi_ref (another). With zero advantages and pi_old = pi_theta the surrogate is 0
# and the loss is beta times the mean over answers of each answer's mean per-token estimate.
group = trl_fixture.completion_group()
logq_tok, tok_mask = trl_fixture.group_token_logps(trl_fixture.causal_lm(0), group)
logp_tok, _ = trl_fixture.group_token_logps(trl_fixture.causal_lm(1), group)
inputs = dict(group, advantages=torch.zeros(len(group["completion_ids"]), dtype=torch.float64),
              old_per_token_logps=torch.tensor(logq_tok), ref_per_token_logps=torch.tensor(logp_tok))
per_answer = [np.sum(k * tok_mask, axis=1) / tok_mask.sum(axis=1) for k in kl_estimators(logq_tok, logp_tok)]
# TRL scores pi_theta's tokens in float32 (off by delta): k3 moves by at most delta |1 - r| per token.
delta = 8 * np.finfo(np.float32).eps * (1 + np.abs(logq_tok))
k3_atol = np.max(np.sum(delta * np.abs(1 - np.exp(logp_tok - logq_tok)) * tok_mask, axis=1) / tok_mask.sum(1))
trl_kl = trl_fixture.grpo_trainer_loss(dict(inputs), loss_type="grpo", beta=1.0, use_bias_correction_kl=False)
check_close("GRPOTrainer(beta=1, zero advantages) loss = mean over answers of mean k3 (q = pi_theta)",
            trl_kl, np.mean(per_answer[2]), atol=k3_atol)
check_true("pitfall: TRL's penalty is k3, not the naive log-ratio k1 (no setting picks k1 or k2)",
           abs(trl_kl - np.mean(per_answer[0])) > 100 * k3_atol,
           f"TRL {trl_kl:.5f}, k1 {np.mean(per_answer[0]):.5f}, k3 {np.mean(per_answer[2]):.5f}")
# --- end in code ---

mus = np.linspace(0.02, 2, 100)
fig, ax = figure("Spread of one sample's estimate, q = N(0, 1), p = N(μ, 1)", "true KL = μ²/2",
                 "standard deviation / KL")
ax.loglog(mus**2 / 2, mus / (mus**2 / 2), label="k1 (unbiased)")
ax.loglog(mus**2 / 2, np.sqrt(mus**4 / 2 + mus**6 / 4) / (mus**2 / 2), "--", label="k2 (biased by μ⁴/8)")
ax.loglog(mus**2 / 2, np.sqrt(np.exp(mus**2) - 1 - mus**2) / (mus**2 / 2), ":", label="k3 (unbiased)")
ax.legend()

# The page's calculator is checked against kl_estimators on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): ratios r far below 1, near 1, equal to 1 and far above it.
import cardcalc  # noqa: E402

cardcalc.table(lambda logq, logp: dict(zip(("k1", "k2", "k3"), map(float, kl_estimators(logq, logp)),
                                             strict=True)),
               cardcalc.grid(logq=(-30.0, -2.0, 0.0), logp=(-30.0, -2.5, -0.1, 0.0)))
