"""FLOPs per token: 2N forward and 6N for training, counted over the matmuls of a small MLP."""

from itertools import pairwise

import numpy as np
from cardcheck import check_close

rng = np.random.default_rng(0)
widths = [64, 256, 256, 64]
weights = [rng.normal(size=(a, b)) / np.sqrt(a) for a, b in pairwise(widths)]
n_params = sum(w.size for w in weights)
flops = {"forward": 0, "backward": 0}


def matmul(a: np.ndarray, b: np.ndarray, phase: str) -> np.ndarray:
    flops[phase] += 2 * a.shape[0] * a.shape[1] * b.shape[1]  # one multiply and one add per term
    return a @ b


x = rng.normal(size=(1, widths[0]))  # one token
activations = [x]
for w in weights:
    activations.append(matmul(activations[-1], w, "forward"))
grad = np.ones_like(activations[-1])
for w, a in zip(reversed(weights), reversed(activations[:-1]), strict=True):
    matmul(a.T, grad, "backward")  # gradient with respect to the weights
    grad = matmul(grad, w.T, "backward")  # gradient with respect to the layer's input

print(f"N = {n_params} weights; forward {flops['forward']} FLOPs, backward {flops['backward']} FLOPs")
check_close("forward FLOPs per token = 2N", flops["forward"], 2 * n_params)
check_close("forward + backward FLOPs per token = 6N", flops["forward"] + flops["backward"], 6 * n_params)
