"""Okapi BM25 in plain Python: a scout ranks at most a few hundred short posts, where an
index library (and numpy under it) costs more to import than the scoring takes."""

from __future__ import annotations

import math
from collections import Counter

K1 = 1.5
B = 0.75


def bm25_scores(query: list[str], docs: list[list[str]]) -> list[float]:
    """Each document's BM25 score for the query tokens (Lucene's idf, never negative)."""
    if not docs:
        return []
    counts = [Counter(doc) for doc in docs]
    lengths = [len(doc) for doc in docs]
    avgdl = (sum(lengths) / len(docs)) or 1.0
    n = len(docs)
    df = Counter(term for c in counts for term in c)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in set(query) if df[t]}
    scores: list[float] = []
    for c, dl in zip(counts, lengths, strict=True):
        norm = K1 * (1 - B + B * dl / avgdl)
        scores.append(sum(idf[t] * c[t] * (K1 + 1) / (c[t] + norm) for t in query if c[t]))
    return scores
