"""Temperature sampling: softmax(z/tau) against scipy, its limits, the entropy-temperature identity,
and the frequencies of a Gumbel-max sampler."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import AMATEUR_LOGITS, EXPERT_LOGITS, TOKENS, V, check_frequencies
from scipy.special import softmax
from scipy.stats import entropy


# --- formula ---
def temperature_probs(z, tau):
    """p_i = exp(z_i / tau) / sum_j exp(z_j / tau) over the last axis, with the max-shift."""
    s = np.asarray(z, dtype=float) / tau
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sample_with_temperature(z, tau, rng, n):
    """n draws from softmax(z / tau) by the Gumbel-max trick: argmax_i (z_i / tau + G_i)."""
    z = np.asarray(z, dtype=float)
    return np.argmax(z / tau + rng.gumbel(size=(n, z.size)), axis=1)
# --- end formula ---


rng = np.random.default_rng(0)
z = EXPERT_LOGITS
batch = np.stack([EXPERT_LOGITS, AMATEUR_LOGITS, 4.0 * rng.normal(size=V)])

# 1. softmax(z / tau) against scipy.special.softmax, row by row on a batch of three logit vectors.
for tau in (0.25, 0.7, 1.0, 1.5, 3.0):
    check_close(f"tau = {tau}: batch of 3 logit rows vs scipy.special.softmax(z / tau, axis=-1)",
                temperature_probs(batch, tau), softmax(batch / tau, axis=-1), rtol=1e-12)
check_close("tau = 1 leaves the model's distribution unchanged", temperature_probs(z, 1.0),
            softmax(z), rtol=1e-12)

# 2. Numerics: at tau = 0.005 the scaled logits span 1230, beyond exp's range without the shift.
check_close("tau = 0.005 (scaled logits span > 1200) vs scipy", temperature_probs(batch, 0.005),
            softmax(batch / 0.005, axis=-1), rtol=1e-12, atol=1e-300)

# 3. Limits. tau -> 0: all mass on the argmax (greedy); tau -> infinity: uniform over the V tokens.
p_cold = temperature_probs(z, 0.02)
check_close("tau = 0.02: probability of the top token is 1 (gap 0.65 / 0.02 = 32.5 nats)",
            p_cold[np.argmax(z)], 1.0, rtol=1e-12)
check_close("tau = 1e6: every token has probability 1/V", temperature_probs(z, 1e6),
            np.full(V, 1.0 / V), rtol=1e-5)

# 4. Entropy rises with temperature, at the rate dH/dtau = Var_p(z) / tau^3 (from H = log Z - E[z]/tau).
taus = np.geomspace(0.05, 20.0, 200)
H = np.array([entropy(temperature_probs(z, t)) for t in taus])
check_true("entropy strictly increases with tau from 0.05 to 20", bool(np.all(np.diff(H) > 0)),
           f"H goes from {H[0]:.2e} to {H[-1]:.4f} nats (log V = {np.log(V):.4f})")
for t in (0.3, 1.0, 2.5):
    h = 1e-5 * t
    fd = (entropy(temperature_probs(z, t + h)) - entropy(temperature_probs(z, t - h))) / (2 * h)
    p = temperature_probs(z, t)
    var = p @ z**2 - (p @ z) ** 2
    check_close(f"tau = {t}: central difference of H vs Var_p(z) / tau^3", fd, var / t**3, rtol=1e-6)

# 5. The sampler: Gumbel-max draws follow softmax(z / tau) (scipy), and at tau = 0.02 are greedy.
for tau in (0.7, 2.0):
    draws = sample_with_temperature(z, tau, rng, 200_000)
    check_frequencies(f"tau = {tau}: Gumbel-max sampler vs scipy softmax(z / tau)", draws,
                      softmax(z / tau))
cold = sample_with_temperature(z, 0.02, rng, 20_000)
check_true("tau = 0.02: all 20000 draws are the greedy token", bool(np.all(cold == np.argmax(z))),
           f"{np.count_nonzero(cold != np.argmax(z))} draws differ from '{TOKENS[np.argmax(z)]}'")

# --- in code: torch ---
import torch  # noqa: E402

# A softmax of 3 x V logits over tau, a few ulps per term: 1e-12.
zt = torch.tensor(batch)
check_close("torch.softmax(z / tau, dim=-1) = p^(tau), three rows, tau = 0.7",
            torch.softmax(zt / 0.7, dim=-1).numpy(), temperature_probs(batch, 0.7), rtol=1e-12)
check_close("Categorical(logits=z / tau).probs = p^(tau)",
            torch.distributions.Categorical(logits=zt / 0.7).probs.numpy(), temperature_probs(batch, 0.7),
            rtol=1e-12)
# Categorical's first argument is probs, not logits: positive logits passed bare are normalized
# linearly, z_i / sum_j z_j, with no exponential (and torch.multinomial likewise takes weights).
shifted = batch - batch.min(axis=-1, keepdims=True) + 1.0        # positive, so probs accepts them
check_close("pitfall: Categorical(z) reads z as probabilities: z / sum(z), not softmax(z)",
            torch.distributions.Categorical(torch.tensor(shifted)).probs.numpy(),
            shifted / shifted.sum(axis=-1, keepdims=True), rtol=1e-12)
check_true("which is far from softmax(z)",
           np.abs(shifted / shifted.sum(axis=-1, keepdims=True) - temperature_probs(batch, 1.0)).max() > 1e-2)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
check_close("jax.nn.softmax(z / tau) = p^(tau), three rows, tau = 0.7",
            np.asarray(jax.nn.softmax(jax.numpy.asarray(batch) / 0.7, axis=-1)),
            temperature_probs(batch, 0.7), rtol=1e-12)
# jax.random.categorical(key, logits) takes logits: it draws by the Gumbel-max trick, as the card's
# sampler does. Its counts over 20 000 draws at tau = 0.7 must pass the fixture's chi-square test
# against p^(tau) at level 1e-3, like the card's own sampler above (fixed key).
draws_jax = np.asarray(jax.random.categorical(jax.random.key(0), jax.numpy.asarray(z) / 0.7,
                                             shape=(20_000,)))
check_frequencies("jax.random.categorical(key, z / tau): draw frequencies vs p^(tau)", draws_jax,
                  temperature_probs(z, 0.7))
# --- end in code ---

fig, ax = figure("One next-token distribution at three temperatures", "token rank",
                 "probability (log scale)")
for tau, style in ((0.5, "o-"), (1.0, "s-"), (2.0, "^-")):
    ax.plot(np.arange(1, V + 1), temperature_probs(z, tau), style, markersize=4,
            label=rf"$\tau$ = {tau}")
ax.set_yscale("log")
ax.set_xticks(range(1, V + 1, 2))
ax.legend()

fig2, ax2 = figure("Entropy of the tempered distribution", r"temperature $\tau$ (log scale)",
                   "entropy H (nats)")
ax2.plot(taus, H, label=r"$H(\operatorname{softmax}(z/\tau))$")
ax2.axhline(np.log(V), color="gray", ls=":", label=r"$\log V$ (uniform)")
ax2.axvline(1.0, color="gray", ls="--", lw=1, label=r"$\tau$ = 1 (model as trained)")
ax2.set_xscale("log")
ax2.legend()
