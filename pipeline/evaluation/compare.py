"""Two saved experiments side by side, and the queries a setting helped or hurt against the baseline."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import InvalidInput
from pipeline.evaluation.fingerprint import fingerprint_warnings
from pipeline.evaluation.records import DEFAULT_METRIC, SweepResult, check_metric
from pipeline.evaluation.significance import paired_test


@dataclass(frozen=True)
class ComparedSetting:
    setting: str
    metric_a: float
    metric_b: float
    p50_a: float
    p50_b: float
    queries: int  # queries both experiments scored
    p_value: float | None

    @property
    def delta(self) -> float:
        return self.metric_b - self.metric_a


def data_warnings(a: SweepResult, b: SweepResult) -> list[str]:
    """One line per way the two runs' data differed: another graph state, other judgments (issue 17)."""
    return fingerprint_warnings(a.fingerprint, b.fingerprint)


def compare_experiments(a: SweepResult, b: SweepResult, metric: str = DEFAULT_METRIC) -> list[ComparedSetting]:
    """Settings both experiments ran, side by side; the p-value pairs the queries both scored."""
    check_metric(metric)
    b_keys = {s.key for s in b.settings}
    out = []
    for s in a.settings:
        if s.key not in b_keys:
            continue
        other = b.setting(s.key)
        qa, qb = a.per_query(s.key, metric), b.per_query(s.key, metric)
        shared = sorted(qa.keys() & qb.keys())
        test = paired_test([qa[q] for q in shared], [qb[q] for q in shared]) if shared else None
        out.append(
            ComparedSetting(
                s.key,
                s.metrics[metric],
                other.metrics[metric],
                s.p50_ms,
                other.p50_ms,
                len(shared),
                test.p_randomization if test else None,
            )
        )
    return out


@dataclass(frozen=True)
class JudgedFact:
    uuid: str
    fact: str
    grade: int
    rank_baseline: int | None  # 1-based rank in the stored top of the ranking; None: not in it
    rank_setting: int | None


@dataclass(frozen=True)
class QueryChange:
    query_id: str
    query: str
    type: str
    baseline: float
    setting: float
    judged: tuple[JudgedFact, ...]
    top_baseline: tuple[str, ...]  # fact texts of the first three
    top_setting: tuple[str, ...]

    @property
    def delta(self) -> float:
        return self.setting - self.baseline


def wins_and_losses(
    result: SweepResult, key: str, metric: str = DEFAULT_METRIC, against: str | None = None
) -> tuple[list[QueryChange], list[QueryChange]]:
    """Queries the setting helped (wins, biggest gain first) and hurt (losses, biggest loss first)."""
    against = against or result.baseline
    rows_a = {r.query_id: r for r in result.rows if r.setting == against}
    rows_b = {r.query_id: r for r in result.rows if r.setting == key}
    if not rows_b:
        raise InvalidInput(f"No setting {key!r} in this sweep.")
    changes = []
    for qid in sorted(rows_a.keys() & rows_b.keys()):
        a, b = rows_a[qid], rows_b[qid]
        if abs(b.metrics[metric] - a.metrics[metric]) < 1e-12:
            continue
        pos_a = {u: i for i, u in enumerate(a.ranking, start=1)}
        pos_b = {u: i for i, u in enumerate(b.ranking, start=1)}
        judged = tuple(
            JudgedFact(u, result.facts.get(u, "(fact not found)"), g, pos_a.get(u), pos_b.get(u))
            for u, g in sorted(result.qrels.get(qid, {}).items(), key=lambda item: -item[1])
            if g >= 1
        )
        text, qtype = result.queries[qid]
        changes.append(
            QueryChange(
                qid,
                text,
                qtype,
                a.metrics[metric],
                b.metrics[metric],
                judged,
                tuple(result.facts.get(u, "") for u in a.ranking[:3]),
                tuple(result.facts.get(u, "") for u in b.ranking[:3]),
            )
        )
    wins = sorted((c for c in changes if c.delta > 0), key=lambda c: -c.delta)
    losses = sorted((c for c in changes if c.delta < 0), key=lambda c: c.delta)
    return wins, losses
