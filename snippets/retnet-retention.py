"""RetNet retention: parallel, recurrent and chunkwise forms checked against each other and against the
defining double sum evaluated term by term, for several heads with the paper's decay rates."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def head_gammas(h):
    """Per-head decay gamma = 1 - 2^{-5 - arange(h)}."""
    return 1.0 - 2.0 ** (-5.0 - np.arange(h))


def retention_parallel(Q, K, V, gamma):
    """(Q K^T . D) V with D_nm = gamma^{n-m} for n >= m, else 0. Q, K: (T, d_k), V: (T, d_v)."""
    T = Q.shape[0]
    n, m = np.arange(T)[:, None], np.arange(T)[None, :]
    D = np.where(n >= m, gamma ** np.maximum(n - m, 0), 0.0)
    return (Q @ K.T * D) @ V


def retention_recurrent(Q, K, V, gamma):
    """S_n = gamma S_{n-1} + K_n^T V_n, o_n = Q_n S_n."""
    S = np.zeros((K.shape[1], V.shape[1]))
    out = []
    for t in range(Q.shape[0]):
        S = gamma * S + np.outer(K[t], V[t])
        out.append(Q[t] @ S)
    return np.array(out)


def retention_chunkwise(Q, K, V, gamma, B):
    """Parallel inside chunks of length B, recurrent across chunks:
    R_i = K_[i]^T (V_[i] . zeta) + gamma^b R_{i-1},  zeta_j = gamma^{b-j-1};
    o_[i] = (Q_[i] K_[i]^T . D) V_[i] + (Q_[i] R_{i-1}) . xi,  xi_j = gamma^{j+1}."""
    R = np.zeros((K.shape[1], V.shape[1]))
    outs = []
    for s in range(0, Q.shape[0], B):
        q, k, v = Q[s:s + B], K[s:s + B], V[s:s + B]
        b = q.shape[0]
        j = np.arange(b)[:, None]
        outs.append(retention_parallel(q, k, v, gamma) + (q @ R) * gamma ** (j + 1))
        R = k.T @ (v * gamma ** (b - j - 1)) + gamma**b * R
    return np.concatenate(outs)
# --- end formula ---


rng = np.random.default_rng(0)
h, T, d_k, d_v = 4, 23, 5, 3
gammas = head_gammas(h)
check_close("gamma = 1 - 2^{-5-head} (1 - 1/32, 1 - 1/64, ...)", gammas,
            np.array([31 / 32, 63 / 64, 127 / 128, 255 / 256]), rtol=1e-15)

# Stronger decays too, so that gamma^{n-m} varies a lot across the sequence.
for gamma in [*gammas, 0.6, 0.9]:
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    # Brute force: o_n = sum_{m <= n} gamma^{n-m} (q_n . k_m) v_m, term by term.
    brute = np.zeros((T, d_v))
    for t in range(T):
        for m in range(t + 1):
            brute[t] += gamma ** (t - m) * float(np.dot(Q[t], K[m])) * V[m]
    par = retention_parallel(Q, K, V, gamma)
    check_close(f"gamma={gamma:.5f}: parallel == brute-force double sum", par, brute, rtol=1e-11, atol=1e-12)
    check_close(f"gamma={gamma:.5f}: recurrent == parallel", retention_recurrent(Q, K, V, gamma), par,
                rtol=1e-11, atol=1e-12)
    for B in (4, 7, 23):  # 7 leaves a ragged last chunk
        check_close(f"gamma={gamma:.5f}: chunkwise (B={B}) == parallel",
                    retention_chunkwise(Q, K, V, gamma, B), par, rtol=1e-11, atol=1e-12)

# Causality: perturbing step 15 changes nothing before it.
Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
K2 = K.copy()
K2[15] += 1.0
diff = np.abs(retention_parallel(Q, K2, V, 0.9) - retention_parallel(Q, K, V, 0.9))
check_true("causal: outputs before step 15 unchanged", diff[:15].max() == 0.0 and diff[15:].max() > 1e-3)
