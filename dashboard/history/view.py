"""The History page body: the list of runs, one run as it was, two runs side by side."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.common.result_cards import result_card
from dashboard.common.tables import MISSING, show_table, stamp
from dashboard.common.text import TICK_CHARS, chart, label, md
from pipeline.api import on_store
from pipeline.api.models import RunComparison, RunSummary, Store, StoredRun


def runs_frame(runs: list[RunSummary]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Run": r.id,
                "When": r.created_at,
                "Deal": r.group_id,
                "Source": r.source,
                "Query": r.query,
                "Recipe": r.recipe,
                "N": r.candidates,
                "k": r.top_k,
                "Reranker": r.reranker,
                "Model": r.reranker_model,
                "Total (ms)": r.total_ms,
                "Results": r.result_count,
                "Tokens": r.rerank_tokens,
                "Cost ($)": r.rerank_cost_usd,
                "Fallback": r.fallback_reason,
            }
            for r in runs
        ]
    )


def render_run_list(runs: list[RunSummary], matching: int) -> None:
    shown = f"the newest {len(runs):,} of " if matching > len(runs) else ""
    st.caption(f"Showing {shown}{matching:,} matching runs.")
    show_table(
        runs_frame(runs),
        "history.table",
        times=("When",),
        height=320,
        config={
            "Query": st.column_config.TextColumn(width=360),
            "Total (ms)": st.column_config.NumberColumn(format="%.0f"),
            "Cost ($)": st.column_config.NumberColumn(format="$%.6f"),
        },
    )


def _timings_figure(names: list[str], series: dict[str, list[float | None]], title: str) -> go.Figure:
    fig = go.Figure()
    ticks = [chart(n, TICK_CHARS) for n in names]
    for name, values in series.items():
        fig.add_trace(go.Bar(name=chart(name), y=ticks, x=values, orientation="h", texttemplate="%{x:.0f}"))
    fig.update_layout(
        title=title,
        barmode="group",
        height=100 + 22 * len(names) * max(1, len(series)),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis_title="ms",
        yaxis={"autorange": "reversed"},
    )
    return fig


def render_stored_run(stored: StoredRun) -> None:
    """One run exactly as it was recorded: parameters, timings, results with citations and scores."""
    s, run = stored.summary, stored.run
    st.subheader(f"Run #{s.id}: {label(run.query)}")
    st.caption(
        f"{stamp(run.created_at)} UTC · deal {md(run.group_id)} · from {md(s.source)} · recipe {md(run.recipe)} · "
        "include superseded: "
        f"{'yes' if run.include_superseded else 'no'} · as of: {md(run.as_of or 'now')}"
    )
    cols = st.columns(5)
    cols[0].metric("N / k", f"{run.num_candidates} / {run.top_k}")
    cols[1].metric("Reranker", md(run.reranker, 60), help=md(run.reranker_model) or None)
    cols[2].metric("End to end", f"{run.timings.stages_ms.get('total', 0):,.0f} ms")
    cols[3].metric("Rerank tokens", f"{run.timings.rerank_tokens:,}")
    cost = run.timings.rerank_cost_usd
    cols[4].metric("Rerank cost", f"${cost:.6f}" if cost is not None else "$0 (free)")
    if run.fallback_reason:
        st.warning(f"**The reranker fell back to first-stage order.** {md(run.fallback_reason)}")
    for message in run.timings.over_budget:
        st.caption(f":orange[Over budget:] {md(message)}")
    stages = list(run.timings.stages_ms)
    st.plotly_chart(
        _timings_figure(stages, {"ms": [run.timings.stages_ms[n] for n in stages]}, "Stage timings"),
        key=f"history.run.{s.id}.timings",
    )
    st.markdown(f"**Top {len(run.results)} results** (movement relative to the first-stage order)")
    for result in run.results:
        result_card(
            result,
            result.ranked.candidate.first_stage_rank,
            run.top_k,
            "reranked",
            {},
            key=f"history.run.{s.id}.{result.uuid}",
        )


def comparison_frames(cmp: RunComparison) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(parameters, per-result ranks, stage timings) as tables."""
    params = pd.DataFrame(
        [
            {"Parameter": _parameter(n), "Run A": _value(n, a), "Run B": _value(n, b), "Differs": a != b}
            for n, a, b in cmp.parameters
        ]
    )
    ranks = pd.DataFrame(
        [
            {
                "Fact": r.fact,
                "Rank in A": r.rank_a,
                "Rank in B": r.rank_b,
                "Change (+ = up in B)": r.change,
                "Where": "both" if r.change is not None else ("only A" if r.rank_b is None else "only B"),
            }
            for r in cmp.ranks
        ]
    )
    timings = pd.DataFrame(
        [
            {
                "Stage": n,
                "Run A (ms)": a,
                "Run B (ms)": b,
                "B − A (ms)": (b - a) if a is not None and b is not None else None,
            }
            for n, a, b in cmp.stages_ms
        ]
    )
    return params, ranks, timings


def _parameter(name: str) -> str:
    return "when (UTC)" if name == "when" else name


def _value(name: str, value: object) -> str:
    """A parameter as text: the time in the one format, yes/no, "—" for none (the pipeline's "-" too)."""
    if name == "when":
        return stamp(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return MISSING if value is None or value == "-" else str(value)


def render_run_comparison(store: Store, a: StoredRun, b: StoredRun) -> None:
    history = on_store(store).history
    cmp = history.compare_runs(a.run, b.run)
    st.subheader(f"Run #{a.summary.id} (A) against run #{b.summary.id} (B)")
    differing = md(", ".join(cmp.differing)) or "none"
    st.caption(f"Parameters that differ: {differing}")
    changes = history.graph_changed_between(a.run, b.run)
    if changes and changes.entries:
        st.warning(md(changes.text()))
    elif changes:
        st.caption(md(changes.text()))
    cols = st.columns(4)
    cols[0].metric("Shared results", f"{cmp.shared} / {max(len(a.run.results), len(b.run.results))}")
    cols[1].metric("Only in A", cmp.only_a)
    cols[2].metric("Only in B", cmp.only_b)
    cols[3].metric("Jaccard overlap", f"{cmp.jaccard:.2f}")
    params, ranks, timings = comparison_frames(cmp)
    left, right = st.columns([2, 3])
    show_table(params, "history.compare.params", where=left)
    show_table(
        ranks,
        "history.compare.ranks",
        where=right,
        config={
            "Fact": st.column_config.TextColumn(width="large"),
            "Change (+ = up in B)": st.column_config.NumberColumn(format="%+d"),
        },
    )
    names = [n for n, _, _ in cmp.stages_ms]
    st.plotly_chart(
        _timings_figure(
            names,
            {
                f"A #{a.summary.id}": [x for _, x, _ in cmp.stages_ms],
                f"B #{b.summary.id}": [y for _, _, y in cmp.stages_ms],
            },
            "Stage timings, A against B",
        ),
        key="history.compare.timings",
    )
    show_table(
        timings,
        "history.compare.timing_table",
        config={c: st.column_config.NumberColumn(format="%.1f") for c in ("Run A (ms)", "Run B (ms)", "B − A (ms)")},
    )
