"""Term frequency on the toy corpus: vs a regex count in the raw text, Counter, df/cf/length identities."""

import re
from collections import Counter

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: counting each term's positions (a bincount): only the id lookup can slip
def term_frequency(tokens: list[str], vocab: list[str]) -> np.ndarray:
    """tf(t, d) = number of positions of d holding t, for every t in vocab."""
    index = {t: i for i, t in enumerate(vocab)}
    ids = np.array([index[t] for t in tokens], dtype=int)
    return np.bincount(ids, minlength=len(vocab)).astype(float)
# --- end formula ---


vocab = tc.vocabulary()
docs = tc.doc_tokens()
tf = np.stack([term_frequency(d, vocab) for d in docs])                   # 32 x V

# Direct count 1: whole-word matches in the raw lower-cased text, no tokenizer involved.
q1_terms = tc.query_tokens("q1")
regex = np.array([[len(re.findall(rf"(?<![a-z0-9]){t}(?![a-z0-9])", d.text.lower())) for t in q1_terms]
                  for d in tc.DOCS])
check_close("q1 terms in all 32 documents vs whole-word regex matches in the raw text",
            tf[:, [vocab.index(t) for t in q1_terms]], regex, rtol=0)
# Direct count 2: collections.Counter over every document and every term.
counter = np.array([[Counter(d)[t] for t in vocab] for d in docs])
check_close("whole 32 x V matrix vs collections.Counter", tf, counter, rtol=0)
check_close("hand count: d04 (keyword stuffing) has tf(term) = 5, tf(frequency) = 5, tf(bm25) = 3",
            tf[3, [vocab.index("term"), vocab.index("frequency"), vocab.index("bm25")]], [5, 5, 3], rtol=0)

# --- in code: scikit-learn ---
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402

texts = [d.text for d in tc.DOCS]
mine = CountVectorizer(analyzer=tc.tokenize).fit(texts)
check_close("CountVectorizer(analyzer=tokenize).fit_transform(texts): the whole 32 x V matrix",
            mine.transform(texts).toarray(), tf, rtol=0)
default = CountVectorizer().fit(texts)
kept = list(default.get_feature_names_out())
dropped = sorted(set(vocab) - set(kept))
check_true("pitfall: the default token_pattern keeps tokens of 2+ characters only: 'a', '0', '3' vanish",
           dropped == ["0", "3", "a"] and mine.get_feature_names_out().tolist() == vocab,
           f"dropped {dropped}")
check_close("... while the counts of the terms it keeps are the card's tf",
            default.transform(texts).toarray(), tf[:, [vocab.index(t) for t in kept]], rtol=0)
# --- end in code ---

# Identities: a document's counts add up to its length; summing over documents gives the collection
# frequency cf, counting the non-zero entries gives the document frequency df.
check_close("sum_t tf(t, d) = |d| for every document", tf.sum(axis=1), tc.doc_lengths(), rtol=0)
check_close("sum_d tf(t, d) = cf(t) and #{d : tf(t, d) > 0} = df(t), every term",
            [tf.sum(axis=0), (tf > 0).sum(axis=0)], [[tc.cf(t) for t in vocab], [tc.df(t) for t in vocab]],
            rtol=0)
check_true("tf ignores order: a shuffled document has the same counts",
           np.array_equal(term_frequency(list(np.random.default_rng(0).permutation(docs[27])), vocab),
                          tf[27]))

# Raw tf rewards repetition: ranking by the summed tf of the q1 terms puts the stuffed page first.
q_tf = tf[:, [vocab.index(t) for t in q1_terms]].sum(axis=1)
check_true("summed raw tf of 'bm25 term frequency saturation' ranks d04 (judged 0) first",
           int(np.argmax(q_tf)) == 3 and tc.grades("q1")[3] == 0,
           f"top 3: {[(tc.DOC_IDS[i], int(q_tf[i])) for i in np.argsort(-q_tf, kind='stable')[:3]]}")

# Zipf-like rank-frequency curve of the collection.
cf = np.sort(tf.sum(axis=0))[::-1]
fig, ax = figure("Collection frequency by rank, toy corpus", "rank of the term", "occurrences in the corpus")
ax.loglog(np.arange(1, len(cf) + 1), cf, marker=".", linestyle="none")
ax.loglog([1, len(cf)], [cf[0], cf[0] / len(cf)], color="gray", linewidth=1, label="slope −1 (Zipf)")
ax.legend()
