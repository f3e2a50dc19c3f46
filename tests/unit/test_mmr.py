"""The first stage's MMR fusion returns exactly what graphiti's `maximal_marginal_relevance` returns."""

from __future__ import annotations

import numpy as np
import pytest
from graphiti_core.search.search_utils import maximal_marginal_relevance

from pipeline.retrieval.first_stage import mmr


def _candidates(rng: np.random.Generator, n: int, dim: int = 32) -> dict[str, list[float]]:
    vectors = {f"f{i}": list(rng.normal(size=dim)) for i in range(n)}
    if n >= 4:  # identical facts (the same text embedded twice) and a fact without a usable vector
        vectors["f1"] = list(vectors["f0"])
        vectors["f3"] = [0.0] * dim
    return vectors


@pytest.mark.parametrize("n", [0, 1, 2, 7, 60, 200])
@pytest.mark.parametrize(("mmr_lambda", "min_score"), [(0.5, 0.0), (0.5, -2.0), (0.9, -0.1), (0.1, -2.0)])
def test_same_order_and_scores_as_graphiti(n: int, mmr_lambda: float, min_score: float) -> None:
    rng = np.random.default_rng(n)
    candidates = _candidates(rng, n)
    query = list(rng.normal(size=32))
    ours = mmr(query, candidates, mmr_lambda, min_score)
    stock = maximal_marginal_relevance(query, candidates, mmr_lambda, min_score)
    assert ours[0] == stock[0]
    assert ours[1] == pytest.approx(stock[1], abs=1e-12)
    if n >= 4 and min_score < -1:  # the two identical facts are tied and keep their given order
        assert ours[0].index("f0") < ours[0].index("f1")
