"""Teacher forcing: parallel pass vs step-by-step loop; exp(-loss) vs free-running Monte-Carlo."""

import itertools

import numpy as np
from cardcheck import check_close
from scipy.special import log_softmax, softmax

rng = np.random.default_rng(0)
V, T, D = 3, 4, 6  # vocabulary, target length, state size
W_DECAY = 0.6
EMB = rng.normal(size=(V, D))          # token embeddings
W_OUT = rng.normal(size=(D, V)) * 1.5  # output projection
x = rng.normal(size=D)                 # conditioning input (a prompt or source encoding)


# --- formula ---
def tf_loss_parallel(y: np.ndarray) -> float:
    """-sum_t log p(y*_t | x, y*_<t) for all t at once: a strictly causal mixing matrix
    (M[t, s] = w^(t-s) for s < t) plays the role of the causal attention mask."""
    steps = np.arange(len(y))
    t_idx, s_idx = steps[:, None], steps[None, :]
    mask = np.where(s_idx < t_idx, W_DECAY ** (t_idx - s_idx), 0.0)
    logits = np.tanh(x + mask @ EMB[y]) @ W_OUT
    return float(-log_softmax(logits, axis=1)[steps, y].sum())
# --- end formula ---


def tf_loss_sequential(y: np.ndarray) -> float:
    """The same model run one step at a time, feeding the gold previous token at each step."""
    state, loss = np.zeros(D), 0.0
    for t in range(T):
        if t > 0:
            state = W_DECAY * (state + EMB[y[t - 1]])
        loss -= log_softmax(np.tanh(x + state) @ W_OUT)[y[t]]
    return loss


all_seqs = np.array(list(itertools.product(range(V), repeat=T)))
losses = np.array([tf_loss_parallel(y) for y in all_seqs])

# 1. The parallel (training-time) computation matches the sequential one for every target.
check_close("parallel causal-mask pass = step-by-step loop, all 81 targets", losses,
            [tf_loss_sequential(y) for y in all_seqs])

# 2. exp(-L_TF) is a proper distribution over targets: the loss is the sequence NLL.
check_close("sum over all targets of exp(-L_TF) = 1", np.exp(-losses).sum(), 1.0)

# 3. Free-running generation: sample N sequences, each step conditioned on the model's OWN
# previous samples. The gold sequence appears with frequency exp(-L_TF(y*)).
gold = all_seqs[np.argsort(losses)[2]]  # a likely target that is not one repeated token
N = 400_000
state = np.zeros((N, D))
samples = np.zeros((N, T), dtype=int)
for t in range(T):
    if t > 0:
        state = W_DECAY * (state + EMB[samples[:, t - 1]])
    cdf = np.cumsum(softmax(np.tanh(x + state) @ W_OUT, axis=1), axis=1)
    samples[:, t] = (rng.random((N, 1)) > cdf).sum(axis=1)
frequency = np.mean(np.all(samples == gold, axis=1))
check_close(f"exp(-L_TF) vs frequency of y* = {gold.tolist()} in {N:,} free-running samples",
            np.exp(-tf_loss_parallel(gold)), frequency, rtol=0.03)
