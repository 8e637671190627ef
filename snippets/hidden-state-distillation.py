"""Hidden-state distillation (TinyBERT / FitNets): MSE between projected student states and mapped
teacher states; gradient of the projection by finite differences, the optimal projection by least
squares, the uniform layer map."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def layer_map(m_student: int, n_teacher: int) -> list[int]:
    """Uniform strategy g(m) = m N / M for student layers m = 1..M (TinyBERT)."""
    return [m * n_teacher // m_student for m in range(1, m_student + 1)]


def hidden_distill_loss(h_student, h_teacher, W, mapping) -> float:
    """sum_m MSE(H_S^(m) W, H_T^(g(m))); h_* are lists of (tokens, width) arrays, index 0 = layer 1."""
    return sum(np.mean((h_student[m] @ W - h_teacher[g - 1]) ** 2) for m, g in enumerate(mapping))


def hidden_distill_grad(h_student, h_teacher, W, mapping) -> np.ndarray:
    """d loss / d W = sum_m 2 / (tokens * d_T) H_S^T (H_S W - H_T)."""
    grad = np.zeros_like(W)
    for m, g in enumerate(mapping):
        residual = h_student[m] @ W - h_teacher[g - 1]
        grad += 2.0 / residual.size * h_student[m].T @ residual
    return grad
# --- end formula ---


rng = np.random.default_rng(0)
T, d_s, d_t, M, N = 7, 4, 6, 4, 12
mapping = layer_map(M, N)
check_true("4-layer student of a 12-layer teacher: g(m) = 3m", mapping == [3, 6, 9, 12], str(mapping))
check_true("6 of 12: every other layer", layer_map(6, 12) == [2, 4, 6, 8, 10, 12], str(layer_map(6, 12)))
check_true("3 of 10: floor(m N / M)", layer_map(3, 10) == [3, 6, 10], str(layer_map(3, 10)))

h_t = [rng.normal(size=(T, d_t)) + 0.1 * k for k in range(N)]
h_s = [rng.normal(size=(T, d_s)) for _ in range(M)]
W = rng.normal(size=(d_s, d_t))

# 1. Value: Frobenius norm squared over the number of entries, layer by layer.
ref = sum(np.linalg.norm(h_s[m] @ W - h_t[3 * (m + 1) - 1], "fro") ** 2 / (T * d_t) for m in range(M))
check_close("loss = sum_m ||H_S W - H_T||_F^2 / (T d_T)", hidden_distill_loss(h_s, h_t, W, mapping), ref,
            rtol=1e-12)

# 2. Gradient with respect to the projection, by central differences on every entry.
h = 1e-6
fd = np.zeros_like(W)
for i in range(d_s):
    for j in range(d_t):
        E = np.zeros_like(W)
        E[i, j] = h
        fd[i, j] = (hidden_distill_loss(h_s, h_t, W + E, mapping)
                    - hidden_distill_loss(h_s, h_t, W - E, mapping)) / (2 * h)
check_close("dL/dW vs finite differences (4 x 6 projection)", hidden_distill_grad(h_s, h_t, W, mapping), fd,
            rtol=1e-6, atol=1e-9)

# 3. The best projection is a least-squares fit over the stacked layers (numpy.linalg.lstsq):
#    zero gradient there and the loss equals the residual sum of squares / (T d_T).
A = np.vstack(h_s)
Y = np.vstack([h_t[g - 1] for g in mapping])
W_star, rss, *_ = np.linalg.lstsq(A, Y, rcond=None)
check_close("gradient vanishes at the least-squares projection",
            hidden_distill_grad(h_s, h_t, W_star, mapping), np.zeros_like(W), atol=1e-12)
check_close("minimum loss = lstsq residual / (T d_T)", hidden_distill_loss(h_s, h_t, W_star, mapping),
            rss.sum() / (T * d_t), rtol=1e-10)

# 4. Equal widths and W = I: plain MSE between the hidden states, no projection.
h_s6 = [rng.normal(size=(T, d_t)) for _ in range(M)]
check_close("W = identity: sum of MSEs", hidden_distill_loss(h_s6, h_t, np.eye(d_t), mapping),
            sum(np.mean((h_s6[m] - h_t[3 * m + 2]) ** 2) for m in range(M)), rtol=1e-12)

# 5. Gradient descent on W alone converges to the least-squares loss.
Wk, losses = np.zeros_like(W), []
for _ in range(300):
    Wk -= 0.5 * hidden_distill_grad(h_s, h_t, Wk, mapping)
    losses.append(hidden_distill_loss(h_s, h_t, Wk, mapping))
check_close("300 gradient steps reach the least-squares minimum", losses[-1],
            hidden_distill_loss(h_s, h_t, W_star, mapping), rtol=1e-8)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# nn.Linear computes h @ weight.T + bias: the card's W_h is weight.T, of shape (d_T, d_S).
projection = torch.nn.Linear(d_s, d_t, bias=False, dtype=torch.float64)
with torch.no_grad():
    projection.weight.copy_(torch.tensor(W.T))
loss = sum(F.mse_loss(projection(torch.tensor(h_s[m])), torch.tensor(h_t[g - 1]))
           for m, g in enumerate(mapping))
loss.backward()
# A sum of 4 means of 42 squares each, float64 on both sides: rtol 1e-12.
check_close("sum_m F.mse_loss(Linear(d_S, d_T, bias=False)(H_S), H_T) = L_hid (mean over n d_T entries)",
            loss.item(), hidden_distill_loss(h_s, h_t, W, mapping), rtol=1e-12)
check_close("autograd's weight.grad is the card's dL/dW_h transposed",
            projection.weight.grad.numpy(), hidden_distill_grad(h_s, h_t, W, mapping).T, rtol=1e-12)
try:
    with torch.no_grad():
        projection.weight.copy_(torch.tensor(W))
    untransposed_refused = False
except RuntimeError:
    untransposed_refused = True
check_true("pitfall: the weight is (d_T, d_S): the card's (d_S, d_T) W_h copied in as it is is refused",
           untransposed_refused)
check_true("pitfall: left out, bias=True adds d_T learned offsets the card's W_h does not have",
           tuple(torch.nn.Linear(d_s, d_t).bias.shape) == (d_t,))
# --- end in code ---
