"""The recommendation rule on hand-made settings and per-query scores: who wins, ties, k preference, the sentence."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pipeline.evaluation.recommend import metric_label, p_words, recommend

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

    @property
    def key(self) -> str:
        return f"{self.reranker} N={self.candidates} k={self.top_k}"

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


def test_a_setting_resting_on_unjudged_facts_is_never_recommended_and_the_sentence_says_so() -> None:
    uncovered = S("local", 25, 10, scores=better(0.30), judged=0.55)
    covered = S("local", 50, 10, scores=better(0.11), judged=0.9)
    rec = run(uncovered, covered)
    assert rec.key == covered.key and rec.beats_baseline  # the higher scorer rests on unjudged facts
    assert rec.sentence.endswith(
        "Not recommended, for resting on unjudged facts (under 80% of the top k judged): "
        "vector + local, N=25, k=10 (55% judged)."
    )
    assert "never recommended" in rec.rule
    alone = run(uncovered)  # nothing else beats the baseline: the baseline stays, and why the winner is out
    assert alone.key == BASELINE.key and not alone.beats_baseline and "(55% judged)" in alone.sentence
    unmeasured = run(S("local", 25, 10, scores=better(0.30)))  # no coverage recorded: nothing left out
    assert unmeasured.key == "local N=25 k=10" and "unjudged" not in unmeasured.sentence
