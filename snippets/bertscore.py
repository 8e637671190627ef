"""BERTScore with given token embeddings: greedy max vs explicit loops and sklearn cosine similarities,
idf weights by hand, baseline rescaling, and the precision/recall swap."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics.pairwise import cosine_similarity
from text_fixture import SUMMARY_PAIRS, words


# --- formula ---
def unit_rows(e: np.ndarray) -> np.ndarray:
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def bertscore(ref: np.ndarray, cand: np.ndarray, w_ref=None, w_cand=None):
    """P = sum_j w(x^_j) max_i x_i . x^_j / sum_j w(x^_j); R = the same with the roles swapped;
    F = 2PR / (P + R). Rows are token embeddings, scaled to unit length first (cosine)."""
    sim = unit_rows(ref) @ unit_rows(cand).T          # sim[i, j] = cos(x_i, x^_j)
    w_ref = np.ones(len(ref)) if w_ref is None else np.asarray(w_ref, dtype=float)
    w_cand = np.ones(len(cand)) if w_cand is None else np.asarray(w_cand, dtype=float)
    p = np.sum(w_cand * sim.max(axis=0)) / np.sum(w_cand)
    r = np.sum(w_ref * sim.max(axis=1)) / np.sum(w_ref)
    return p, r, 2 * p * r / (p + r)


def idf(token: str, references: list[list[str]], smooth: bool = False) -> float:
    """Paper: -log( (1/M) sum_i 1[token in x^(i)] ). bert_score package: log((M + 1) / (df + 1))."""
    m = len(references)
    df = sum(token in ref for ref in references)
    return float(np.log((m + 1) / (df + 1))) if smooth else float(-np.log(df / m))


def rescale(score: float, baseline: float) -> float:
    """Baseline rescaling: (score - b) / (1 - b)."""
    return (score - baseline) / (1 - baseline)
# --- end formula ---


# "Contextual" embeddings for the fixture: a vector per word type plus a per-position perturbation,
# so the same word gets slightly different vectors in different places.
rng = np.random.default_rng(0)
d = 24
types = sorted({w for pair in SUMMARY_PAIRS for s in pair for w in words(s)})
base = {w: rng.normal(size=d) for w in types}


def embed(sentence: str) -> np.ndarray:
    return np.array([base[w] + 0.3 * rng.normal(size=d) for w in words(sentence)])


pairs = [(embed(r), embed(c)) for r, c in SUMMARY_PAIRS]


# 1. Greedy matching by explicit loops, with cosines from sklearn (independent of unit_rows).
def loop_scores(ref, cand):
    cos = cosine_similarity(ref, cand)
    p = sum(max(cos[i, j] for i in range(len(ref))) for j in range(len(cand))) / len(cand)
    r = sum(max(cos[i, j] for j in range(len(cand))) for i in range(len(ref))) / len(ref)
    return p, r, 2 * p * r / (p + r)


check_close("P, R, F vs explicit greedy loops over sklearn cosines (6 pairs, unequal lengths)",
            [bertscore(a, b) for a, b in pairs], [loop_scores(a, b) for a, b in pairs], rtol=1e-12)
a, b = pairs[3]
check_true("pair 4 has different lengths (so rows and columns are told apart)", len(a) != len(b))
check_close("swapping candidate and reference swaps P and R", bertscore(b, a)[:2], bertscore(a, b)[1::-1],
            rtol=1e-12)
check_close("scaling an embedding does not change anything (cosine)", bertscore(3.0 * a, b * 0.2),
            bertscore(a, b), rtol=1e-12)
check_close("identical embeddings: P = R = F = 1", bertscore(a, a), [1.0, 1.0, 1.0], rtol=1e-12)

# 2. A hand example in 2-D: reference tokens e1, e2; candidate tokens e1, (e1 + e2)/sqrt 2, -e2.
#    Column maxima (precision): 1, 1/sqrt2, 0 -> P = (1 + 0.7071) / 3. Row maxima (recall): 1, 1/sqrt2.
ref2 = np.array([[1.0, 0.0], [0.0, 1.0]])
cand2 = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -1.0]])
h = 1 / np.sqrt(2)
check_close("2-D hand example: P = (1 + 1/sqrt2 + 0)/3, R = (1 + 1/sqrt2)/2", bertscore(ref2, cand2)[:2],
            [(1 + h) / 3, (1 + h) / 2], rtol=1e-12)

# 3. idf weights. Four references; "cat" appears in 1, "the" in all 4, "mat" in 2.
#    Paper: idf = -log(df / M): log 4, 0, log 2.  Package: log(5 / (df + 1)): log 2.5, 0, log(5/3).
refs = [words(s) for s in ("the cat sat", "the dog ran", "the mat", "on the mat")]
check_close("idf (paper form) of cat, the, mat = log 4, 0, log 2",
            [idf(t, refs) for t in ("cat", "the", "mat")], [np.log(4), 0.0, np.log(2)],
            rtol=1e-12, atol=1e-15)
check_close("idf (bert_score's smoothed form) = log 2.5, 0, log(5/3)",
            [idf(t, refs, smooth=True) for t in ("cat", "the", "mat")], [np.log(2.5), 0.0, np.log(5 / 3)],
            rtol=1e-12, atol=1e-15)
# Weighted precision vs a loop: weights on candidate tokens for P, on reference tokens for R.
wr, wc = rng.uniform(0.2, 2.0, len(a)), rng.uniform(0.2, 2.0, len(b))
cos = cosine_similarity(a, b)
p_loop = sum(wc[j] * cos[:, j].max() for j in range(len(b))) / wc.sum()
r_loop = sum(wr[i] * cos[i, :].max() for i in range(len(a))) / wr.sum()
check_close("idf-weighted P and R vs loops", bertscore(a, b, wr, wc)[:2], [p_loop, r_loop], rtol=1e-12)

# 4. Baseline rescaling: b = 0.8 maps 0.9 to 0.5, b itself to 0 and 1 to 1.
check_close("rescale(0.9, 0.8) = 0.5; rescale(b) = 0; rescale(1) = 1",
            [rescale(0.9, 0.8), rescale(0.8, 0.8), rescale(1.0, 0.8)], [0.5, 0.0, 1.0],
            rtol=1e-12, atol=1e-15)

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import linear_kernel  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402

# cosine_similarity(cand, ref)[j, i] = cos(x^_j, x_i): precision takes each row's maximum, recall each
# column's. Means of a few float64 cosines, the same products summed in another order: 1e-12 holds.
check_close("cosine_similarity(cand, ref): P = mean of row maxima, R = mean of column maxima (6 pairs)",
            [(cosine_similarity(c, r).max(axis=1).mean(), cosine_similarity(c, r).max(axis=0).mean())
             for r, c in pairs], [bertscore(r, c)[:2] for r, c in pairs], rtol=1e-12)
check_close("pitfall: cosine_similarity(ref, cand) is the transpose, so the same row maxima give R, not P",
            [cosine_similarity(r, c).max(axis=1).mean() for r, c in pairs],
            [bertscore(r, c)[1] for r, c in pairs], rtol=1e-12)
# linear_kernel is the plain dot product x_i . x^_j, the card's formula only for unit-length rows.
raw_p, card_p = linear_kernel(b, a).max(axis=1).mean(), bertscore(a, b)[0]
check_true("pitfall: linear_kernel on raw embeddings is not the card's precision (no unit length)",
           abs(raw_p - card_p) > 0.1, f"dot products {raw_p:.3f} vs cosine {card_p:.3f}")
check_close("fix: linear_kernel of normalize()d rows = the card's precision",
            linear_kernel(normalize(b), normalize(a)).max(axis=1).mean(), card_p, rtol=1e-12)
# --- end in code ---

sim = unit_rows(a) @ unit_rows(b).T
fig, ax = figure("BERTScore greedy matching (pair 4): cosine similarities", "candidate token j",
                 "reference token i")
im = ax.imshow(sim, cmap="viridis", aspect="auto")
ax.plot(np.arange(len(b)), sim.argmax(axis=0), "wx", label="precision: best i for each j")
ax.plot(sim.argmax(axis=1), np.arange(len(a)), "r+", label="recall: best j for each i")
fig.colorbar(im, ax=ax)
ax.legend(fontsize=7, loc="lower right")
