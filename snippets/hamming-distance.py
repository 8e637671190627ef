"""Hamming distance: vs XOR popcount, scipy (a fraction), the +-1 identity; binary codes of the toy corpus."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from scipy.spatial.distance import cdist, hamming


# --- formula ---
# few mutants: a count of differing positions: the comparison, the sum and its axis
def hamming_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d_H(x, y) = number of positions i with x_i != y_i, along the last axis."""
    return np.sum(x != y, axis=-1)
# --- end formula ---


rng = np.random.default_rng(0)
bits = rng.integers(0, 2, size=(6, 256), dtype=np.uint8)
d = hamming_distance(bits[:, None, :], bits[None, :, :])

# Independent route 1: pack 8 bits per byte, XOR, count the set bits of each byte.
packed = np.packbits(bits, axis=1)
popcount = np.array([[int(np.unpackbits(np.bitwise_xor(a, b)).sum()) for b in packed] for a in packed])
check_close("6 x 6 codes of 256 bits: vs popcount(x XOR y) on packed bytes", d, popcount, rtol=0)

# --- in code: numpy ---
# NumPy 2's popcount: XOR the packed bytes, count the set bits of each, add them up (exact integers).
check_close("np.bitwise_count(np.packbits(x) ^ np.packbits(y)).sum(): 6 x 6 codes",
            [[np.bitwise_count(np.bitwise_xor(a, b)).sum() for b in packed] for a in packed], d, rtol=0)
# packbits pads a length that is not a multiple of 8 with zero bits, which XOR to zero.
short_a, short_b = np.packbits(bits[0, :13]), np.packbits(bits[1, :13])
check_close("a 13-bit code: the padding adds nothing", np.bitwise_count(short_a ^ short_b).sum(),
            hamming_distance(bits[0, :13], bits[1, :13]), rtol=0)
# --- end in code ---

# --- in code: scipy ---
# A count divided by 256 and multiplied back: exact to an ulp, so 1e-12.
check_close("pitfall: scipy cdist(X, Y, metric='hamming') is the FRACTION d_H / D; times D = 256 it is d_H",
            256 * cdist(bits, bits, metric="hamming"), d, rtol=1e-12)
check_close("the same for scipy hamming(x, y) on symbols: 5 x hamming = d_H",
            5 * hamming(np.array([3, 1, 4, 1, 5]), np.array([3, 2, 4, 7, 5])),
            hamming_distance(np.array([3, 1, 4, 1, 5]), np.array([3, 2, 4, 7, 5])), rtol=1e-12)
# --- end in code ---

# --- in code: scikit-learn ---
from sklearn.metrics import pairwise_distances  # noqa: E402

check_close("pitfall: pairwise_distances(X, metric='hamming') is the fraction too; times 256 it is d_H",
            256 * pairwise_distances(bits.astype(bool), metric="hamming"), d, rtol=1e-12)
# --- end in code ---
# Route 3: for +-1 codes, x.y = D - 2 d_H, so d_H = (D - x.y) / 2.
signs = 2.0 * bits - 1.0
check_close("+-1 codes: d_H = (D - x.y) / 2", d, (256 - signs @ signs.T) / 2, rtol=1e-12)
check_close("strings of symbols: 'karolin' vs 'kathrin' differ in 3 places",
            hamming_distance(np.array(list("karolin")), np.array(list("kathrin"))), 3, rtol=0)

# Metric axioms on random triples of codes.
u, v, w = rng.integers(0, 2, size=(3, 3000, 32))
check_true("triangle inequality and symmetry on 3000 random triples of 32-bit codes",
           np.all(hamming_distance(u, w) <= hamming_distance(u, v) + hamming_distance(v, w))
           and np.array_equal(hamming_distance(u, v), hamming_distance(v, u)))

# Toy corpus: 256-bit sign codes of the embeddings (random hyperplanes, SimHash). The Hamming distance
# of the codes tracks the angle: E[d_H] = 256 * angle / pi.
E = tc.doc_embeddings()
planes = rng.standard_normal((tc.EMBED_DIM, 256))
codes = (E @ planes > 0).astype(np.uint8)
dh = hamming_distance(codes[:, None, :], codes[None, :, :])
angle = np.arccos(np.clip(E @ E.T, -1, 1))
iu = np.triu_indices(len(E), 1)
corr = np.corrcoef(dh[iu], angle[iu])[0, 1]
check_true("toy corpus, 496 pairs: Hamming distance of 256-bit codes correlates with the angle (r > 0.8)",
           corr > 0.8, f"Pearson r = {corr:.3f}")
q = (tc.query_embedding("q5") @ planes > 0).astype(np.uint8)
by_code = np.argsort(hamming_distance(codes, q[None, :]), kind="stable")[:3]
by_cos = np.argsort(-(E @ tc.query_embedding("q5")))[:3]
check_true("q5: the code-nearest document is the cosine-nearest one (d08)",
           by_code[0] == by_cos[0] == 7,
           f"by code {[tc.DOC_IDS[i] for i in by_code]}, by cosine {[tc.DOC_IDS[i] for i in by_cos]}")

# --- in code: torch ---
import torch  # noqa: E402

# torch.cdist with p=0 counts the coordinates that differ: the count itself, not a fraction.
codes_t = torch.tensor(bits, dtype=torch.float64)  # cdist takes floating point only
check_close("torch.cdist(X, Y, p=0): 6 x 6 codes of 256 bits", torch.cdist(codes_t, codes_t, p=0).numpy(), d,
            rtol=0)
# --- end in code ---
