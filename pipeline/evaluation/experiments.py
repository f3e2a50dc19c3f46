"""Saved sweeps ("experiments"): write one whole or not at all, list, load, compare, export.

An experiment is stored as normalised rows (`experiments`, `experiment_settings` with the aggregates,
`experiment_queries` with one row per query and setting) plus one JSON payload with what the rows do
not hold (spec, query texts, judgments, fact texts, stats). `load_experiment` rebuilds the
`SweepResult` exactly, so a saved experiment shows the same tables and charts as a fresh sweep.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from pipeline.errors import InvalidInput
from pipeline.evaluation.significance import paired_test
from pipeline.evaluation.sweep import (
    METRIC_NAMES,
    QueryRow,
    SettingResult,
    SweepResult,
    SweepSpec,
    SweepStats,
)
from pipeline.store.db import Store
from pipeline.text import one_line

MAX_NAME = 120


@dataclass(frozen=True)
class ExperimentInfo:
    id: int
    name: str
    group_id: str
    created_at: str
    judgments: str
    queries: int
    duration_s: float

    @property
    def label(self) -> str:
        return f"#{self.id} {self.name} · {self.group_id} · {self.queries} queries · {self.created_at[:16]}"


def _clean_name(name: str) -> str:
    cleaned = one_line(name)
    if not cleaned:
        raise InvalidInput("Give the experiment a name.")
    if len(cleaned) > MAX_NAME:
        raise InvalidInput(f"The experiment name is {len(cleaned)} characters long; the limit is {MAX_NAME}.")
    return cleaned


def save_experiment(store: Store, result: SweepResult, name: str) -> int:
    """Write the sweep in one transaction; its id. A name already used is refused."""
    name = _clean_name(name)
    payload = {
        "eval_set": result.eval_set, "queries": result.queries, "qrels": result.qrels, "facts": result.facts,
        "stats": asdict(result.stats), "baseline": result.baseline, "created_at": result.created_at,
    }  # fmt: skip
    try:
        with store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO experiments (name, group_id, created_at, judgments, queries, duration_s, spec, payload) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, result.spec.group_id, result.created_at, result.spec.judgments, result.stats.queries,
                 result.stats.seconds, json.dumps(asdict(result.spec)), json.dumps(payload)),
            )  # fmt: skip
            exp_id = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO experiment_settings (experiment_id, setting, candidates, top_k, reranker, reranker_model, "
                "in_grid, metrics, by_type, p50_ms, p95_ms, tokens, cost_usd, fallbacks, p_value, p_ttest) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (exp_id, s.key, s.candidates, s.top_k, s.reranker, s.reranker_model, int(s.in_grid),
                     json.dumps(s.metrics), json.dumps(s.by_type), s.p50_ms, s.p95_ms, s.tokens, s.cost_usd,
                     s.fallbacks, s.p_value, s.p_ttest)
                    for s in result.settings
                ],
            )  # fmt: skip
            conn.executemany(
                "INSERT INTO experiment_queries (experiment_id, setting, query_id, metrics, latency_ms, ranking) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(exp_id, r.setting, r.query_id, json.dumps(r.metrics), r.latency_ms, json.dumps(r.ranking))
                 for r in result.rows],
            )  # fmt: skip
    except sqlite3.IntegrityError:
        raise InvalidInput(f"An experiment called {name!r} already exists; pick another name.") from None
    return exp_id


def list_experiments(store: Store, group_id: str | None = None) -> list[ExperimentInfo]:
    rows = store.query(
        "SELECT id, name, group_id, created_at, judgments, queries, duration_s FROM experiments "
        "WHERE (:g IS NULL OR group_id = :g) ORDER BY id DESC",
        {"g": group_id},
    )
    return [ExperimentInfo(**dict(r)) for r in rows]


def load_experiment(store: Store, exp_id: int) -> tuple[ExperimentInfo, SweepResult]:
    head = store.query("SELECT * FROM experiments WHERE id = ?", (exp_id,))
    if not head:
        raise InvalidInput(f"No experiment #{exp_id}.")
    row = dict(head[0])
    info = ExperimentInfo(**{k: row[k] for k in ExperimentInfo.__dataclass_fields__})
    spec_data = json.loads(row["spec"])
    for name in ("candidates", "top_ks", "rerankers"):
        spec_data[name] = tuple(spec_data[name])
    payload = json.loads(row["payload"])
    settings = tuple(
        SettingResult(
            reranker=s["reranker"], candidates=s["candidates"], top_k=s["top_k"], reranker_model=s["reranker_model"],
            in_grid=bool(s["in_grid"]), metrics=json.loads(s["metrics"]), by_type=json.loads(s["by_type"]),
            p50_ms=s["p50_ms"], p95_ms=s["p95_ms"], tokens=s["tokens"], cost_usd=s["cost_usd"],
            fallbacks=s["fallbacks"], p_value=s["p_value"], p_ttest=s["p_ttest"],
        )
        for s in store.query("SELECT * FROM experiment_settings WHERE experiment_id = ?", (exp_id,))
    )  # fmt: skip
    order = {key: i for i, key in enumerate(_setting_order(store, exp_id))}
    settings = tuple(sorted(settings, key=lambda s: order.get(s.key, 0)))
    rows = tuple(
        QueryRow(
            r["setting"], r["query_id"], json.loads(r["metrics"]), r["latency_ms"], tuple(json.loads(r["ranking"]))
        )
        for r in store.query("SELECT * FROM experiment_queries WHERE experiment_id = ?", (exp_id,))
    )
    result = SweepResult(
        spec=SweepSpec(**spec_data),
        eval_set=payload["eval_set"],
        created_at=payload["created_at"],
        settings=settings,
        rows=rows,
        queries={q: (v[0], v[1]) for q, v in payload["queries"].items()},
        qrels=payload["qrels"],
        facts=payload["facts"],
        stats=SweepStats(**payload["stats"]),
        baseline=payload["baseline"],
    )
    return info, result


def _setting_order(store: Store, exp_id: int) -> list[str]:
    """Settings in sweep order (reranker as asked, then N, then k), the baseline last when outside the grid."""
    rows = store.query(
        "SELECT setting, in_grid, reranker, candidates, top_k FROM experiment_settings WHERE experiment_id = ?",
        (exp_id,),
    )
    spec = store.query("SELECT spec FROM experiments WHERE id = ?", (exp_id,))
    rerankers = json.loads(spec[0][0])["rerankers"] if spec else []
    rank = {r: i for i, r in enumerate(rerankers)}
    ordered = sorted(rows, key=lambda r: (not r["in_grid"], rank.get(r["reranker"], 99), r["candidates"], r["top_k"]))
    return [r["setting"] for r in ordered]


# --- tables, comparison, export ----------------------------------------------------------------

TABLE_COLUMNS = ("setting", "reranker", "N", "k", *METRIC_NAMES, "p50_ms", "p95_ms", "cost_usd", "p_value",
                 "p_ttest", "fallbacks", "in_grid")  # fmt: skip


def settings_table(result: SweepResult) -> list[dict[str, Any]]:
    """One row per setting: the metric table of the CLI, the page and the CSV export."""
    return [
        {"setting": s.key, "reranker": s.reranker, "N": s.candidates, "k": s.top_k,
         **{name: round(s.metrics[name], 4) for name in METRIC_NAMES},
         "p50_ms": round(s.p50_ms, 1), "p95_ms": round(s.p95_ms, 1), "cost_usd": s.cost_usd,
         "p_value": s.p_value, "p_ttest": s.p_ttest, "fallbacks": s.fallbacks, "in_grid": s.in_grid}
        for s in result.settings
    ]  # fmt: skip


def to_csv(result: SweepResult) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(TABLE_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(settings_table(result))
    return out.getvalue()


def per_query_csv(result: SweepResult) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["setting", "query_id", "query_type", "query", *METRIC_NAMES, "latency_ms"])
    for r in result.rows:
        text, qtype = result.queries[r.query_id]
        writer.writerow([r.setting, r.query_id, qtype, text, *(round(r.metrics[n], 4) for n in METRIC_NAMES),
                         round(r.latency_ms, 1)])  # fmt: skip
    return out.getvalue()


def to_json(result: SweepResult) -> str:
    return json.dumps(result.to_dict(), default=str, indent=2)


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


def compare_experiments(a: SweepResult, b: SweepResult, metric: str = "ndcg@10") -> list[ComparedSetting]:
    """Settings both experiments ran, side by side; the p-value pairs the queries both scored."""
    if metric not in METRIC_NAMES:
        raise InvalidInput(f"Unknown metric {metric!r}; one of: {', '.join(METRIC_NAMES)}.")
    b_keys = {s.key for s in b.settings}
    out = []
    for s in a.settings:
        if s.key not in b_keys:
            continue
        other = b.setting(s.key)
        qa, qb = a.per_query(s.key, metric), b.per_query(s.key, metric)
        shared = sorted(qa.keys() & qb.keys())
        test = paired_test([qa[q] for q in shared], [qb[q] for q in shared]) if shared else None
        out.append(ComparedSetting(s.key, s.metrics[metric], other.metrics[metric], s.p50_ms, other.p50_ms,
                                   len(shared), test.p_randomization if test else None))  # fmt: skip
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


def wins_and_losses(result: SweepResult, key: str, metric: str = "ndcg@10", against: str | None = None
                    ) -> tuple[list[QueryChange], list[QueryChange]]:  # fmt: skip
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
        changes.append(QueryChange(
            qid, text, qtype, a.metrics[metric], b.metrics[metric], judged,
            tuple(result.facts.get(u, "") for u in a.ranking[:3]),
            tuple(result.facts.get(u, "") for u in b.ranking[:3]),
        ))  # fmt: skip
    wins = sorted((c for c in changes if c.delta > 0), key=lambda c: -c.delta)
    losses = sorted((c for c in changes if c.delta < 0), key=lambda c: c.delta)
    return wins, losses


def render_table(result: SweepResult) -> str:
    """The CLI's metric table: one row per setting."""
    lines = [
        f"{result.eval_set['scorable']} queries of deal {result.spec.group_id!r} ({result.spec.judgments}); "
        f"{result.stats.seconds:.1f} s ({result.stats.pools_retrieved} pools retrieved, {result.stats.pools_cached} "
        f"cached; {result.stats.rerank_calls} rerank calls, {result.stats.rerank_cached} cached)",
        "@10: top 10 of the reranked list of N (the same for every k); @k: the top k the setting returns. "
        f"p: Fisher randomization of ndcg@10 against the baseline ({result.baseline}).",
        f"{'setting':<22} {'ndcg@10':>8} {'recall@10':>9} {'mrr@10':>7} {'ndcg@k':>7} {'recall@k':>8} "
        f"{'P@k':>6} {'hit@k':>6} {'p50 ms':>8} {'p':>7}",
    ]
    rec = result.recommendation()
    for s in result.settings:
        mark = " *" if s.key == rec.key else (" (baseline)" if s.key == result.baseline else "")
        p = "-" if s.p_value is None else f"{s.p_value:.4f}"
        mt = s.metrics
        lines.append(
            f"{s.key:<22} {mt['ndcg@10']:>8.4f} {mt['recall@10']:>9.4f} {mt['mrr@10']:>7.4f} {mt['ndcg@k']:>7.4f} "
            f"{mt['recall@k']:>8.4f} {mt['precision@k']:>6.4f} {mt['hit@k']:>6.4f} {s.p50_ms:>8.1f} {p:>7}{mark}"
        )
    lines.append(f"* recommended: {rec.key} ({rec.rule})")
    return "\n".join(lines)
