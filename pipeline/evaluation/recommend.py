"""Which setting to use, by a stated rule on the metric the user picked, said in one sentence; the Pareto front.

Rule: a setting is a winner when it beats the baseline on the metric, query by query (Fisher randomization
test, p < 0.05, and a higher mean). Among the winners, those within noise of the best one (their own paired
test against it gives p >= 0.05) are as good as it; of those, the one that hands on least wins: the smallest k,
then the smallest N, then the cheaper reranker, then the lower p50. So a larger k is never chosen for a
difference the queries cannot tell apart. No winner: the baseline stays, and the sentence says so.

Coverage: a setting whose top k is on average under `MIN_JUDGED` judged (judged@k) rests on unjudged facts, which
count as not relevant; it is never recommended, and the sentence names those left out for it. Experiments saved
before coverage was measured have none, and nothing is left out of theirs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from pipeline.evaluation.significance import ALPHA, PairedTest, paired_test_cached

MIN_JUDGED = 0.8  # the least judged@k a setting needs to be recommended
DISPLAY = {"ndcg": "nDCG", "recall": "recall", "precision": "precision", "mrr": "MRR", "hit": "hit"}
RULE = (
    "winners beat the baseline on {metric} (paired randomization test, p < {alpha}); of the winners within noise "
    "of the best (p >= {alpha} against it): the smallest k, then the smallest N, then the cheapest, then the "
    "lowest p50"
)


class Scored(Protocol):
    key: str
    recipe: str
    reranker: str
    candidates: int
    top_k: int
    p50_ms: float
    cost_usd: float | None

    @property
    def judged(self) -> float | None: ...

    def metric(self, name: str) -> float: ...


@dataclass(frozen=True)
class Recommendation:
    key: str  # the setting to use (the baseline when nothing beats it)
    metric: str
    beats_baseline: bool
    delta: float  # the metric, chosen (or best, when nothing wins) minus baseline
    p_value: float | None  # of that difference (randomization); None when the best is the baseline itself
    latency_ms: float  # p50, chosen (or best) minus baseline
    best: str  # the setting with the highest mean on the metric
    sentence: str
    rule: str


def metric_label(metric: str) -> str:
    """'ndcg@k' -> 'nDCG@k', 'recall@10' -> 'recall@10'."""
    kind, _, cutoff = metric.partition("@")
    return f"{DISPLAY.get(kind, kind)}@{cutoff}"


def rests_on_unjudged(s: Scored) -> bool:
    return s.judged is not None and s.judged < MIN_JUDGED


def setting_words(s: Scored) -> str:
    return f"{s.recipe} + {s.reranker}, N={s.candidates}, k={s.top_k}"


def p_words(p: float | None) -> str:
    if p is None:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _signed(x: float) -> str:
    return f"{x:+.2f}" if abs(x) >= 0.01 or x == 0 else f"{x:+.3f}"


def recommend(
    settings: Sequence[Scored],
    baseline: Scored,
    scores: Mapping[str, Sequence[float]],
    metric: str = "ndcg@k",
    queries: int | None = None,
) -> Recommendation:
    """`scores`: per-query values of `metric`, aligned by query, for every setting and the baseline. `queries`:
    how many queries the costs cover (for the cost per 1,000 queries in the sentence)."""
    if not settings:
        raise ValueError("no settings to choose from")
    base = scores[baseline.key]
    tests = {s.key: paired_test_cached(base, scores[s.key]) for s in settings if s.key != baseline.key}
    beat = [s for s in settings if s.key in tests and tests[s.key].significant and tests[s.key].delta > 0]
    winners = [s for s in beat if not rests_on_unjudged(s)]
    rule = RULE.format(metric=metric_label(metric), alpha=ALPHA) + (
        f"; a setting with under {MIN_JUDGED:.0%} of its top k judged is never recommended"
    )
    uncovered = [s for s in beat if rests_on_unjudged(s)]
    coverage = (
        f" Not recommended, for resting on unjudged facts (under {MIN_JUDGED:.0%} of the top k judged): "
        + "; ".join(f"{setting_words(s)} ({s.judged:.0%} judged)" for s in uncovered[:3])
        + (f" and {len(uncovered) - 3} more" if len(uncovered) > 3 else "")
        + "."
        if uncovered
        else ""
    )
    recommendation = _recommend(settings, baseline, scores, metric, queries, tests, winners, rule)
    if not coverage:
        return recommendation
    return replace(recommendation, sentence=recommendation.sentence + coverage)


def _recommend(
    settings: Sequence[Scored],
    baseline: Scored,
    scores: Mapping[str, Sequence[float]],
    metric: str,
    queries: int | None,
    tests: Mapping[str, PairedTest],
    winners: Sequence[Scored],
    rule: str,
) -> Recommendation:
    best = max(settings, key=lambda s: (s.metric(metric), -s.top_k, -s.candidates))
    if winners:
        top = max(winners, key=lambda s: (s.metric(metric), -s.top_k, -s.candidates))
        close = [s for s in winners if s is top or not paired_test_cached(scores[top.key], scores[s.key]).significant]
        chosen = min(close, key=lambda s: (s.top_k, s.candidates, s.cost_usd or 0.0, s.p50_ms, s.key))
        test = tests[chosen.key]
        latency = chosen.p50_ms - baseline.p50_ms
        sentence = (
            f"{setting_words(chosen)} beats the baseline by {_signed(test.delta)} {metric_label(metric)}, "
            f"{p_words(test.p_randomization)}, at {latency:+.0f} ms p50"
        )
        if chosen.cost_usd and queries:
            sentence += f" and ${chosen.cost_usd / queries * 1000:.2f} per 1,000 queries"
        if chosen.key != top.key:
            sentence += f" (as good as the best, {setting_words(top)}, within noise)"
        return Recommendation(
            chosen.key, metric, True, test.delta, test.p_randomization, latency, top.key, sentence + ".", rule
        )
    label = metric_label(metric)
    if best.key == baseline.key or best.metric(metric) <= baseline.metric(metric):
        sentence = (
            f"No setting beats the baseline ({setting_words(baseline)}) on {label}: "
            f"it scores {baseline.metric(metric):.3f}, as high as any; keep the baseline."
        )
        return Recommendation(baseline.key, metric, False, 0.0, None, 0.0, best.key, sentence, rule)
    test = tests[best.key]
    latency = best.p50_ms - baseline.p50_ms
    sentence = (
        f"No setting beats the baseline ({setting_words(baseline)}) significantly on {label}: the best, "
        f"{setting_words(best)}, is {_signed(test.delta)} {label}, {p_words(test.p_randomization)}, "
        f"at {latency:+.0f} ms p50; keep the baseline."
    )
    p = test.p_randomization
    return Recommendation(baseline.key, metric, False, test.delta, p, latency, best.key, sentence, rule)


def pareto_front(settings: Sequence[Scored], metric: str = "ndcg@k") -> set[str]:
    """Keys of the settings no other setting beats on quality, p50 latency and cost at once."""

    def dominates(a: Scored, b: Scored) -> bool:
        qa, qb = a.metric(metric), b.metric(metric)
        ca, cb = a.cost_usd or 0.0, b.cost_usd or 0.0
        at_least = qa >= qb and a.p50_ms <= b.p50_ms and ca <= cb
        better = qa > qb or a.p50_ms < b.p50_ms or ca < cb
        return at_least and better

    return {s.key for s in settings if not any(dominates(o, s) for o in settings if o is not s)}
