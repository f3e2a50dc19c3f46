"""The Latency page's two tables: per-stage percentiles and latency and cost per reranker, with every
percentile over its stage's budget coloured and, so colour is not the only signal, named in an
"Over budget" column ("✓ p95, p99" or "—")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dashboard.common.tables import MISSING, show_table
from pipeline.api.models import BUDGETS_MS, StagePercentiles

OVER = "background-color: rgba(217, 83, 79, 0.22); color: #9b1c1c; font-weight: 600"  # BUDGET red, lighter
MS = st.column_config.NumberColumn(format="%.1f", width="small")
PERCENTILES = ("p50", "p95", "p99")

STAGE_NAMES = {
    "stage": "Stage",
    "runs": "Runs",
    "p50": "p50 (ms)",
    "p95": "p95 (ms)",
    "p99": "p99 (ms)",
    "mean": "Mean (ms)",
    "budget_ms": "Budget (ms)",
    "over_share": "Runs over budget",
    "over": "Over budget",
}
# each reranker's latency columns, and the stage whose budget they are held to
COST_BUDGETS = {"p50 total": "total", "p95 total": "total", "p50 rerank": "rerank", "p95 rerank": "rerank"}
COST_NAMES = {
    "reranker": "Reranker",
    "runs": "Runs",
    **{c: f"{c} (ms)" for c in COST_BUDGETS},
    "over": "Over budget",
    "tokens/query": "Tokens / query",
    "$ / M tokens": "$ / M tokens",
    "searches/query": "Searches / query",
    "$ / 1k searches": "$ / 1k searches",
    "$ / query": "$ / query",
    "$ / 1k queries": "$ / 1k queries",
    "fallbacks": "Fallbacks",
}


SILENT_UNLESS = {
    "tokens/query": ("tokens/query", "$ / M tokens"),
    "searches/query": ("searches/query", "$ / 1k searches"),
    "fallbacks": ("fallbacks",),
}
# the cost per query is shown per 1,000 queries only: the same number, legible ($0.0023 rather than $0.0000023)
HIDDEN = ("$ / query",)


def _over(names: Sequence[str]) -> str:
    return "✓ " + ", ".join(names) if names else MISSING


def percentiles_frame(stages: Sequence[StagePercentiles]) -> pd.DataFrame:
    rows = []
    for s in stages:
        values = {p: getattr(s, p) for p in (*PERCENTILES, "mean")}
        over = [p for p, v in values.items() if _above(v, s.budget_ms)]
        rows.append(
            {
                "stage": s.stage,
                "runs": s.runs,
                **values,
                "budget_ms": s.budget_ms,
                "over_share": s.over_budget,
                "over": _over(over),
            }
        )
    return pd.DataFrame(rows, columns=list(STAGE_NAMES))


NEVER_RAN = " (fell back)"


def never_reranked(row: Mapping[str, object]) -> bool:
    """None of the reranker's runs reranked (no key set, say): its latencies are the first stage's alone."""
    runs, fallbacks = row.get("runs"), row.get("fallbacks")
    return str(row["reranker"]) != "none" and bool(runs) and fallbacks == runs


def _reranker_name(row: Mapping[str, object]) -> str:
    """The reranker's label, marked when it never reranked: a row that read as the reranker's own would mislead
    (the page says it in full below the table)."""
    return str(row["reranker"]) + (NEVER_RAN if never_reranked(row) else "")


def costs_frame(rows: Sequence[Mapping[str, object]], budgets: Mapping[str, float] = BUDGETS_MS) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows))
    frame["reranker"] = [_reranker_name(row) for row in rows]
    frame["over"] = [
        _over([c for c, stage in COST_BUDGETS.items() if _above(row.get(c), budgets.get(stage))]) for row in rows
    ]
    # columns that say nothing on these runs are left out, so the rest fit the page without a sideways scroll
    # (which cut the last headers off): no tokens sent, no search billed, no fallback
    for measure, columns in SILENT_UNLESS.items():
        if measure in frame.columns and not (frame[measure].fillna(0) > 0).any():
            frame = frame.drop(columns=[c for c in columns if c in frame.columns])
    return frame[[c for c in COST_NAMES if c in frame.columns and c not in HIDDEN]]


def _above(value: object, budget: float | None) -> bool:
    return budget is not None and isinstance(value, int | float) and value == value and value > budget


def _colour_stages(styler: Styler) -> Styler:
    budget = styler.data[STAGE_NAMES["budget_ms"]]
    cells = [STAGE_NAMES[p] for p in (*PERCENTILES, "mean")]
    return styler.apply(
        lambda column: [OVER if _above(v, b) else "" for v, b in zip(column, budget, strict=True)], subset=cells
    )


def _colour_costs(styler: Styler) -> Styler:
    for column, stage in COST_BUDGETS.items():
        name = COST_NAMES[column]
        if name in styler.data.columns:
            budget = BUDGETS_MS[stage]
            styler = styler.map(lambda v, b=budget: OVER if _above(v, b) else "", subset=[name])
    return styler


def show_percentiles(stages: Sequence[StagePercentiles]) -> None:
    show_table(
        percentiles_frame(stages),
        "latency.percentiles",
        names=STAGE_NAMES,
        style=_colour_stages,
        config={
            **{c: MS for c in (*PERCENTILES, "mean")},
            "budget_ms": st.column_config.NumberColumn(format="%.0f", width="small"),
            "over_share": st.column_config.NumberColumn(format="percent", help="Share of the stage's runs over it"),
            "over": st.column_config.TextColumn(help="The figures over the stage's budget (coloured too)"),
        },
    )


def show_costs(rows: Sequence[Mapping[str, object]]) -> None:
    show_table(
        costs_frame(rows),
        "latency.costs",
        names=COST_NAMES,
        style=_colour_costs,
        config={
            **{c: st.column_config.NumberColumn(format="%.1f") for c in COST_BUDGETS},
            "runs": st.column_config.NumberColumn(width="small"),
            "over": st.column_config.TextColumn(help="Latencies over their budget (end to end 3 s, rerank 300 ms)"),
            "tokens/query": st.column_config.NumberColumn(format="%.0f", width="small"),
            "$ / M tokens": st.column_config.NumberColumn(format="$%.3f", width="small"),
            "searches/query": st.column_config.NumberColumn(format="%.1f", width="small"),
            "$ / 1k searches": st.column_config.NumberColumn(format="$%.2f", width="small"),
            "$ / query": st.column_config.NumberColumn(format="$%.6f", width="small"),
            "$ / 1k queries": st.column_config.NumberColumn(format="$%.4f"),  # its header is wider than "small"
            "fallbacks": st.column_config.NumberColumn(width="small"),
        },
    )
