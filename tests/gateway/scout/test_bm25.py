from __future__ import annotations

import math

import pytest

from gwanjong_gateway.scout.bm25 import bm25_scores


def test_score_matches_the_okapi_formula_by_hand() -> None:
    docs = [["rust", "async", "rust"], ["python"], ["go", "async"]]
    scores = bm25_scores(["rust"], docs)
    # df(rust) = 1 of N = 3; avgdl = 2; doc 0 has tf = 2 and length 3.
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    norm = 1.5 * (1 - 0.75 + 0.75 * 3 / 2)
    assert scores[0] == pytest.approx(idf * 2 * 2.5 / (2 + norm))
    assert scores[1] == 0.0 and scores[2] == 0.0


def test_rare_words_weigh_more_and_frequency_saturates() -> None:
    docs = [["async"] * 40, ["async", "cancellation"], ["async"], ["async", "tokio"]]
    scores = bm25_scores(["async", "cancellation"], docs)
    assert scores.index(max(scores)) == 1
    # 40 repetitions do not make 40 times the score of one.
    assert scores[0] < 2 * scores[2]


def test_empty_inputs() -> None:
    assert bm25_scores(["x"], []) == []
    assert bm25_scores([], [["a"]]) == [0.0]
