"""The toy corpus's runs and per-query results in the form trec_eval's Python front ends (ir-measures,
pytrec_eval) use: {query id: {document id: score}} beside toy_corpus.QRELS as the qrels. Only the
retrieval-metric cards' In code regions import it."""

import numpy as np
import toy_corpus as tc


def trec_run(scores: dict[str, np.ndarray], depth: int | None = None) -> dict[str, dict[str, float]]:
    """Each query's `depth` best-scored documents (all by default) as {document id: score}."""
    return {q: {tc.DOC_IDS[i]: float(s[i]) for i in np.argsort(-s, kind="stable")[:depth]}
            for q, s in scores.items()}


def by_query(measurements) -> list[float]:
    """Per-query values (objects with .query_id and .value, as ir_measures.iter_calc yields them, in
    any order) listed in the order of toy_corpus.QUERIES."""
    values = {m.query_id: m.value for m in measurements}
    return [values[q] for q in tc.QUERIES]
