"""Speculative decoding: (1 - a^(g+1)) / (1 - a) vs the truncated-geometric sum and simulated sampling."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def expected_tokens(alpha, gamma: int):
    """Expected tokens per target-model call with gamma drafted tokens and acceptance rate alpha."""
    alpha = np.asarray(alpha, dtype=float)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
# --- end formula ---


# Direct expectation: j drafts accepted then a rejection (prob alpha^j (1 - alpha)) yields j + 1 tokens;
# all gamma accepted (prob alpha^gamma) yields gamma + 1 tokens (the target adds one of its own).
alphas = np.linspace(0.05, 0.95, 19)
for gamma in (1, 3, 7):
    direct = sum((j + 1) * alphas**j * (1 - alphas) for j in range(gamma)) + (gamma + 1) * alphas**gamma
    check_close(f"closed form vs direct expectation, gamma = {gamma}", expected_tokens(alphas, gamma), direct)

# Simulate speculative sampling (Leviathan et al. Algorithm 1) on a toy vocabulary with a fixed target p
# and draft q, so the acceptance rate is the same at every position.
rng = np.random.default_rng(0)
vocab, gamma, iters = 12, 4, 200_000
p = rng.dirichlet(np.ones(vocab))
q = rng.dirichlet(np.ones(vocab))
alpha = np.minimum(p, q).sum()          # E_{x~q} min(1, p(x)/q(x)) = 1 - total variation distance
residual = np.maximum(p - q, 0.0)
residual /= residual.sum()

drafts = rng.choice(vocab, size=(iters, gamma), p=q)
accept = rng.random((iters, gamma)) < np.minimum(1.0, p[drafts] / q[drafts])
n_accepted = np.where(accept.all(axis=1), gamma, np.argmin(accept, axis=1))
all_ok = n_accepted == gamma
extra = np.where(all_ok, rng.choice(vocab, size=iters, p=p), rng.choice(vocab, size=iters, p=residual))
tokens = n_accepted + 1

se = tokens.std() / np.sqrt(iters)
check_close("E[#tokens] vs simulated speculative sampling", expected_tokens(alpha, gamma), tokens.mean(),
            atol=4 * se, rtol=0)
first_accept = accept[:, 0].mean()
check_close("alpha = sum_x min(p, q) vs simulated acceptance of the first draft", alpha, first_accept,
            atol=4 * np.sqrt(alpha * (1 - alpha) / iters), rtol=0)

# The emitted tokens (accepted drafts plus the one corrected or bonus token) follow the target p.
kept = drafts[np.arange(gamma)[None, :] < n_accepted[:, None]]
emitted = np.concatenate([kept, extra])
freq = np.bincount(emitted, minlength=vocab) / len(emitted)
check_true("emitted tokens are distributed as the target p",
           np.max(np.abs(freq - p)) < 4 * np.sqrt(p.max() / len(emitted)),
           f"max |freq - p| = {np.max(np.abs(freq - p)):.4f}")

# --- in code: transformers ---
import torch  # noqa: E402
from hf_table_lm import TableLM  # noqa: E402

# transformers' assisted generation runs Algorithm 1 when sampling: the draft proposes, the target
# verifies all of them in one forward pass. Target p and draft q as tables that ignore the prefix,
# with q close to p so that alpha is high and the number of drafts matters.
q_near = 0.8 * p + 0.2 * rng.dirichlet(np.ones(vocab))
alpha_near = np.minimum(p, q_near).sum()


def tokens_per_target_call(n_new, **draft_settings):
    """Generate n_new tokens with the draft as assistant; new tokens over the target's forward passes."""
    target = TableLM(np.tile(np.log(p), (vocab + 1, 1)))
    draft = TableLM(np.tile(np.log(q_near), (vocab + 1, 1)))
    for name, value in draft_settings.items():
        setattr(draft.generation_config, name, value)
    calls, forward = [0], target.forward

    def counted(*args, **kwargs):
        calls[0] += 1
        return forward(*args, **kwargs)

    target.forward = counted
    out = target.generate(target.start(), assistant_model=draft, do_sample=True, top_k=0,
                          max_new_tokens=n_new)
    return (out.shape[1] - 1) / calls[0], calls[0]


# Tokens per call are j + 1 with probability alpha^j (1 - alpha) for j < gamma, gamma + 1 with
# alpha^gamma; their standard deviation over the number of calls gives the standard error, and the
# last call, cut short by max_new_tokens, moves the mean by less than gamma / calls.
torch.manual_seed(0)
fixed, n_calls = tokens_per_target_call(1200, num_assistant_tokens=gamma,
                                        num_assistant_tokens_schedule="constant",
                                        assistant_confidence_threshold=0.0)
counts = np.arange(1, gamma + 2)
probs = np.append(alpha_near ** np.arange(gamma) * (1 - alpha_near), alpha_near**gamma)
sd = np.sqrt(probs @ counts**2 - (probs @ counts) ** 2)
check_close(f"assistant_model, num_assistant_tokens = {gamma}, constant: tokens per target call = E[#tokens]",
            fixed, expected_tokens(alpha_near, gamma),
            atol=4 * sd / np.sqrt(n_calls) + gamma / n_calls, rtol=0)
torch.manual_seed(0)
default, _ = tokens_per_target_call(400)
check_true("pitfall: by default the draft is not gamma = num_assistant_tokens = 20 tokens: it stops once its "
           "own probability falls below assistant_confidence_threshold = 0.4",
           default < expected_tokens(alpha_near, 20) - 1.0,
           f"{default:.2f} tokens per call; E[#tokens] for gamma = 20: {expected_tokens(alpha_near, 20):.2f}")
# --- end in code ---

a = np.linspace(0, 0.99, 200)
fig, ax = figure("Speculative decoding: tokens per target call", "acceptance rate  α",
                 "expected tokens per target call")
for g in (1, 2, 4, 8):
    ax.plot(a, expected_tokens(a, g), label=f"γ = {g}")
ax.legend()

# The page's calculator is checked against expected_tokens on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda alpha, gamma: float(expected_tokens(alpha, int(gamma))),
               cardcalc.grid(alpha=(0.0, 0.3, 0.8, 0.99), gamma=(0, 1, 4, 16)))
