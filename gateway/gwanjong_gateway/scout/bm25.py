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
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in set(query) if df[t]}
    scores: list[float] = []
    for c, dl in zip(counts, lengths, strict=True):
        norm = K1 * (1 - B + B * dl / avgdl)
        total = 0.0
        for term in query:
            tf = c.get(term, 0)
            if tf:
                total += idf[term] * tf * (K1 + 1) / (tf + norm)
        scores.append(total)
    return scores
