"""The Evaluate & tune page: query sets, the sweep (started as a job), results, experiments.

This module lays out the result of one saved experiment: the recommendation with its rule, the metric table (the
recommended row first), heatmaps and the quality / latency / cost view, one setting's query types, and its per-query
wins and losses against another row, each a link to Compare. The query sets and the sweep form (`sweep_form.py`),
the sweep jobs (`jobs_view.py`, `sweep_job.py`), the saved experiments' picker and their comparison
(`experiments.py`) and a result's exports (`exports.py`) have modules of their own.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common.links import compare_url
from dashboard.common.page_state.url import current_pick
from dashboard.common.tables import show_table
from dashboard.common.text import LABEL_CHARS, label, md, plain
from dashboard.evaluate.charts import heatmaps, pareto
from dashboard.evaluate.exports import render_exports
from dashboard.evaluate.jobs_view import NS, OPEN
from dashboard.evaluate.pool_gap import render_pool_gap
from pipeline.api import Lab
from pipeline.api.models import CONDENSED, CONDENSED_NAMES, JUDGED, METRIC_NAMES, STALE, Recommendation, SweepResult


def render_result(lab: Lab, result: SweepResult, saved_as: str | None) -> None:
    stats, spec = result.stats, result.spec
    title = f"Experiment {label(saved_as)}" if saved_as else "Latest sweep"
    st.subheader(title)
    when = f"as of {spec.as_of}" if spec.as_of else "today's facts"
    if spec.include_superseded:
        when = "superseded facts included"
    st.caption(
        f"{stats.queries} queries · {len(result.grid)} settings · {when} · {stats.seconds:.1f} s · "
        f"{stats.pools_retrieved} pools retrieved, {stats.pools_cached} from cache · "
        f"{stats.rerank_calls} reranker calls, {stats.rerank_cached} from cache · types: "
        + md(", ".join(f"{t} {n}" for t, n in result.eval_set.get("type_mix", {}).items()))
    )
    cols = st.columns([2, 3])
    metric = cols[0].selectbox(
        "Metric",
        list(METRIC_NAMES),
        key=f"{NS}.metric",
        help="What the recommendation, the p-values and the charts use. @k: the top k the setting hands on.",
    )
    measured = any(s.judged is not None for s in result.settings)
    if cols[1].toggle(
        "Condensed metrics (unjudged facts left out)",
        key=f"{NS}.condensed",
        disabled=not measured,
        help="Each ranking with the facts nobody judged removed before scoring (condensed lists): settings that "
        "find unjudged facts are not marked down for them. The plain metrics count an unjudged fact as not "
        "relevant." + ("" if measured else " This experiment was saved before coverage was measured."),
    ):
        metric += CONDENSED
    if result.partial:
        st.warning(
            md(
                f"Partial experiment: {result.partial_text}. Every number here rests on the queries it finished; "
                "run the sweep again for the whole sample."
            ),
            icon=":material/warning:",
        )
    rec = result.recommendation(metric)
    exp_id = current_pick(OPEN) if saved_as else None  # the experiment shown (opened without rankings)
    if rec.unsure and exp_id is not None:  # the pool that settles it counts the pairs of two top k: read them
        result = lab.evaluation.with_rankings(exp_id, result, (rec.unsure[0], result.baseline))
        rec = result.recommendation(metric)
    (st.success if rec.beats_baseline and not result.partial else st.info)(
        f"**Recommended: {md(rec.key)}** — {md(rec.sentence)}", icon=":material/recommend:"
    )
    st.caption(f"Rule: {md(rec.rule)}.")
    render_pool_gap(lab, result.unjudged_gap(rec))
    _stale_note(result, rec.key if rec.beats_baseline else rec.best)

    table = results_frame(lab, result, metric, rec)
    show_table(
        table,
        f"{NS}.table",
        export=False,  # "Table CSV" below
        names={**RESULT_NAMES, "p_value": f"p {metric} (randomization)", "p_ttest": f"p {metric} (t-test)"},
        config={
            "p_value": st.column_config.NumberColumn(format="%.4f"),
            "p_ttest": st.column_config.NumberColumn(format="%.4f"),
            "cost_usd": st.column_config.NumberColumn(format="$%.4f"),
            "stale@k": st.column_config.NumberColumn(format="percent"),
            JUDGED: st.column_config.NumberColumn(format="percent"),
        },
    )
    kind = lab.evaluation.kind_words(result.judgment_kind)
    st.caption(
        "**@k**: the top k the setting hands on (**tokens@k**: its size, counted with the bundled MiniLM "
        f"tokenizer; **judged@k**: the share of it that has a judgment; this set has {kind}"
        "). **@10**: top 10 of the reranked list of N, the same for every k (k only cuts the list). "
        "Latency: embedding + first stage at N + reranking, as measured when first computed. p: paired test of "
        f"{metric} per query against the baseline ({result.baseline}), which is computed beside the grid when the "
        "grid lacks it. The recommended row comes first; the Table CSV has every column (recipe, reranker, N, k, "
        "cost, fallbacks, in_grid)."
    )
    st.plotly_chart(heatmaps(result, metric), key=f"{NS}.heatmap")
    st.plotly_chart(pareto(result, metric, rec.key), key=f"{NS}.pareto")

    picked, against = _pick_two(result, list(table["setting"]))
    setting = result.setting(picked)
    st.markdown(f"**By query type** — {md(picked)}")
    show_table(
        pd.DataFrame([{"type": t, **{k: round(v, 4) for k, v in m.items()}} for t, m in setting.by_type.items()]),
        f"{NS}.by_type",
    )
    render_wins_losses(lab, result, picked, metric, exp_id, against)
    render_exports(lab, result, saved_as, metric, exp_id, picked)


def _pick_two(result: SweepResult, rows: list[str]) -> tuple[str, str]:
    """Any two rows of the results table, side by side: the setting inspected (its query types, its wins and
    losses, its code) and the one it is held against (side A in Compare). By default the table's top two: the
    recommended setting against the best of the rest; when the baseline is recommended, the best of the rest is
    inspected against it."""
    top = rows[:2] if len(rows) > 1 else rows * 2
    inspect, against = top if top[0] != result.baseline else (top[1], top[0])
    cols = st.columns(2)
    picked = cols[0].selectbox("Setting to inspect", rows, index=rows.index(inspect), key=f"{NS}.inspect")
    other = cols[1].selectbox(
        "Against",
        rows,
        index=rows.index(against),
        key=f"{NS}.against",
        help="Per-query wins and losses, and each query's link to Compare, pair these two settings (A: this one). "
        "Any two rows of the table; the baseline is one of them.",
    )
    return picked, other


RESULT_NAMES = {"p50_ms": "p50 (ms)", "p95_ms": "p95 (ms)", "cost_usd": "Cost ($)"}
# what decides first: the setting, whether it is recommended, the picked metric (inserted after these two), its
# p-value against the baseline, how far it rests on judged facts, and what it hands on and costs in time
FIRST_COLUMNS = (
    "setting",
    "recommended",
    "p_value",
    JUDGED,
    "coverage",
    "tokens@k",
    "p50_ms",
    "cost_usd",
    "stale@k",
)
# in the Table CSV, not on the page: the setting's parts are its name ("graphiti-default local N=25 k=5"), in_grid
# only marks the baseline computed beside the grid
HIDDEN_COLUMNS = ("recipe", "reranker", "N", "k", "in_grid", "p_metric")


def results_frame(lab: Lab, result: SweepResult, metric: str, recommended: Recommendation) -> pd.DataFrame:
    """The metric table as the page shows it: the recommended row on top, the most useful columns first, and none
    that says nothing on this sweep (a cost of $0 everywhere, no reranker fallback, no stale-rate or coverage
    measured); the Table CSV keeps every column. The plain or the condensed metrics, as `metric` is."""
    table = pd.DataFrame(lab.evaluation.settings_table(result, metric))
    table["recommended"] = table["setting"] == recommended.key
    table["coverage"] = ["lead rests on unjudged facts" if s.key in recommended.unsure else "" for s in result.settings]
    condensed = metric.endswith(CONDENSED)
    table = table.drop(columns=[*HIDDEN_COLUMNS, *(METRIC_NAMES if condensed else CONDENSED_NAMES)])
    for column in ("stale@k", JUDGED, "coverage"):
        if table[column].isna().all() or (table[column] == "").all():
            table = table.drop(columns=[column])
    if not (table["cost_usd"].fillna(0) > 0).any() and all(s.cost_usd is not None for s in result.settings):
        table = table.drop(columns=["cost_usd"])  # every setting free: a column of $0.0000
    if not table["fallbacks"].any():
        table = table.drop(columns=["fallbacks"])
    first = [c for c in (*FIRST_COLUMNS[:2], metric, *FIRST_COLUMNS[2:]) if c in table.columns]
    table = table[[*first, *(c for c in table.columns if c not in first)]]
    # the recommended row, then the rest best first on the metric: the table's top two are what is compared first
    ranked = table.sort_values(["recommended", metric], ascending=[False, False], kind="stable")
    return ranked.reset_index(drop=True)


def _stale_note(result: SweepResult, key: str) -> None:
    setting = result.setting(key)
    if STALE not in setting.metrics:
        return
    rates = [s.metrics.get(STALE, 0.0) for s in result.grid]
    when = f"on {result.spec.as_of}" if result.spec.as_of else "today"
    st.caption(
        f"Stale-fact rate: without the superseded filter, {setting.metrics[STALE]:.1%} of the top k of {md(key)} "
        f"would be facts already superseded {when} ({min(rates):.1%}-{max(rates):.1%} across the settings): "
        "what the filter keeps out on this deal."
    )


def render_wins_losses(
    lab: Lab, result: SweepResult, key: str, metric: str, exp_id: int | None = None, against: str | None = None
) -> None:
    """Per query, where `key` did better or worse than `against` (the baseline unless given), each with a link that
    opens the query in Compare with `against` as side A and `key` as side B."""
    against = against or result.baseline
    if key == against:
        st.caption("Pick two different settings to see where one helps or hurts against the other.")
        return
    if exp_id is not None:  # only the two settings' rankings are read, not the whole experiment's
        result = lab.evaluation.with_rankings(exp_id, result, (against, key))
    wins, losses = lab.evaluation.wins_and_losses(result, key, metric, against)
    which = "the baseline" if against == result.baseline else md(against)
    st.markdown(f"**Per-query wins and losses** of {md(key)} against {which} ({metric})")
    a, b = result.setting(against).setting, result.setting(key).setting
    changes = [*wins, *losses]
    if changes:
        show_table(
            pd.DataFrame(
                [
                    {
                        "change": "helped" if c.delta > 0 else "hurt",
                        "delta": round(c.delta, 4),
                        "query": plain(c.query),
                        "type": plain(c.type),
                        "A (against)": round(c.baseline, 4),  # QueryChange names side A "baseline"
                        "B (inspected)": round(c.setting, 4),
                        "compare": compare_url(result.spec.group_id, c.query, a, b),
                    }
                    for c in changes
                ]
            ),
            f"{NS}.wins_losses",
            config={
                "compare": st.column_config.LinkColumn(
                    "Compare",
                    display_text="open in Compare",
                    help="This query, the setting held against (A) beside the one inspected (B)",
                )
            },
        )
    cols = st.columns(2)
    for col, verb, items in ((cols[0], "helped", wins), (cols[1], "hurt", losses)):
        col.markdown(f"{len(items)} queries {verb}")
        for change in items[:15]:
            with col.expander(f"{change.delta:+.3f} · {label(change.query)}"):
                st.caption(f"{md(change.type)} · A {change.baseline:.3f} → B {change.setting:.3f}")
                for j in change.judged:
                    where = f"rank {_rank(j.rank_baseline)} → {_rank(j.rank_setting)}"
                    st.markdown(f"- relevant (grade {j.grade}), {where}: {md(j.fact)}")
                st.markdown("Top 3 of A: " + " · ".join(f"_{md(f, LABEL_CHARS)}_" for f in change.top_baseline if f))
                st.markdown("Top 3 of B: " + " · ".join(f"_{md(f, LABEL_CHARS)}_" for f in change.top_setting if f))


def _rank(rank: int | None) -> str:
    return str(rank) if rank is not None else "not in top"
