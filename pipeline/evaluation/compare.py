"""Two saved experiments side by side (their recommendations first, and why those can differ: their grids, query
samples and judgments), and the queries a setting helped or hurt against the baseline."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import InvalidInput
from pipeline.evaluation.fingerprint import fingerprint_warnings
from pipeline.evaluation.recommend import Recommendation
from pipeline.evaluation.records import DEFAULT_METRIC, SweepResult, SweepSpec, check_metric
from pipeline.evaluation.significance import MeanInterval, mean_interval, paired_test
from pipeline.store.db import Store


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


@dataclass(frozen=True)
class RecommendedSide:
    """One experiment's recommendation as Compare shows it: the setting, its metric with a confidence interval,
    and the sentence saying why (which, on a partial run, starts by saying so)."""

    recommendation: Recommendation
    interval: MeanInterval  # of the recommended setting's metric over the experiment's queries
    partial: str  # "" for a complete run


def recommended_side(result: SweepResult, metric: str = DEFAULT_METRIC) -> RecommendedSide:
    rec = result.recommendation(check_metric(metric))
    return RecommendedSide(rec, mean_interval(list(result.per_query(rec.key, metric).values())), result.partial_text)


def _values(values: tuple[object, ...]) -> str:
    return ", ".join(map(str, values)) or "none"


def _sample(spec: SweepSpec) -> str:
    parts = [f"split {spec.split}"] if spec.split else []
    parts.append(f"sample {spec.sample}, seed {spec.seed}" if spec.sample else "every query")
    if spec.limit_queries:
        parts.append(f"first {spec.limit_queries}")
    return "; ".join(parts)


def _when(spec: SweepSpec) -> str:
    return "superseded facts included" if spec.include_superseded else f"as of {spec.as_of or 'today'}"


def setup_differences(a: SweepResult, b: SweepResult) -> list[str]:
    """One line per way the two sweeps were set up or ran differently that can change what each recommends: the
    grid (a setting only one grid holds can only be recommended by that one), the queries, the judgment source,
    the time options, a partial run. A changed graph or changed judgments are `data_warnings`'."""
    sa, sb = a.spec, b.spec
    out = []
    grid = [
        f"{what} A {_values(va)} vs B {_values(vb)}"
        for what, va, vb in (
            ("recipes", sa.recipes, sb.recipes),
            ("N", sa.candidates, sb.candidates),
            ("k", sa.top_ks, sb.top_ks),
            ("rerankers", sa.rerankers, sb.rerankers),
        )
        if va != vb
    ]
    if grid:
        out.append(f"Different grids ({'; '.join(grid)}): each can only recommend a setting its own grid holds.")
    qa, qb = set(a.queries), set(b.queries)
    if qa != qb:
        out.append(
            f"Different queries: A ran {len(qa)} ({_sample(sa)}), B {len(qb)} ({_sample(sb)}), {len(qa & qb)} "
            "shared; the same setting scores differently on other queries."
        )
    if (sa.judgments, sa.trust_judge) != (sb.judgments, sb.trust_judge):
        out.append(f"Different judgment sources: A {sa.judgments}, B {sb.judgments}.")
    if (sa.as_of, sa.include_superseded) != (sb.as_of, sb.include_superseded):
        out.append(f"Different time options: A {_when(sa)}, B {_when(sb)}.")
    for which, result in (("A", a), ("B", b)):
        if result.partial:
            out.append(f"{which} is a partial run ({result.partial_text}): its recommendation rests on those only.")
    return out


def data_warnings(a: SweepResult, b: SweepResult, store: Store | None = None) -> list[str]:
    """One line per way the two runs' data or software differed: another graph state (with the store: the admin
    changes between them), other judgments, another graphiti-core, backend, embedder, reranker model or judge."""
    return fingerprint_warnings(a.fingerprint, b.fingerprint, store, a.spec.group_id)


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
    rows_a = {r.query_id: r for r in result.rows if r.setting.key == against}
    rows_b = {r.query_id: r for r in result.rows if r.setting.key == key}
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
