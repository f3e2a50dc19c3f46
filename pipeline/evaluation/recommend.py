"""Which setting to use, by a stated rule, and which settings are Pareto-optimal.

Rule (default): among the settings whose nDCG@10 is within 1% (relative) of the best nDCG@10 of the
sweep, take the lowest p50 latency; ties go to the lower cost, then the higher Recall@k (more of the
relevant facts handed to the agent), then the smaller k, then the smaller N. The metric and tolerance
can be changed; the rule text says what was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

TOLERANCE = 0.01


class Scored(Protocol):
    key: str
    candidates: int
    top_k: int
    p50_ms: float
    cost_usd: float | None

    def metric(self, name: str) -> float: ...


@dataclass(frozen=True)
class Recommendation:
    key: str
    metric: str
    tolerance: float
    best: float
    rule: str


def recommend(settings: Sequence[Scored], metric: str = "ndcg@10", tolerance: float = TOLERANCE) -> Recommendation:
    if not settings:
        raise ValueError("no settings to choose from")
    best = max(s.metric(metric) for s in settings)
    floor = best * (1.0 - tolerance)
    eligible = [s for s in settings if s.metric(metric) >= floor - 1e-12]
    chosen = min(
        eligible,
        key=lambda s: (round(s.p50_ms, 3), s.cost_usd or 0.0, -s.metric("recall@k"), s.top_k, s.candidates),
    )
    rule = (
        f"best {metric} within {tolerance:.0%} of the maximum ({best:.3f}) at the lowest p50 latency; "
        "ties: lower cost, higher recall@k, smaller k, smaller N"
    )
    return Recommendation(chosen.key, metric, tolerance, best, rule)


def pareto_front(settings: Sequence[Scored], metric: str = "ndcg@10") -> set[str]:
    """Keys of the settings no other setting beats on quality, p50 latency and cost at once."""

    def dominates(a: Scored, b: Scored) -> bool:
        qa, qb = a.metric(metric), b.metric(metric)
        ca, cb = a.cost_usd or 0.0, b.cost_usd or 0.0
        at_least = qa >= qb and a.p50_ms <= b.p50_ms and ca <= cb
        better = qa > qb or a.p50_ms < b.p50_ms or ca < cb
        return at_least and better

    return {s.key for s in settings if not any(dominates(o, s) for o in settings if o is not s)}
