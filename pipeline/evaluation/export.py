"""A sweep's results as tables: the metric table of the CLI, the page and the CSV export; per-query CSV; JSON."""

from __future__ import annotations

import json
from typing import Any

from pipeline.csv_cells import dicts_to_csv, rows_to_csv
from pipeline.evaluation.coverage import kind_words
from pipeline.evaluation.records import (
    CONDENSED,
    CONDENSED_NAMES,
    DEFAULT_METRIC,
    EXTRA_NAMES,
    JUDGED,
    METRIC_NAMES,
    STALE,
    TOKENS,
    SweepResult,
    check_metric,
)
from pipeline.evaluation.vector_gain import gains_over_vector

CONDENSED_NDCG = f"ndcg@k{CONDENSED}"

TABLE_COLUMNS = (
    "setting",
    "recipe",
    "reranker",
    "N",
    "k",
    *METRIC_NAMES,
    *EXTRA_NAMES,
    *CONDENSED_NAMES,
    "p50_ms",
    "p95_ms",
    "cost_usd",
    "p_metric",
    "p_value",
    "p_ttest",
    "fallbacks",
    "in_grid",
)


def settings_table(result: SweepResult, metric: str = DEFAULT_METRIC) -> list[dict[str, Any]]:
    """One row per setting: the metric table of the CLI, the page and the CSV export; p: the paired tests of
    `metric` against the baseline. stale@k, judged@k and the condensed metrics are None where the sweep did not
    measure them (experiments saved before coverage was)."""
    tests = result.significance(check_metric(metric))
    rows = []
    for s in result.settings:
        test = tests.get(s.key)
        rows.append(
            {
                "setting": s.key,
                "recipe": s.setting.recipe.key,
                "reranker": s.setting.reranker,
                "N": s.setting.candidates,
                "k": s.setting.top_k,
                **{name: round(s.metrics.get(name, 0.0), 4) for name in METRIC_NAMES},
                TOKENS: round(s.metrics[TOKENS], 1) if TOKENS in s.metrics else None,
                JUDGED: round(s.metrics[JUDGED], 4) if JUDGED in s.metrics else None,
                STALE: round(s.metrics[STALE], 4) if STALE in s.metrics else None,
                **{name: round(s.metrics[name], 4) if name in s.metrics else None for name in CONDENSED_NAMES},
                "p50_ms": round(s.p50_ms, 1),
                "p95_ms": round(s.p95_ms, 1),
                "cost_usd": s.cost_usd,
                "p_metric": metric,
                "p_value": test.p_randomization if test else None,
                "p_ttest": test.p_ttest if test else None,
                "fallbacks": s.fallbacks,
                "in_grid": s.in_grid,
            }
        )
    return rows


def to_csv(result: SweepResult, metric: str = DEFAULT_METRIC) -> str:
    return dicts_to_csv(settings_table(result, metric), TABLE_COLUMNS)


def per_query_csv(result: SweepResult) -> str:
    """One row per (setting, query); query texts and ids are the data's own, made safe for spreadsheets."""
    rows = []
    for r in result.rows:
        text, qtype = result.queries[r.query_id]
        metrics = (round(r.metrics.get(n, 0.0), 4) for n in METRIC_NAMES)
        extra = (round(r.metrics[n], 4) if n in r.metrics else None for n in (*EXTRA_NAMES, *CONDENSED_NAMES))
        rows.append([r.setting.key, r.query_id, qtype, text, *metrics, *extra, round(r.latency_ms, 1)])
    header = ["setting", "query_id", "query_type", "query", *METRIC_NAMES, *EXTRA_NAMES, *CONDENSED_NAMES]
    header.append("latency_ms")
    return rows_to_csv(header, rows)


def to_json(result: SweepResult) -> str:
    return json.dumps(result.to_dict(), default=str, indent=2)


def render_table(result: SweepResult, metric: str = DEFAULT_METRIC) -> str:
    """The CLI's metric table: one row per setting, then the recommendation in words (the last line)."""
    spec = result.spec
    when = f"as of {spec.as_of}" if spec.as_of else ("superseded facts included" if spec.include_superseded else "now")
    stale = any(STALE in s.metrics for s in result.settings)
    judged = any(JUDGED in s.metrics for s in result.settings)
    width = max(22, *(len(s.key) for s in result.settings))
    lines = [
        f"{result.eval_set['scorable']} queries of deal {spec.group_id!r} ({spec.judgments}), {when}; "
        f"{result.stats.seconds:.1f} s ({result.stats.pools_retrieved} pools retrieved, {result.stats.pools_cached} "
        f"cached; {result.stats.rerank_calls} rerank calls, {result.stats.rerank_cached} cached)",
        "@k: the top k the setting hands on (tokens@k: its size); @10: top 10 of the reranked list of N (the same "
        f"for every k). p: Fisher randomization of {metric} against the baseline ({result.baseline})."
        + (" stale@k: share of the top k that would be superseded facts without the filter." if stale else "")
        + (
            f" judged@k: share of the top k that has a judgment; {kind_words(result.judgment_kind)};"
            " ndcg@k': unjudged facts left out."
            if judged
            else ""
        ),
        f"{'setting':<{width}} {'ndcg@k':>7} {'recall@k':>8} {'P@k':>6} {'hit@k':>6} {'tokens@k':>8} "
        + (f"{'judged@k':>8} {CONDENSED_NDCG:>7} " if judged else "")
        + (f"{'stale@k':>7} " if stale else "")
        + f"{'ndcg@10':>8} {'recall@10':>9} {'mrr@10':>7} {'p50 ms':>8} {'p':>7}",
    ]
    rec = result.recommendation(metric)
    tests = result.significance(metric)
    for s in result.settings:
        mark = " *" if s.key == rec.key else (" (baseline)" if s.key == result.baseline else "")
        if s.key in rec.unsure:
            mark += " (lead rests on unjudged facts)"
        test = tests.get(s.key)
        p = "-" if test is None else f"{test.p_randomization:.4f}"
        mt = s.metrics
        lines.append(
            f"{s.key:<{width}} {mt['ndcg@k']:>7.4f} {mt['recall@k']:>8.4f} {mt['precision@k']:>6.4f} "
            f"{mt['hit@k']:>6.4f} "
            f"{mt.get(TOKENS, 0.0):>8.1f} "
            + (f"{mt.get(JUDGED, 0.0):>8.0%} {mt.get(CONDENSED_NDCG, 0.0):>7.4f} " if judged else "")
            + (f"{mt.get(STALE, 0.0):>7.1%} " if stale else "")
            + f"{mt['ndcg@10']:>8.4f} {mt['recall@10']:>9.4f} {mt['mrr@10']:>7.4f} {s.p50_ms:>8.1f} {p:>7}{mark}"
        )
    gains = gains_over_vector(result, metric)
    if gains:
        lines.append("Against pure vector search (vector + none at the same N and k; p: paired randomization):")
        lines.extend(f"  {gain.line}" for gain in gains)
    lines.append(f"* recommended: {rec.key} (rule: {rec.rule})")
    lines.append(f"Recommendation: {rec.sentence}")
    return "\n".join(lines)
