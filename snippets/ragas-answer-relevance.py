"""RAGAS answer relevance with the toy-corpus embedding: scikit-learn's cosine_similarity on rescaled
(non-unit) embeddings, exact limits, and a direct answer scoring above an evasive one."""

import numpy as np
import ragas_fixture as rf
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics.pairwise import cosine_similarity


# --- formula ---
def answer_relevance(e_question: np.ndarray, e_generated: np.ndarray, noncommittal=(), gate="any") -> float:
    """(1/n) sum_i cos(E_q, E_{q_i}): mean cosine between the question's embedding and the embeddings
    of the n questions an LLM generated back from the answer (rows of e_generated). The ragas library
    adds a gate (not in the paper): the score is 0 if the judge flags the answer as noncommittal
    ("I don't know"), in older releases when ANY generation is flagged (gate="any"), in the newer
    metrics collection only when ALL of them are (gate="all"). No flags given: no gate."""
    g = np.atleast_2d(e_generated)
    cos = (g @ e_question) / (np.linalg.norm(g, axis=1) * np.linalg.norm(e_question))
    flags = np.asarray(noncommittal, dtype=bool)
    if gate == "any":
        flagged = bool(np.any(flags))
    else:
        flagged = flags.size > 0 and bool(np.all(flags))
    return float(np.mean(cos)) * int(not flagged)
# --- end formula ---


# Questions "generated back" from two answers per example (written for this project, n = 3 each, the
# ragas default): one answer addresses the question, the other is evasive.
GENERATED = {
    "q1": (["Why does BM25 stop rewarding a term that is repeated?",
            "How does term frequency saturation work in BM25?",
            "What does the k1 parameter of BM25 control?"],
           ["What does the answer depend on?", "Is this question hard to answer?",
            "Which factors matter here?"]),
    "q4": (["How does grounding answers in retrieved passages reduce hallucination?",
            "Why do models hallucinate facts that no source supports?",
            "Does citing retrieved passages reduce hallucination?"],
           ["What is a language model?", "Can models make mistakes?", "Who builds language models?"]),
    "q5": (["What is an approximate nearest neighbour index?",
            "How does an ANN vector index trade recall for speed?",
            "What are HNSW and IVF indexes?"],
           ["What is a database?", "How are numbers stored in a computer?", "Why is search fast?"]),
}

rng = np.random.default_rng(0)
rows = {}
for qid, (direct, evasive) in GENERATED.items():
    e_q = tc.embed(rf.EXAMPLES[qid]["question"])
    E_direct = np.stack([tc.embed(t) for t in direct])
    E_evasive = np.stack([tc.embed(t) for t in evasive])
    # Real encoders need not return unit vectors: rescale every embedding by a random factor.
    s_q = rng.uniform(0.2, 5.0)
    s_g = rng.uniform(0.2, 5.0, size=(3, 1))
    got = answer_relevance(s_q * e_q, s_g * E_direct)
    ref = float(np.mean(cosine_similarity((s_q * e_q)[None, :], s_g * E_direct)))
    check_close(f"{qid}: vs sklearn cosine_similarity averaged, on rescaled embeddings", got, ref, rtol=1e-12)
    rows[qid] = (got, answer_relevance(e_q, E_evasive))
check_true("every example: the direct answer's generated questions score above the evasive answer's",
           all(d > e for d, e in rows.values()),
           "; ".join(f"{q}: direct {d:.3f}, evasive {e:.3f}" for q, (d, e) in rows.items()))

# Exact limits: regenerating the question itself gives 1; its negation gives -1; orthogonal gives 0.
e = tc.embed(rf.EXAMPLES["q1"]["question"])
o = rng.standard_normal(e.size)
o -= (o @ e) * e                      # orthogonal to e
check_close("generated questions equal to the question (any lengths): 1",
            answer_relevance(e, [2 * e, 0.5 * e]), 1.0, rtol=1e-12)
check_close("the negated vector: -1 (cosine is not clipped to [0, 1])", answer_relevance(e, [-3 * e]), -1.0,
            rtol=1e-12)
check_close("one identical, one orthogonal, one opposite: mean of 1, 0 and -1",
            answer_relevance(7 * e, np.stack([e, 4 * o, -e])), 0.0, atol=1e-12)
check_close("mean, not sum: three copies score like one",
            answer_relevance(e, np.stack([e, e, e])), answer_relevance(e, e), rtol=1e-12)

# Library gate, both rules. Older ragas: one noncommittal flag among the generations zeroes the score.
# Newer ragas: only a unanimous flag does. With no flag, or no flags passed, both give the plain mean.
e4, E4 = tc.embed(rf.EXAMPLES["q4"]["question"]), np.stack([tc.embed(t) for t in GENERATED["q4"][0]])
plain = float(np.mean(cosine_similarity(e4[None, :], E4)))
check_close("q4, 'any' rule: flags (no, yes, no) give 0; (no, no, no) the plain mean cosine",
            [answer_relevance(e4, E4, [False, True, False]), answer_relevance(e4, E4, [False] * 3)],
            [0.0, plain], rtol=1e-12)
check_close("q4, 'all' rule: flags (no, yes, no) keep the plain mean; (yes, yes, yes) give 0",
            [answer_relevance(e4, E4, [False, True, False], gate="all"),
             answer_relevance(e4, E4, [True] * 3, gate="all")], [plain, 0.0], rtol=1e-12)
check_close("'all' rule with a single generation: flag (yes) gives 0, no flags at all the plain cosine",
            [answer_relevance(e4, E4[:1], [True], gate="all"), answer_relevance(e4, E4[:1], gate="all")],
            [0.0, float(cosine_similarity(e4[None, :], E4[:1])[0, 0])], rtol=1e-12)

fig, ax = figure("Answer relevance on the toy examples", "example", "mean cosine to the question")
x = np.arange(len(rows))
ax.bar(x - 0.2, [d for d, _ in rows.values()], 0.4, label="direct answer")
ax.bar(x + 0.2, [e for _, e in rows.values()], 0.4, label="evasive answer")
ax.set_xticks(x, list(rows))
ax.legend()
