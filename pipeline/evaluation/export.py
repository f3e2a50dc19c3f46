"""A sweep's results as tables: the metric table of the CLI, the page and the CSV export; per-query CSV; JSON."""

from __future__ import annotations

import json
from typing import Any

from pipeline.csv_cells import dicts_to_csv, rows_to_csv
from pipeline.evaluation.records import METRIC_NAMES, SweepResult

TABLE_COLUMNS = (
    "setting",
    "reranker",
    "N",
    "k",
    *METRIC_NAMES,
    "p50_ms",
    "p95_ms",
    "cost_usd",
    "p_value",
    "p_ttest",
    "fallbacks",
    "in_grid",
)


def settings_table(result: SweepResult) -> list[dict[str, Any]]:
    """One row per setting: the metric table of the CLI, the page and the CSV export."""
    return [
        {
            "setting": s.key,
            "reranker": s.reranker,
            "N": s.candidates,
            "k": s.top_k,
            **{name: round(s.metrics[name], 4) for name in METRIC_NAMES},
            "p50_ms": round(s.p50_ms, 1),
            "p95_ms": round(s.p95_ms, 1),
            "cost_usd": s.cost_usd,
            "p_value": s.p_value,
            "p_ttest": s.p_ttest,
            "fallbacks": s.fallbacks,
            "in_grid": s.in_grid,
        }
        for s in result.settings
    ]


def to_csv(result: SweepResult) -> str:
    return dicts_to_csv(settings_table(result), TABLE_COLUMNS)


def per_query_csv(result: SweepResult) -> str:
    """One row per (setting, query); query texts and ids are the data's own, made safe for spreadsheets."""
    rows = []
    for r in result.rows:
        text, qtype = result.queries[r.query_id]
        metrics = (round(r.metrics[n], 4) for n in METRIC_NAMES)
        rows.append([r.setting, r.query_id, qtype, text, *metrics, round(r.latency_ms, 1)])
    return rows_to_csv(["setting", "query_id", "query_type", "query", *METRIC_NAMES, "latency_ms"], rows)


def to_json(result: SweepResult) -> str:
    return json.dumps(result.to_dict(), default=str, indent=2)


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
