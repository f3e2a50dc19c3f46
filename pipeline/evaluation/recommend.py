"""Which setting to use, by a stated rule on the metric the user picked, said in one sentence; the Pareto front.

Rule: a setting is a winner when it beats the baseline on the metric, query by query (Fisher randomization
test, p < 0.05, and a higher mean), and its lead does not rest on unjudged facts (below). Among the winners, those
within noise of the best one (their own paired test against it gives p >= 0.05) are as good as it; of those, the
one that hands on least wins: the smallest k, then the smallest N, then the cheaper reranker, then the lower p50.
So a larger k is never chosen for a difference the queries cannot tell apart. No winner: the baseline stays, and
the sentence says so.

Unjudged facts count as not relevant (trec_eval's and BEIR's convention); how far that matters depends on the kind
of judgment set (`coverage.py`):

- sparse (only relevant facts listed): judged@k is relevance itself, so coverage cannot disqualify anyone; the
  winner is chosen on the metric, and the sentence says whether it also wins on the condensed metric (`ndcg@k'`,
  unjudged facts left out; Sakai 2007). A reranker that only reorders the same N finds the same judged facts, so
  where every judgment has one grade (TAT-QA) it ties there: shown, never a reason to refuse.
- pooled (judged from the settings' top k, "not relevant" answers included): a setting whose top k is judged more
  than the baseline's (by over `COVERAGE_GAP`) may lead only because the baseline's unjudged facts were counted
  as not relevant (pooling bias, Buckley and Voorhees 2004); it must then also win on the condensed metric, or its
  lead "rests on unjudged facts" and the sentence says so, with the pool that would settle it. A setting judged
  less than the baseline is not held back: its unjudged facts count against it, so its lead is a lower bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pipeline.evaluation.coverage import COVERAGE_GAP, POOLED, SPARSE, JudgmentKind
from pipeline.evaluation.significance import ALPHA, PairedTest, paired_test_cached
from pipeline.retrieval.setting import Setting

DISPLAY = {"ndcg": "nDCG", "recall": "recall", "precision": "precision", "mrr": "MRR", "hit": "hit"}
CONDENSED = "'"  # suffix of a condensed metric: "ndcg@k'"
RULE = (
    "winners beat the baseline on {metric} (paired randomization test, p < {alpha}); of the winners within noise "
    "of the best (p >= {alpha} against it): the smallest k, then the smallest N, then the cheapest, then the "
    "lowest p50"
)
RULES = {
    SPARSE: "; sparse judgments: unjudged facts count as not relevant, and the condensed metric is shown, not required",
    POOLED: f"; pooled judgments: a winner judged over {COVERAGE_GAP:.0%} more than the baseline must also win on "
    "the condensed metric",
}


class Scored(Protocol):
    p50_ms: float
    cost_usd: float | None

    @property
    def setting(self) -> Setting: ...

    @property
    def key(self) -> str: ...

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
    # settings that beat the baseline on the metric but whose lead rests on unjudged facts, best first
    unsure: tuple[str, ...] = ()


def metric_label(metric: str) -> str:
    """'ndcg@k' -> 'nDCG@k', 'recall@10' -> 'recall@10', "ndcg@k'" -> "nDCG@k'"."""
    kind, _, cutoff = metric.partition("@")
    return f"{DISPLAY.get(kind, kind)}@{cutoff}"


def p_words(p: float | None) -> str:
    if p is None:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def signed(x: float) -> str:
    return f"{x:+.2f}" if abs(x) >= 0.01 or x == 0 else f"{x:+.3f}"


@dataclass(frozen=True)
class CondensedCheck:
    """A setting against the baseline on the condensed metric, and whether its lead needs that to hold."""

    test: PairedTest
    required: bool  # pooled set and the setting is judged more than the baseline

    @property
    def outcome(self) -> str:
        if self.test.significant:
            return "wins" if self.test.delta > 0 else "loses"
        return "ties"

    @property
    def holds(self) -> bool:
        return not self.required or self.outcome == "wins"

    def words(self, metric: str) -> str:
        test = self.test
        return f"{self.outcome} on {metric_label(metric)} ({signed(test.delta)}, {p_words(test.p_randomization)})"


def _coverage_gap(s: Scored, baseline: Scored) -> bool:
    return s.judged is not None and baseline.judged is not None and s.judged - baseline.judged > COVERAGE_GAP


def recommend(
    settings: Sequence[Scored],
    baseline: Scored,
    scores: Mapping[str, Sequence[float]],
    metric: str = "ndcg@k",
    queries: int | None = None,
    condensed: Mapping[str, Sequence[float]] | None = None,
    kind: JudgmentKind = SPARSE,
) -> Recommendation:
    """`scores`: per-query values of `metric`, aligned by query, for every setting and the baseline; `condensed`:
    the same for the condensed metric (None: not measured, or `metric` is condensed itself); `kind`: the judgment
    set's kind. `queries`: how many queries the costs cover (for the cost per 1,000 queries in the sentence)."""
    if not settings:
        raise ValueError("no settings to choose from")
    base = scores[baseline.key]
    tests = {s.key: paired_test_cached(base, scores[s.key]) for s in settings if s.key != baseline.key}
    beat = [s for s in settings if s.key in tests and tests[s.key].significant and tests[s.key].delta > 0]
    checks: dict[str, CondensedCheck] = {}
    if condensed is not None and not metric.endswith(CONDENSED):
        for s in beat:
            test = paired_test_cached(condensed[baseline.key], condensed[s.key])
            checks[s.key] = CondensedCheck(test, kind == POOLED and _coverage_gap(s, baseline))
    winners = [s for s in beat if s.key not in checks or checks[s.key].holds]
    unsure = sorted((s for s in beat if s not in winners), key=lambda s: -s.metric(metric))
    rule = RULE.format(metric=metric_label(metric), alpha=ALPHA) + (RULES[kind] if condensed is not None else "")
    c_metric = metric + CONDENSED
    if winners:
        return _winner(baseline, scores, metric, queries, tests, winners, unsure, checks, rule, kind)
    label = metric_label(metric)
    best = max(settings, key=lambda s: (s.metric(metric), -s.setting.top_k, -s.setting.candidates))
    if unsure:
        top = unsure[0]
        test, check = tests[top.key], checks[top.key]
        latency = top.p50_ms - baseline.p50_ms
        sentence = (
            f"No setting beats the baseline ({baseline.setting.label}) on {label} on judged facts alone: the best, "
            f"{top.setting.label}, is {signed(test.delta)} {label}, {p_words(test.p_randomization)}, at "
            f"{latency:+.0f} ms p50, but its lead rests on unjudged facts: it {check.words(c_metric)}, with "
            f"{_judged(top)} of its top k judged against the baseline's {_judged(baseline)}; keep the baseline "
            "until they are judged."
        )
        keys = tuple(s.key for s in unsure)
        return Recommendation(
            baseline.key, metric, False, test.delta, test.p_randomization, latency, best.key, sentence, rule, keys
        )
    if best.key == baseline.key or best.metric(metric) <= baseline.metric(metric):
        sentence = (
            f"No setting beats the baseline ({baseline.setting.label}) on {label}: "
            f"it scores {baseline.metric(metric):.3f}, as high as any; keep the baseline."
        )
        return Recommendation(baseline.key, metric, False, 0.0, None, 0.0, best.key, sentence, rule)
    test = tests[best.key]
    latency = best.p50_ms - baseline.p50_ms
    sentence = (
        f"No setting beats the baseline ({baseline.setting.label}) significantly on {label}: the best, "
        f"{best.setting.label}, is {signed(test.delta)} {label}, {p_words(test.p_randomization)}, "
        f"at {latency:+.0f} ms p50; keep the baseline."
    )
    return Recommendation(
        baseline.key, metric, False, test.delta, test.p_randomization, latency, best.key, sentence, rule
    )


def _judged(s: Scored) -> str:
    return "?" if s.judged is None else f"{s.judged:.0%}"


def _winner(
    baseline: Scored,
    scores: Mapping[str, Sequence[float]],
    metric: str,
    queries: int | None,
    tests: Mapping[str, PairedTest],
    winners: Sequence[Scored],
    unsure: Sequence[Scored],
    checks: Mapping[str, CondensedCheck],
    rule: str,
    kind: JudgmentKind,
) -> Recommendation:
    top = max(winners, key=lambda s: (s.metric(metric), -s.setting.top_k, -s.setting.candidates))
    close = [s for s in winners if s is top or not paired_test_cached(scores[top.key], scores[s.key]).significant]
    chosen = min(close, key=lambda s: (s.setting.top_k, s.setting.candidates, s.cost_usd or 0.0, s.p50_ms, s.key))
    test = tests[chosen.key]
    latency = chosen.p50_ms - baseline.p50_ms
    sentence = (
        f"{chosen.setting.label} beats the baseline by {signed(test.delta)} {metric_label(metric)}, "
        f"{p_words(test.p_randomization)}, at {latency:+.0f} ms p50"
    )
    if chosen.cost_usd and queries:
        sentence += f" and ${chosen.cost_usd / queries * 1000:.2f} per 1,000 queries"
    if chosen.key != top.key:
        sentence += f" (as good as the best, {top.setting.label}, within noise)"
    sentence += "."
    if chosen.key in checks:
        check = checks[chosen.key]
        also = "also wins" if check.outcome == "wins" else check.outcome
        sentence += (
            f" With unjudged facts left out it {also} ({metric_label(metric + CONDENSED)} {signed(check.test.delta)}, "
            f"{p_words(check.test.p_randomization)})"
        )
        if check.outcome != "wins" and kind == SPARSE:
            sentence += "; sparse judgments count unjudged facts as not relevant, so the plain metric decides"
        elif check.outcome != "wins":
            sentence += (
                "; its top k is judged no more than the baseline's, so its unjudged facts count against it and its "
                "lead is a lower bound"
            )
        sentence += "."
    higher = [s for s in unsure if s.metric(metric) > chosen.metric(metric)]
    if higher:
        sentence += (
            " Not chosen, for a lead that rests on unjudged facts: "
            + "; ".join(f"{s.setting.label} ({_judged(s)} judged)" for s in higher[:3])
            + (f" and {len(higher) - 3} more" if len(higher) > 3 else "")
            + "."
        )
    keys = tuple(s.key for s in unsure)
    return Recommendation(
        chosen.key, metric, True, test.delta, test.p_randomization, latency, top.key, sentence, rule, keys
    )


def pareto_front(settings: Sequence[Scored], metric: str = "ndcg@k") -> set[str]:
    """Keys of the settings no other setting beats on quality, p50 latency and cost at once."""

    def dominates(a: Scored, b: Scored) -> bool:
        qa, qb = a.metric(metric), b.metric(metric)
        ca, cb = a.cost_usd or 0.0, b.cost_usd or 0.0
        at_least = qa >= qb and a.p50_ms <= b.p50_ms and ca <= cb
        better = qa > qb or a.p50_ms < b.p50_ms or ca < cb
        return at_least and better

    return {s.key for s in settings if not any(dominates(o, s) for o in settings if o is not s)}
