"""The recommendation rule on hand-made settings and per-query scores: who wins, ties, k preference, the sentence."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from pipeline.evaluation.recommend import metric_label, p_words, recommend
from pipeline.retrieval.setting import Setting, setting

QUERIES = 12
BASE = [0.1 * (i % 4) for i in range(QUERIES)]  # 0, .1, .2, .3, ...


def better(by: float, noise: float = 0.0) -> list[float]:
    """The baseline's scores plus `by` on every query (a clear, significant gain), with a small wobble."""
    return [b + by + noise * ((i % 3) - 1) for i, b in enumerate(BASE)]


@dataclass
class S:
    reranker: str
    candidates: int
    top_k: int
    p50_ms: float = 30.0
    cost_usd: float | None = 0.0
    scores: list[float] = field(default_factory=lambda: list(BASE))
    recipe: str = "vector"
    judged: float | None = None  # judged@k; None: not measured (an experiment saved before coverage)
    condensed: list[float] | None = None  # per-query condensed metric (None: the same as `scores`)

    @property
    def key(self) -> str:
        return f"{self.reranker} N={self.candidates} k={self.top_k}"

    @property
    def setting(self) -> Setting:
        return setting(self.recipe, self.candidates, self.reranker, self.top_k)

    def metric(self, name: str) -> float:
        return sum(self.scores) / len(self.scores)


BASELINE = S("none", 50, 10, p50_ms=30.0)


def run(*settings: S, metric: str = "ndcg@k"):
    scores = {s.key: s.scores for s in (*settings, BASELINE)}
    return recommend(list(settings), BASELINE, scores, metric, QUERIES)


def test_a_clear_winner_is_said_in_words_with_delta_p_and_latency() -> None:
    win = S("local", 25, 10, p50_ms=70.0, scores=better(0.11))
    rec = run(S("none", 25, 10), win)
    assert rec.key == "local N=25 k=10" and rec.beats_baseline
    assert rec.delta == pytest.approx(0.11)
    # 12 queries all better: the exact two-sided p is 2 / 4096 = 0.0005
    assert rec.p_value is not None and rec.p_value < 0.001
    assert rec.sentence == "vector + local, N=25, k=10 beats the baseline by +0.11 nDCG@k, p < 0.001, at +40 ms p50."


def test_within_noise_the_smaller_k_wins_not_the_larger() -> None:
    # k=10 is the best on average, k=5 is a hair lower: the queries cannot tell them apart, so the smaller k wins
    k10 = S("local", 25, 10, scores=better(0.200, noise=0.02))
    k5 = S("local", 25, 5, scores=better(0.195, noise=0.03))
    rec = run(k10, k5)
    assert rec.best == k10.key
    assert rec.key == k5.key
    assert "as good as the best, vector + local, N=25, k=10, within noise" in rec.sentence


def test_a_significant_difference_is_not_noise() -> None:
    k10 = S("local", 25, 10, scores=better(0.4))
    k5 = S("local", 25, 5, scores=better(0.1))  # also beats the baseline, but clearly below k=10
    assert run(k10, k5).key == k10.key


def test_ties_go_to_smaller_k_then_smaller_n_then_cheaper_then_faster() -> None:
    same = better(0.2)
    a = S("local", 100, 10, scores=same)
    b = S("local", 25, 10, scores=same)
    c = S("voyage", 25, 10, scores=same, cost_usd=0.5)
    assert run(a, b).key == b.key  # smaller N
    assert run(c, b).key == b.key  # cheaper reranker
    slow, fast = S("local", 25, 10, p50_ms=90, scores=same), S("none", 25, 10, p50_ms=20, scores=same)
    assert run(slow, fast).key == fast.key  # lower p50
    assert run(a, S("local", 100, 5, scores=same)).key == "local N=100 k=5"  # smaller k before smaller N


def test_no_winner_keeps_the_baseline_and_says_so() -> None:
    # a small gain on a few queries only: not significant
    scores = list(BASE)
    scores[0] += 0.05
    rec = run(S("local", 25, 10, scores=scores))
    assert rec.key == BASELINE.key and not rec.beats_baseline
    assert rec.sentence.startswith("No setting beats the baseline (vector + none, N=50, k=10) significantly on nDCG@k")
    assert "the best, vector + local, N=25, k=10" in rec.sentence and rec.sentence.endswith("keep the baseline.")


def test_nothing_above_the_baseline() -> None:
    rec = run(S("none", 25, 5, scores=[b - 0.05 for b in BASE]))
    assert rec.key == BASELINE.key and not rec.beats_baseline
    assert "as high as any" in rec.sentence


def test_a_significantly_worse_setting_is_never_a_winner() -> None:
    rec = run(S("none", 10, 3, scores=[b - 0.2 for b in BASE]))
    assert not rec.beats_baseline and rec.key == BASELINE.key


def test_priced_reranker_cost_per_thousand_queries() -> None:
    rec = run(S("voyage", 25, 10, p50_ms=130, cost_usd=0.06, scores=better(0.1)))
    assert rec.sentence.endswith("at +100 ms p50 and $5.00 per 1,000 queries.")


def test_labels() -> None:
    assert metric_label("ndcg@k") == "nDCG@k" and metric_label("mrr@10") == "MRR@10"
    assert (p_words(0.0004), p_words(0.0123)) == ("p < 0.001", "p = 0.012")


def condensed_run(*settings: S, kind: str, baseline_judged: float | None = None):
    """`recommend` with condensed scores, on a `kind` judgment set, the baseline's top k `baseline_judged` judged."""
    baseline = replace(BASELINE, judged=baseline_judged)
    every = (*settings, baseline)
    scores = {s.key: s.scores for s in every}
    condensed = {s.key: s.condensed if s.condensed is not None else s.scores for s in every}
    return recommend(list(settings), baseline, scores, "ndcg@k", QUERIES, condensed, kind)  # type: ignore[arg-type]


def test_on_sparse_judgments_a_winner_is_recommended_however_little_of_its_top_k_is_judged() -> None:
    # TAT-QA-like: one relevant fact a query, so judged@k is about 10% for every setting; a reranker of the same pool
    # finds the same judged facts, so the condensed metric ties
    reranked = S("local", 50, 10, scores=better(0.2), judged=0.12, condensed=list(BASE))
    rec = condensed_run(reranked, kind="sparse")
    assert rec.key == reranked.key and rec.beats_baseline and not rec.unsure
    assert rec.sentence.startswith("vector + local, N=50, k=10 beats the baseline by +0.20 nDCG@k, p < 0.001")
    assert "With unjudged facts left out it ties (nDCG@k' +0.00, p = 1.000)" in rec.sentence
    assert "sparse judgments count unjudged facts as not relevant, so the plain metric decides" in rec.sentence
    assert "sparse judgments" in rec.rule
    also = condensed_run(S("local", 50, 10, scores=better(0.2), judged=0.12, condensed=better(0.1)), kind="sparse")
    assert "With unjudged facts left out it also wins (nDCG@k' +0.10, p < 0.001)." in also.sentence


def test_on_pooled_judgments_a_lead_from_the_baselines_unjudged_facts_is_not_recommended() -> None:
    # the setting's top k is judged far more than the baseline's, and without the unjudged facts it ties
    lead = S("local", 50, 10, scores=better(0.3), judged=0.9, condensed=list(BASE))
    rec = condensed_run(lead, kind="pooled", baseline_judged=0.4)
    assert rec.key == BASELINE.key and not rec.beats_baseline and rec.unsure == (lead.key,)
    assert rec.p_value is not None and rec.p_value < 0.001 and rec.delta == pytest.approx(0.3)
    assert rec.sentence == (
        "No setting beats the baseline (vector + none, N=50, k=10) on nDCG@k on judged facts alone: the best, "
        "vector + local, N=50, k=10, is +0.30 nDCG@k, p < 0.001, at +0 ms p50, but its lead rests on unjudged facts: "
        "it ties on nDCG@k' (+0.00, p = 1.000), with 90% of its top k judged against the baseline's 40%; keep the "
        "baseline until they are judged."
    )


def test_on_pooled_judgments_a_lead_that_holds_without_unjudged_facts_is_recommended() -> None:
    lead = S("local", 50, 10, scores=better(0.3), judged=0.9, condensed=better(0.2))
    rec = condensed_run(lead, kind="pooled", baseline_judged=0.4)
    assert rec.key == lead.key and rec.beats_baseline and not rec.unsure
    assert "With unjudged facts left out it also wins (nDCG@k' +0.20, p < 0.001)." in rec.sentence


def test_on_pooled_judgments_a_setting_judged_less_than_the_baseline_leads_by_a_lower_bound() -> None:
    # its unjudged facts count against it: the lead can only grow once they are judged
    lead = S("local", 50, 10, scores=better(0.3), judged=0.3, condensed=list(BASE))
    rec = condensed_run(lead, kind="pooled", baseline_judged=0.9)
    assert rec.key == lead.key and rec.beats_baseline
    assert "its unjudged facts count against it and its lead is a lower bound" in rec.sentence


def test_a_higher_scorer_whose_lead_rests_on_unjudged_facts_is_named_beside_the_winner() -> None:
    unsure = S("local", 25, 10, scores=better(0.40), judged=0.95, condensed=list(BASE))
    sure = S("local", 50, 10, scores=better(0.11), judged=0.5, condensed=better(0.1))
    rec = condensed_run(unsure, sure, kind="pooled", baseline_judged=0.5)
    assert rec.key == sure.key and rec.unsure == (unsure.key,)
    assert rec.sentence.endswith(
        "Not chosen, for a lead that rests on unjudged facts: vector + local, N=25, k=10 (95% judged)."
    )


def test_without_condensed_scores_nothing_is_held_back() -> None:
    rec = run(S("local", 25, 10, scores=better(0.30), judged=0.05))  # an experiment saved before coverage
    assert rec.key == "local N=25 k=10" and "unjudged" not in rec.sentence
