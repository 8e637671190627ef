# %% [markdown]
# # Evaluate a retriever
#
# This notebook ranks the 32 documents of the shared toy corpus for its 6 queries in three ways (sparse
# BM25, a dense embedding score, and a fusion of the two), reranks the fused list for diversity, and
# measures every ranking against the graded judgments. Each formula is written out in a few lines of
# numpy and checked against a second route before its numbers are used. Swap in your own score vectors
# and judgments and the same cells give you recall, MRR, nDCG, MAP and a precision-recall curve.

# %%
from itertools import permutations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist

QIDS = list(tc.QUERIES)
GRADES = {q: tc.grades(q) for q in QIDS}        # graded judgments 0..3, unjudged = 0
RELEVANT = {q: GRADES[q] >= 1 for q in QIDS}    # binary relevance for recall, MRR and AP

print(f"{tc.N_DOCS} documents, average length {tc.avgdl():.2f} tokens")
for q in QIDS:
    print(f"{q}: {tc.QUERIES[q]!r:70} {RELEVANT[q].sum()} relevant documents")


def ranking(scores):
    """Document indices, best first; ties keep corpus order (a stable sort)."""
    return np.argsort(-np.asarray(scores), kind="stable")


# %% [markdown]
# ## Sparse scores with BM25
#
# [BM25](../../cards/bm25/) adds, over the query tokens, an inverse document frequency times a
# saturating term-frequency factor that also corrects for document length:
#
# $$\mathrm{BM25}(q, d) = \sum_{t \in q} \mathrm{IDF}(t) \,
# \frac{f(t, d)\,(k_1 + 1)}{f(t, d) + k_1 \left(1 - b + b \, |d| / \mathrm{avgdl}\right)}, \qquad
# \mathrm{IDF}(t) = \log \frac{N - n(t) + 0.5}{n(t) + 0.5}$$
#
# with $k_1 = 1.2$ and $b = 0.75$, where $f(t, d)$ counts the term in the document and $n(t)$ counts the
# documents holding it. The code works on the whole document-by-term count matrix at once; the
# corpus module's `bm25_reference` walks through the same sum with Python loops, which makes it an
# independent check. A token found in more than half of the documents gets a negative IDF and lowers
# the score a little: here that is "and" in q3, present in 17 of the 32 documents.

# %%
K1, B = 1.2, 0.75
lengths = tc.doc_lengths()


def bm25_scores(query_terms):
    counts = tc.count_matrix(query_terms)     # f(t, d): one row per document, one column per query token
    n_t = (counts > 0).sum(axis=0)            # n(t): documents that contain the token
    idf = np.log((tc.N_DOCS - n_t + 0.5) / (n_t + 0.5))
    norm = K1 * (1 - B + B * lengths / lengths.mean())
    return (idf * counts * (K1 + 1) / (counts + norm[:, None])).sum(axis=1)


SPARSE = {q: bm25_scores(tc.query_tokens(q)) for q in QIDS}
for q in QIDS:
    check_close(f"BM25 matrix form vs the loop reference, {q}", SPARSE[q],
                tc.bm25_reference(tc.query_tokens(q), k1=K1, b=B))
print("top 3 by BM25:", {q: [tc.DOC_IDS[i] for i in ranking(SPARSE[q])[:3]] for q in QIDS})

# %% [markdown]
# ## Dense scores from embeddings
#
# The dense side scores a document by the [cosine similarity](../../cards/cosine-similarity/)
# $\cos(a, b) = a^\top b / (\lVert a \rVert_2 \lVert b \rVert_2)$ between the query and document
# embeddings. The toy embeddings are already unit length, so the cosine equals the plain
# [dot product](../../cards/dot-product-similarity/) $a^\top b$, which is what a vector index computes.
# We check both facts, and the cosine itself against scipy's cosine distance ($1 - \cos$).

# %%
EMB = tc.doc_embeddings()


def cosine(query_vec, doc_matrix):
    return doc_matrix @ query_vec / (np.linalg.norm(doc_matrix, axis=1) * np.linalg.norm(query_vec))


DENSE = {q: cosine(tc.query_embedding(q), EMB) for q in QIDS}
query_matrix = np.stack([tc.query_embedding(q) for q in QIDS])
check_close("cosine vs 1 - scipy cosine distance, all queries",
            np.stack([DENSE[q] for q in QIDS]), 1 - cdist(query_matrix, EMB, metric="cosine"), atol=1e-12)
check_close("unit-length embeddings: cosine equals the dot product",
            np.stack([DENSE[q] for q in QIDS]), query_matrix @ EMB.T, atol=1e-12)
print("top 3 by dense score:", {q: [tc.DOC_IDS[i] for i in ranking(DENSE[q])[:3]] for q in QIDS})

# %% [markdown]
# ## Fuse the two rankings
#
# [Reciprocal rank fusion](../../cards/reciprocal-rank-fusion/) ignores the raw scores and gives each
# document $\sum_r 1 / (k + \operatorname{rank}_r(d))$ with $k = 60$, summed over the two rankings.
# [Convex score fusion](../../cards/convex-score-fusion/) instead rescales each score to $[0, 1]$ by
# min-max normalisation, $\phi(s) = (s - \min s) / (\max s - \min s)$, and mixes them,
# $s = \alpha\, \phi(s_{\mathrm{dense}}) + (1 - \alpha)\, \phi(s_{\mathrm{sparse}})$, here with
# $\alpha = 0.5$. RRF is checked with a dictionary loop over rank positions, convex fusion by its two end
# points: $\alpha = 1$ must give the dense ranking and $\alpha = 0$ the BM25 ranking.

# %%
RRF_K, ALPHA = 60, 0.5


def rrf(*score_lists, k=RRF_K):
    fused = np.zeros(tc.N_DOCS)
    for s in score_lists:
        ranks = np.empty(tc.N_DOCS)
        ranks[ranking(s)] = np.arange(1, tc.N_DOCS + 1)       # rank 1 = best
        fused += 1.0 / (k + ranks)
    return fused


def minmax(s):
    return (s - s.min()) / (s.max() - s.min())


def convex(dense, sparse, alpha=ALPHA):
    return alpha * minmax(dense) + (1 - alpha) * minmax(sparse)


FUSED_RRF = {q: rrf(SPARSE[q], DENSE[q]) for q in QIDS}
FUSED_CVX = {q: convex(DENSE[q], SPARSE[q]) for q in QIDS}

for q in QIDS:
    by_loop = dict.fromkeys(tc.DOC_IDS, 0.0)
    for s in (SPARSE[q], DENSE[q]):
        for position, i in enumerate(ranking(s), start=1):
            by_loop[tc.DOC_IDS[i]] += 1 / (60 + position)
    check_close(f"RRF vs a loop over rank positions, {q}", FUSED_RRF[q], list(by_loop.values()))
check_true("convex fusion: alpha = 1 gives the dense order and alpha = 0 the BM25 order, every query",
           all(np.array_equal(ranking(convex(DENSE[q], SPARSE[q], 1.0)), ranking(DENSE[q]))
               and np.array_equal(ranking(convex(DENSE[q], SPARSE[q], 0.0)), ranking(SPARSE[q]))
               for q in QIDS))
print("top 3 by RRF:   ", {q: [tc.DOC_IDS[i] for i in ranking(FUSED_RRF[q])[:3]] for q in QIDS})
print("top 3 by convex:", {q: [tc.DOC_IDS[i] for i in ranking(FUSED_CVX[q])[:3]] for q in QIDS})

# %% [markdown]
# ## Score a ranking: recall@k, MRR and nDCG@k
#
# Three metrics, each answering a different question about one ranked list:
#
# - [Recall@k](../../cards/recall-at-k/), $\mathrm{R}@k = |\text{top-}k \cap \mathrm{Rel}| / |\mathrm{Rel}|$:
#   how much of the relevant material made it into the first $k$ (a document with grade $\ge 1$ counts as
#   relevant).
# - [Mean reciprocal rank](../../cards/mean-reciprocal-rank/), $\mathrm{MRR} = \frac{1}{|Q|} \sum_q
#   1 / \operatorname{rank}_q$: how soon the first relevant hit appears, averaged over queries.
# - [nDCG@k](../../cards/ndcg/), $\mathrm{DCG}@k = \sum_{i=1}^{k} \mathrm{rel}_i / \log_2(i + 1)$ divided by
#   the DCG@k of the best possible order: uses the grades, with linear gain $g(r) = r$.
#
# nDCG's ideal DCG comes from sorting the grades; we confirm it equals the maximum over every ordering of
# each query's judged documents (the unjudged ones have grade 0 and can only go last). MRR is checked
# against first-relevant ranks read off by hand from the BM25 lists printed above (q1 starts with d04,
# the keyword-stuffed page judged 0, so its first relevant document is at rank 2; every other query
# starts with a relevant document), and nDCG@5 of BM25 on q1 against a value worked out by hand.

# %%
def recall_at_k(order, relevant, k):
    return relevant[order[:k]].sum() / relevant.sum()


def reciprocal_rank(order, relevant):
    hits = np.flatnonzero(relevant[order])
    return 1.0 / (hits[0] + 1) if hits.size else 0.0


def dcg(grades_in_rank_order, k):
    g = np.asarray(grades_in_rank_order, dtype=float)[:k]
    return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))


def ndcg_at_k(order, grades, k):
    return dcg(grades[order], k) / dcg(np.sort(grades)[::-1], k)


for q in QIDS:
    judged = list(tc.QRELS[q].values())
    for k in (3, 5, 10):
        brute = max(dcg(p, k) for p in set(permutations(judged)))
        check_close(f"ideal DCG@{k} by sorting vs max over all orderings, {q}",
                    dcg(np.sort(GRADES[q])[::-1], k), brute)

bm25_orders = {q: ranking(SPARSE[q]) for q in QIDS}
mrr_bm25 = np.mean([reciprocal_rank(bm25_orders[q], RELEVANT[q]) for q in QIDS])
check_close("BM25 MRR vs the hand count (1/2 + 1 + 1 + 1 + 1 + 1) / 6", mrr_bm25, (0.5 + 5) / 6)

q = "q1"
top5 = bm25_orders[q][:5]
check_close("recall@5 of BM25 on q1 vs set intersection",
            recall_at_k(bm25_orders[q], RELEVANT[q], 5),
            len(set(top5) & tc.relevant(q)) / len(tc.relevant(q)))
# By hand, grades [0, 3, 3, 1, 1] against the ideal [3, 3, 1, 1, 1]:
# DCG@5 = 0 + 3/log2(3) + 3/2 + 1/log2(5) + 1/log2(6) = 1.8927893 + 1.5 + 0.4306766 + 0.3868528 = 4.2103186
# IDCG@5 = 3 + 1.8927893 + 1/2 + 0.4306766 + 0.3868528 = 6.2103186
check_close("nDCG@5 of BM25 on q1 vs the hand value 4.2103186 / 6.2103186",
            ndcg_at_k(bm25_orders[q], GRADES[q], 5), 4.2103186 / 6.2103186, rtol=1e-7)
print(f"BM25 on q1, top 5: {[(tc.DOC_IDS[i], int(GRADES[q][i])) for i in top5]}")
print(f"  recall@5 = {recall_at_k(bm25_orders[q], RELEVANT[q], 5):.3f}, "
      f"nDCG@5 = {ndcg_at_k(bm25_orders[q], GRADES[q], 5):.4f}, MRR over all queries = {mrr_bm25:.4f}")

# %% [markdown]
# ## Rerank the fused list for diversity with MMR
#
# The fused top of a ranking often holds near-duplicates. [Maximal marginal relevance](../../cards/mmr/)
# rebuilds the list greedily: at each step it takes the candidate with the largest
# $\lambda\, \mathrm{Sim}_1(d, q) - (1 - \lambda) \max_{d' \in S} \mathrm{Sim}_2(d, d')$, where $S$ is what
# has been picked so far. We rerank the top 10 of the RRF list, use its min-max normalised RRF score as
# $\mathrm{Sim}_1$ (so it lives on the same $[0, 1]$ scale as a cosine), the document-document cosine as
# $\mathrm{Sim}_2$, and $\lambda = 0.7$; positions 11 to 32 keep their fused order. Checks: with
# $\lambda = 1$ MMR must return the fused order unchanged, every pick must beat every candidate left at
# that step (recomputed by a plain loop), and the reranked top 5 must be no more redundant (mean pairwise
# cosine) than the fused top 5, for every query.

# %%
LAM, POOL = 0.7, 10
DOC_SIM = EMB @ EMB.T


def mmr(relevance, sim, lam, k):
    selected, remaining = [], list(range(len(relevance)))
    while len(selected) < k:
        redundancy = sim[np.ix_(remaining, selected)].max(axis=1) if selected else np.zeros(len(remaining))
        best = remaining[int(np.argmax(lam * relevance[remaining] - (1 - lam) * redundancy))]
        selected.append(best)
        remaining.remove(best)
    return selected


def mmr_rerank(order, fused, lam=LAM):
    pool = order[:POOL]
    picks = mmr(minmax(fused[pool]), DOC_SIM[np.ix_(pool, pool)], lam, POOL)
    return np.concatenate([pool[picks], order[POOL:]])


RRF_ORDERS = {q: ranking(FUSED_RRF[q]) for q in QIDS}
MMR_ORDERS = {q: mmr_rerank(RRF_ORDERS[q], FUSED_RRF[q]) for q in QIDS}

check_true("lambda = 1: MMR keeps the fused order, every query",
           all(np.array_equal(mmr_rerank(RRF_ORDERS[q], FUSED_RRF[q], 1.0), RRF_ORDERS[q]) for q in QIDS))
greedy_ok = True
for q in QIDS:
    pool = RRF_ORDERS[q][:POOL]
    rel = minmax(FUSED_RRF[q][pool])
    chosen = [int(np.flatnonzero(pool == d)[0]) for d in MMR_ORDERS[q][:POOL]]
    for step, pick in enumerate(chosen):
        def value(c):
            red = max((DOC_SIM[pool[c], pool[s]] for s in chosen[:step]), default=0.0)
            return LAM * rel[c] - (1 - LAM) * red
        greedy_ok &= all(value(pick) >= value(c) - 1e-12 for c in chosen[step:])
check_true("each MMR pick has the largest marginal value among the candidates left (loop)", greedy_ok)


def mean_pair_sim(order, k=5):
    s = DOC_SIM[np.ix_(order[:k], order[:k])]
    return s[~np.eye(k, dtype=bool)].mean()


before = np.array([mean_pair_sim(RRF_ORDERS[q]) for q in QIDS])
after = np.array([mean_pair_sim(MMR_ORDERS[q]) for q in QIDS])
check_true("MMR top 5 is never more redundant (mean pairwise cosine) than the fused top 5",
           np.all(after <= before + 1e-12) and after.sum() < before.sum(),
           f"per query {np.round(before, 3)} -> {np.round(after, 3)}")
for q in QIDS:
    fused_top, mmr_top = [[tc.DOC_IDS[i] for i in o[q][:5]] for o in (RRF_ORDERS, MMR_ORDERS)]
    print(f"{q}  fused top 5: {fused_top}  after MMR: {mmr_top}")

# %% [markdown]
# ## Precision-recall curves and average precision
#
# Walking down a full ranking, [precision@k](../../cards/precision-at-k/)
# $\mathrm{P}@k = \frac{1}{k} \sum_{i \le k} \mathrm{rel}_i$ falls while recall@k rises; the pairs
# $(\mathrm{R}@k, \mathrm{P}@k)$ trace the precision-recall curve. For the plot we use the usual
# interpolated precision at recall levels $0, 0.1, \dots, 1$ (the best precision at any cut-off reaching
# that recall), averaged over the queries. [Average precision](../../cards/average-precision/)
# $\mathrm{AP} = \frac{1}{R} \sum_k \mathrm{P}@k \cdot \mathrm{rel}_k$ summarises the curve in one number;
# its mean over queries is MAP. We check AP against the area under the uninterpolated step curve,
# $\sum_k \mathrm{P}@k\, (\mathrm{R}@k - \mathrm{R}@(k-1))$, which must agree exactly.

# %%
def precision_recall(order, relevant):
    hits = np.cumsum(relevant[order])
    ks = np.arange(1, len(order) + 1)
    return hits / ks, hits / relevant.sum()


def average_precision(order, relevant):
    precision, _ = precision_recall(order, relevant)
    return float(np.sum(precision * relevant[order]) / relevant.sum())


LEVELS = np.linspace(0, 1, 11)
METHODS = {"BM25": bm25_orders, "dense": {q: ranking(DENSE[q]) for q in QIDS}, "RRF fusion": RRF_ORDERS}
fig, ax = figure("Precision-recall, 6 queries (11-point interpolated)", "recall", "precision")
for (name, orders), marker in zip(METHODS.items(), "os^"):
    curves, aps, areas = [], [], []
    for q in QIDS:
        p, r = precision_recall(orders[q], RELEVANT[q])
        curves.append([p[r >= level].max() for level in LEVELS])
        aps.append(average_precision(orders[q], RELEVANT[q]))
        areas.append(np.sum(p * np.diff(r, prepend=0.0)))
    check_close(f"{name}: AP vs area under the step precision-recall curve", aps, areas)
    ax.plot(LEVELS, np.mean(curves, axis=0), marker + "-", ms=4, label=f"{name} (MAP {np.mean(aps):.3f})")
ax.set_ylim(0, 1.05)
ax.legend()

# %% [markdown]
# ## Results per method
#
# The table collects every metric for the five rankings, averaged over the six queries. A full ranking
# of all 32 documents must reach recall 1 at $k = 32$ whatever the method, a last consistency check. On
# this corpus BM25 wins: the queries share most of their words with their relevant documents, while the
# hashed-trigram embedding is a crude stand-in for a trained encoder. Fusion lands close to BM25 and far
# above the dense score, which is its usual role: it protects against the weaker ranker rather than
# beating the stronger one. At $\lambda = 0.7$ MMR reorders the top 5 of q1 and q5 and swaps one document
# into the top 5 of q4, so the averages barely move; lower $\lambda$ to see diversity cost recall.
# Replace `SPARSE`, `DENSE` and the judgments with your own to get the same table for your data.

# %%
METHODS.update({"convex fusion": {q: ranking(FUSED_CVX[q]) for q in QIDS}, "RRF + MMR": MMR_ORDERS})
check_true("recall@32 is 1 for every method and query",
           all(recall_at_k(o[q], RELEVANT[q], tc.N_DOCS) == 1.0 for o in METHODS.values() for q in QIDS))
header = f"{'method':15}{'R@5':>8}{'R@10':>8}{'MRR':>8}{'nDCG@5':>8}{'nDCG@10':>9}{'MAP':>8}"
print(header)
print("-" * len(header))
for name, orders in METHODS.items():
    row = [np.mean([recall_at_k(orders[q], RELEVANT[q], 5) for q in QIDS]),
           np.mean([recall_at_k(orders[q], RELEVANT[q], 10) for q in QIDS]),
           np.mean([reciprocal_rank(orders[q], RELEVANT[q]) for q in QIDS]),
           np.mean([ndcg_at_k(orders[q], GRADES[q], 5) for q in QIDS]),
           np.mean([ndcg_at_k(orders[q], GRADES[q], 10) for q in QIDS]),
           np.mean([average_precision(orders[q], RELEVANT[q]) for q in QIDS])]
    print(f"{name:15}" + "".join(f"{v:8.3f}" for v in row[:4]) + f"{row[4]:9.3f}{row[5]:8.3f}")
