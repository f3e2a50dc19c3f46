"""The gate's decisions, pure functions of per-query numbers: quality (the paired interval of the difference),
coverage (on pooled judgments), latency (with a budget), in that order (`evaluate`)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from pipeline.evaluation.coverage import COVERAGE_GAP, SPARSE, JudgmentKind, unjudged_pairs
from pipeline.evaluation.records import (
    SET_PREFIX,
    PoolGap,
)
from pipeline.evaluation.significance import paired_interval
from pipeline.gate.records import TIE, Check, Limits, Side, Verdict


def _signed(x: float) -> str:
    return f"{round(x, 3) + 0.0:+.3f}"  # + 0.0: no "-0.000"


def _mean(values: Collection[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def quality_check(metric: str, baseline: Side, candidate: Side, max_drop: float) -> Check:
    """A regression: the whole 95% interval of the mean difference (candidate - baseline) lies below -max_drop
    (by more than TIE)."""
    ids = sorted(baseline.values)
    missing = [q for q in ids if q not in candidate.values]
    if missing:
        raise ValueError(f"the candidate was not ranked on {len(missing)} of the baseline's queries")
    base = [baseline.values[q] for q in ids]
    cand = [candidate.values[q] for q in ids]
    interval = paired_interval(base, cand)
    regression = interval.high < -max_drop - TIE
    before, after = _mean(base), _mean(cand)
    said = (
        f"{metric} {before:.3f} -> {after:.3f} ({_signed(interval.mean)}, 95% CI {_signed(interval.low)} to "
        f"{_signed(interval.high)}, {interval.n} queries)"
    )
    if regression:
        summary = f"{said}, beyond the allowed drop of {max_drop:.3f}"
    elif interval.mean < 0:
        reach = _signed(-max_drop)
        summary = (
            f"{said}, not clearly beyond the allowed drop of {max_drop:.3f} (the interval reaches {reach} or above)"
        )
    else:
        summary = f"{said}, no drop"
    numbers = {
        "metric": metric,
        "queries": interval.n,
        "baseline": before,
        "candidate": after,
        "difference": interval.mean,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "max_drop": max_drop,
    }
    return Check("quality", not regression, summary, numbers)


def pool_gap(
    baseline: Side, candidate: Side, qrels: Mapping[str, Mapping[str, int]], group_id: str, judgments: str
) -> PoolGap:
    """The unjudged pairs of the two top k, and the `pool build` command that pools them for judging."""
    set_name = judgments.removeprefix(SET_PREFIX) if judgments.startswith(SET_PREFIX) else None
    queries = set(baseline.values)  # the gate's queries
    tops = ((qid, top) for side in (baseline, candidate) for qid, top in side.top.items() if qid in queries)
    pairs = unjudged_pairs(tops, qrels)
    return PoolGap(pairs, group_id, set_name, (baseline.arg, candidate.arg))


def coverage_check(kind: JudgmentKind, baseline: Side, candidate: Side, pool: PoolGap | None = None) -> Check:
    """Sparse judgments: passes (judged@k is relevance there). Pooled: fails when the candidate's mean judged@k is
    more than COVERAGE_GAP below the baseline's (its score rests on unjudged facts)."""
    ids = sorted(baseline.values)
    if baseline.judged is None or candidate.judged is None:
        return Check(
            "coverage",
            True,
            "judged@k was not measured for the baseline (an experiment saved before it existed): not checked",
            {"kind": kind, "baseline_judged": None, "candidate_judged": None},
        )
    before = _mean([baseline.judged.get(q, 0.0) for q in ids])
    after = _mean([candidate.judged.get(q, 0.0) for q in ids])
    numbers: dict[str, Any] = {"kind": kind, "baseline_judged": before, "candidate_judged": after}
    said = f"judged@k {before:.2f} -> {after:.2f}"
    if kind == SPARSE:
        summary = f"sparse judgments (only relevant facts listed): {said} is relevance here, not coverage; not checked"
        return Check("coverage", True, summary, numbers)
    numbers["allowed_gap"] = COVERAGE_GAP
    gap = before - after
    if gap <= COVERAGE_GAP + TIE:
        return Check(
            "coverage", True, f"{said} on pooled judgments, within {COVERAGE_GAP:.2f} of the baseline", numbers
        )
    summary = (
        f"{said} on pooled judgments, {gap:.2f} below the baseline (more than {COVERAGE_GAP:.2f}): the candidate's "
        "score rests on facts nobody judged"
    )
    if pool is not None:
        numbers.update(unjudged_pairs=pool.pairs, pool_command=pool.command)
        summary = f"{summary}. {pool.text()}"
    return Check("coverage", False, summary, numbers)


def latency_check(baseline: Side, candidate: Side, budget_ms: float) -> Check:
    p95 = candidate.p95_ms if candidate.p95_ms is not None else math.inf
    numbers = {"candidate_p95_ms": candidate.p95_ms, "baseline_p95_ms": baseline.p95_ms, "budget_ms": budget_ms}
    beside = f" (baseline p95 {baseline.p95_ms:,.0f} ms)" if baseline.p95_ms is not None else ""
    where = "within" if p95 <= budget_ms else "over"
    return Check(
        "latency",
        p95 <= budget_ms,
        f"candidate p95 {p95:,.0f} ms {where} the budget of {budget_ms:,.0f} ms{beside}",
        numbers,
    )


def evaluate(
    metric: str, baseline: Side, candidate: Side, kind: JudgmentKind, limits: Limits, pool: PoolGap | None = None
) -> Verdict:
    """The checks in their order: quality, coverage, latency (with a budget)."""
    checks = [
        quality_check(metric, baseline, candidate, limits.max_drop),
        coverage_check(kind, baseline, candidate, pool),
    ]
    if limits.p95_budget_ms is not None:
        checks.append(latency_check(baseline, candidate, limits.p95_budget_ms))
    return Verdict(tuple(checks))
