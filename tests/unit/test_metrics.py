"""Metrics through ir_measures, on tiny qrels and runs whose values are worked out by hand below."""

from __future__ import annotations

import math

import pytest

from pipeline.errors import InvalidInput
from pipeline.evaluation import metrics as m
from pipeline.evaluation.recommend import pareto_front
from pipeline.evaluation.significance import paired_test

# q1: a is highly relevant (grade 2), b relevant (1), n judged NOT relevant (0).
# q2: c relevant. q3: d relevant but nothing retrieved. q4: retrieved but never judged (not scored).
# q5: judged, but only with grade 0 (cannot be scored).
QRELS = {"q1": {"a": 2, "b": 1, "n": 0}, "q2": {"c": 1}, "q3": {"d": 1}, "q5": {"e": 0}}
RANKINGS = {"q1": ["x", "a", "n", "b"], "q2": ["c", "y"], "q3": [], "q4": ["a"], "q5": ["e"]}
LOG2_3 = math.log2(3)  # 1.5849625
LOG2_5 = math.log2(5)  # 2.3219281

# q1, gains are the grades (trec_eval), discount log2(rank + 1):
#   DCG@3  = 0/log2(2) + 2/log2(3) + 0/log2(4)             = 1.2618595
#   DCG@10 = DCG@3 + 1/log2(5) (b at rank 4)                = 1.2618595 + 0.4306766 = 1.6925361
#   IDCG   = 2/log2(2) + 1/log2(3) (a, then b)              = 2.6309298
Q1_NDCG3 = (2 / LOG2_3) / (2 + 1 / LOG2_3)  # 1.2618595 / 2.6309298 = 0.4796249
Q1_NDCG10 = (2 / LOG2_3 + 1 / LOG2_5) / (2 + 1 / LOG2_3)  # 1.6925361 / 2.6309298 = 0.6433224


def test_per_query_values_match_hand_computation() -> None:
    names = [
        "ndcg@3",
        "ndcg@10",
        "recall@3",
        "recall@10",
        "precision@3",
        "precision@10",
        "mrr@10",
        "mrr@1",
        "hit@1",
        "hit@3",
    ]
    got = m.per_query(QRELS, RANKINGS, names)
    assert set(got) == {"q1", "q2", "q3"}  # q4: no judgments; q5: no relevant judgment
    q1, q2, q3 = got["q1"], got["q2"], got["q3"]
    assert q1["ndcg@3"] == pytest.approx(Q1_NDCG3, abs=1e-6)
    assert q1["ndcg@3"] == pytest.approx(0.4796249, abs=1e-6)
    assert q1["ndcg@10"] == pytest.approx(0.6433224, abs=1e-6)
    assert q1["recall@3"] == pytest.approx(0.5)  # a of {a, b}
    assert q1["recall@10"] == pytest.approx(1.0)
    assert q1["precision@3"] == pytest.approx(1 / 3)  # n (grade 0) does not count
    assert q1["precision@10"] == pytest.approx(0.2)  # 2 relevant / 10, even though only 4 were returned
    assert q1["mrr@10"] == pytest.approx(0.5)  # first relevant at rank 2
    assert q1["mrr@1"] == 0.0
    assert (q1["hit@1"], q1["hit@3"]) == (0.0, 1.0)
    # q2: c at rank 1 -> perfect, except P@3 = 1/3
    assert q2["ndcg@3"] == pytest.approx(1.0)
    assert (q2["recall@3"], q2["mrr@10"], q2["hit@1"]) == (1.0, 1.0, 1.0)
    assert q2["precision@3"] == pytest.approx(1 / 3)
    # q3: nothing retrieved -> 0 on every metric (trec_eval alone would drop the query)
    assert all(v == 0.0 for v in q3.values())


def test_graded_gain_is_linear_not_exponential() -> None:
    # With exponential gains (2^g - 1) q1's nDCG@3 would be (3/log2 3) / (3 + 1/log2 3) = 0.5213, not 0.4796.
    exponential = (3 / LOG2_3) / (3 + 1 / LOG2_3)
    got = m.per_query(QRELS, RANKINGS, ["ndcg@3"])["q1"]["ndcg@3"]
    assert got == pytest.approx(Q1_NDCG3, abs=1e-6)
    assert abs(got - exponential) > 0.04


def test_ranking_order_is_kept_whatever_the_ids() -> None:
    # b (grade 1) above a (grade 2): DCG = 1/1 + 2/log2 3 = 2.2618595; IDCG = 2.6309298 -> 0.8597186.
    # trec_eval sorts by score and breaks ties by id: equal scores would put a or b first by name instead.
    got = m.per_query({"q": {"a": 2, "b": 1}}, {"q": ["b", "a"]}, ["ndcg@10"])["q"]["ndcg@10"]
    assert got == pytest.approx((1 + 2 / LOG2_3) / (2 + 1 / LOG2_3), abs=1e-6)
    assert got == pytest.approx(0.8597186, abs=1e-6)


def test_mean_over_queries() -> None:
    rows = m.per_query(QRELS, RANKINGS, ["ndcg@3", "mrr@10"])
    means = m.mean(rows.values(), ["ndcg@3", "mrr@10"])
    assert means["ndcg@3"] == pytest.approx((Q1_NDCG3 + 1.0 + 0.0) / 3, abs=1e-6)  # (0.4796249 + 1 + 0) / 3 = 0.4932083
    assert means["mrr@10"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)  # 0.5
    assert m.mean([], ["ndcg@3"]) == {"ndcg@3": 0.0}


@pytest.mark.parametrize("bad", ["ndcg", "ndcg@0", "foo@10", "recall@x", ""])
def test_unknown_metric_names_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidInput):
        m.parse_metric(bad)


def test_paired_test_identical_and_clear_difference() -> None:
    same = paired_test([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])
    assert (same.p_randomization, same.p_ttest, same.delta) == (1.0, 1.0, 0.0)
    # 12 queries, B better on every one by 0.2-0.4: of the 2^12 = 4,096 sign flips only the all-positive and
    # all-negative ones reach the observed mean difference, so the exact two-sided p is 2/4096 = 0.00049;
    # with 10,000 random flips the estimate is within a few thousandths of that.
    a = [0.1 * i for i in range(12)]
    b = [x + 0.2 + 0.02 * i for i, x in enumerate(a)]
    test = paired_test(a, b)
    assert test.delta == pytest.approx(0.2 + 0.02 * 5.5)
    assert test.p_randomization < 0.005
    assert test.p_ttest < 1e-6
    assert test.significant
    # one query: no evidence either way
    assert paired_test([0.2], [0.9]).p_randomization == 1.0


class _S:
    def __init__(self, key: str, q: float, p50: float, k: int = 10, n: int = 50, cost: float = 0.0) -> None:
        self.key, self.q, self.p50_ms, self.top_k, self.candidates, self.cost_usd = key, q, p50, k, n, cost
        self.reranker = "local"

    def metric(self, name: str) -> float:
        return self.q if name == "ndcg@10" else 0.5


def test_pareto_front() -> None:
    settings = [
        _S("best", 0.600, 300),
        _S("close-fast", 0.595, 100),
        _S("slow-bad", 0.500, 400),
        _S("fast-bad", 0.400, 50),
    ]
    # slow-bad is beaten on both quality and latency by close-fast; the others each win on something
    assert pareto_front(settings, "ndcg@10") == {"best", "close-fast", "fast-bad"}
