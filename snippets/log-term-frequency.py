"""Log-scaled tf: hand values, the doubling identity, the zero branch, the log base, and the toy corpus."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def log_tf(count: np.ndarray) -> np.ndarray:
    """1 + ln c(t, d) where the count is positive, 0 where the term is absent."""
    count = np.asarray(count, dtype=float)
    return np.where(count > 0, 1 + np.log(np.maximum(count, 1)), 0.0)
# --- end formula ---


counts = np.arange(0, 41)
w = log_tf(counts)
check_close("c = 0, 1, 2, 10, 40: 0, 1, 1 + ln 2, 1 + ln 10, 1 + ln 40 (math.log)", w[[0, 1, 2, 10, 40]],
            [0.0, 1.0, 1 + math.log(2), 1 + math.log(10), 1 + math.log(40)], rtol=1e-14)
check_close("c = e^3 gives 4 (natural logarithm)", log_tf(np.exp(3.0)), 4.0, rtol=1e-14)
check_close("doubling the count adds ln 2 (c = 1 .. 20)", log_tf(2 * counts[1:21]) - w[1:21],
            np.full(20, math.log(2)), rtol=1e-12)
check_true("absent terms weigh 0, present terms at least 1, and the weight grows with the count",
           w[0] == 0 and np.all(w[1:] >= 1) and np.all(np.diff(w) > 0))

# The base is not a detail: with a + 1 offset, base 10 and base e are not proportional and can swap
# two documents. Doc A has one query term 10 times, doc B has two query terms once and twice.
doc_a, doc_b = log_tf([10, 0]).sum(), log_tf([1, 2]).sum()
log10_a, log10_b = 1 + math.log10(10), (1 + 0) + (1 + math.log10(2))
check_true("1 + ln ranks A (10, 0) above B (1, 2); 1 + log10 ranks B above A",
           doc_a > doc_b and log10_b > log10_a,
           f"ln: A {doc_a:.3f} vs B {doc_b:.3f}; log10: A {log10_a:.3f} vs B {log10_b:.3f}")

# Toy corpus, query q1: log-tf weighted by idf = ln(N / df), df counted directly from the token sets.
docs = [set(d) for d in tc.doc_tokens()]
q = tc.query_tokens("q1")
idf = np.array([math.log(len(docs) / sum(t in d for d in docs)) for t in q])
raw = tc.count_matrix(q)
score_raw, score_log = raw @ idf, log_tf(raw) @ idf
check_close("d04 (keyword stuffing, counts 3, 5, 5, 0) vs hand sum of (1 + ln c) idf", score_log[3],
            (1 + math.log(3)) * idf[0] + (1 + math.log(5)) * (idf[1] + idf[2]), rtol=1e-12)
# --- in code: scikit-learn ---
from sklearn.feature_extraction.text import TfidfTransformer  # noqa: E402

# 1 + ln c per nonzero count (scikit-learn adds 1 to np.log in place): an ulp apart, so 1e-12. On the
# whole count matrix, so that every document has a term and a nonzero length to scale by.
all_counts = tc.count_matrix()
sublinear = TfidfTransformer(sublinear_tf=True, use_idf=False, norm=None).fit_transform(all_counts)
check_close("TfidfTransformer(sublinear_tf=True, use_idf=False, norm=None): 1 + ln c, 0 where absent",
            sublinear.toarray(), log_tf(all_counts), rtol=1e-12)
default = TfidfTransformer(sublinear_tf=True).fit(all_counts)
weighted = log_tf(all_counts) * default.idf_
check_close("pitfall: by default it also multiplies by its idf_ and scales each row to unit length",
            default.transform(all_counts).toarray(),
            weighted / np.linalg.norm(weighted, axis=1, keepdims=True), rtol=1e-12, atol=1e-15)
# --- end in code ---

ratio_raw, ratio_log = score_raw[3] / score_raw[0], score_log[3] / score_log[0]
check_true("the log damps keyword stuffing: d04's lead over d01 shrinks from raw tf to 1 + ln tf",
           ratio_log < 0.8 * ratio_raw, f"d04 / d01: raw tf-idf {ratio_raw:.2f}, log tf-idf {ratio_log:.2f}")

# The page's calculator is checked against log_tf on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): an absent term (the zero branch), one occurrence, and counts up to 10^9.
import cardcalc  # noqa: E402

cardcalc.table(lambda c: float(log_tf(c)), cardcalc.grid(c=(0, 1, 2, 3, 10, 40, 10**9)))

fig, ax = figure("Term-frequency weightings", "count c(t, d)", "weight")
ax.plot(counts, counts, label="raw count")
ax.plot(counts, w, label="1 + ln c  (0 at c = 0)")
ax.plot(counts[1:], 1 + np.log10(counts[1:]), label="1 + log10 c")
ax.plot(counts, counts * 2.2 / (counts + 1.2), label="BM25 factor, $k_1$ = 1.2, b = 0")
ax.set_ylim(0, 8)
ax.legend(fontsize=8)
