"""The Evaluate & tune page's widgets: query sets, the sweep (started as a job), results, experiments.

A sweep runs as a server-side job (`dashboard/evaluate/sweep_job.py`, listed by `jobs_view.py` for every session);
a finished one is saved as an experiment on its own, and the result shown is always a saved experiment, named in
the URL (`evaluate.experiment`), so a reload shows the same numbers. A cancelled sweep keeps the queries it
finished, as a partial experiment, marked partial wherever it is named or shown.
"""

from __future__ import annotations

from datetime import date

import pandas as pd
import streamlit as st

from dashboard.common.dates import enter_commits_dates
from dashboard.common.links import compare_url
from dashboard.common.page_state.url import current_pick, linked_id, pick_key, publish_id, set_pick
from dashboard.common.runtime import run
from dashboard.common.tables import show_table
from dashboard.common.text import LABEL_CHARS, OPTION_CHARS, file_slug, label, md, plain
from dashboard.evaluate.charts import heatmaps, pareto
from dashboard.evaluate.jobs_view import OPEN, active_job, on_run
from dashboard.evaluate.pool_gap import render_pool_gap
from pipeline.errors import InvalidInput
from pipeline.evaluation.compare import (
    compare_experiments,
    data_warnings,
    recommended_side,
    setup_differences,
    wins_and_losses,
)
from pipeline.evaluation.coverage import kind_words
from pipeline.evaluation.estimate import estimate_sweep
from pipeline.evaluation.experiments import list_experiments, load_experiment, rename_experiment, with_rankings
from pipeline.evaluation.export import per_query_csv, settings_table, to_csv, to_json
from pipeline.evaluation.fingerprint import describe_graph, describe_judgments
from pipeline.evaluation.judgments import EvalSet, available_eval_sets
from pipeline.evaluation.labels import experiment_label
from pipeline.evaluation.recommend import Recommendation, metric_label
from pipeline.evaluation.records import (
    BASELINE,
    CONDENSED,
    CONDENSED_NAMES,
    DEFAULT_METRIC,
    DEFAULT_SAMPLE,
    JUDGED,
    METRIC_NAMES,
    STALE,
    SweepResult,
    SweepSpec,
)
from pipeline.evaluation.ship import setting_module
from pipeline.lab import Lab
from pipeline.rerankers import reranker_choices
from pipeline.retrieval.recipes import DEFAULT_RECIPE, RECIPE_NAMES, Recipe, describe, parse_config, preset

NS = "evaluate"
CANDIDATE_OPTIONS = [5, 10, 25, 50, 75, 100, 150, 200]
TOP_K_OPTIONS = [1, 3, 5, 10, 20]
NONE = 0  # "Show" option for no experiment (experiment ids start at 1)


# --- query sets --------------------------------------------------------------------------------


def render_query_sets(sets: list[EvalSet]) -> None:
    st.subheader("Query sets")
    if not sets:
        st.info(
            "This deal has no judgments yet: import a query set whose qrels name its fact or episode uuids "
            "(`python -m pipeline import-queries DIR --group G`), or review citations on the Citation spot-check page."
        )
        return
    rows = [
        {
            "source": s.label,
            "queries": len(s.queries),
            "scorable": len(s.scorable),
            "judgments": s.judgments,
            "query types": ", ".join(f"{t} {n}" for t, n in s.type_mix.items()),
            "splits": ", ".join(f"{t} {n}" for t, n in s.splits.items()),
            "LLM judge": s.judge.text().removeprefix("LLM judge vs analysts: ") if s.judge else "",
        }
        for s in sets
    ]
    show_table(rows, f"{NS}.sets")
    st.caption(
        "Scorable: queries with at least one relevant judgment. Every stored query set of the deal is listed (the "
        "first is its default). Analysts' relevance grades (0-3) from the Citation spot-check page appear as a "
        "source once this deal has some, and an LLM judge's grades likewise, with its agreement with the analysts; "
        "`python -m pipeline import-queries --from-verdicts` freezes the analysts' grades into a set."
    )


# --- sweep controls ----------------------------------------------------------------------------


def sweep_controls(lab: Lab, group_id: str, sets: list[EvalSet]) -> None:
    """The sweep form, with what Run would start and about how long; Run starts a sweep job (callback). The running
    job's one Cancel is beside its progress (`jobs_view.py`)."""
    st.subheader("Sweep")
    running = active_job(lab, group_id) is not None
    usable = {c.name: c for c in reranker_choices(lab.settings) if c.available}
    recipes = st.multiselect(
        "First-stage recipes",
        RECIPE_NAMES,
        default=[DEFAULT_RECIPE],
        key=f"{NS}.recipes",
        help="graphiti's search recipes (docs/recipes.md); each is swept over every N, k and reranker. "
        + "; ".join(f"{name}: {describe(preset(name))}" for name in RECIPE_NAMES),
    )
    mine, custom_ok = _custom_recipe()
    cols = st.columns([2, 2, 2, 2])
    ns = cols[0].multiselect(
        "Candidates N", CANDIDATE_OPTIONS, default=[10, 25, 50, 100], key=f"{NS}.candidates", wrap=True
    )
    ks = cols[1].multiselect("Top-k", TOP_K_OPTIONS, default=[3, 5, 10], key=f"{NS}.top_k", wrap=True)
    rerankers = cols[2].multiselect(
        "Rerankers",
        list(usable),
        default=[r for r in ("none", "local") if r in usable],
        key=f"{NS}.rerankers",
        wrap=True,
        help="; ".join(f"{c.name}: {c.label}" for c in usable.values()),
    )
    source = cols[3].selectbox(
        "Judgments",
        [s.source for s in sets],
        key=f"{NS}.source",
        format_func=lambda name: plain(next(s.label for s in sets if s.source == name), OPTION_CHARS),
    )
    chosen = next((s for s in sets if s.source == source), None)
    trust_judge = _judge_gate(lab, chosen)
    cols = st.columns([2, 2, 1.5, 2.5])
    splits = list(chosen.splits) if chosen else []
    split = cols[0].selectbox("Split", ["all", *splits], key=f"{NS}.split", disabled=not splits)
    sample = cols[1].number_input(
        "Sample of queries (0 = all)",
        min_value=0,
        max_value=100_000,
        value=DEFAULT_SAMPLE,
        step=10,
        key=f"{NS}.sample",
        help="A seeded random sample of the set's scorable queries (all of them when the set is smaller): start "
        "small, then sweep more. The sample and its seed are saved with the experiment, so it can be run again.",
    )
    seed = cols[2].number_input(
        "Seed",
        min_value=0,
        max_value=2**31 - 1,
        value=0,
        step=1,
        key=f"{NS}.seed",
        help="The same seed picks the same queries of the same set.",
    )
    cache_note = "Cached first-stage candidates and reranker scores are reused (keyed by the graph's fingerprint)."
    job_note = "A sweep runs on the server as a job: it goes on if this tab closes and is saved as an experiment."
    base = BASELINE
    cols[3].caption(
        f"Baseline: {base.recipe.key}, no reranking, N={base.candidates}, k={base.top_k} (always computed). "
        f"{cache_note} {job_note}"
    )
    as_of, include_superseded, stale_rate = _time_controls()

    spec = SweepSpec.with_recipes(
        group_id,
        (*(preset(name) for name in recipes), *mine),
        candidates=tuple(ns),
        top_ks=tuple(ks),
        rerankers=tuple(rerankers),
        judgments=source or "labelled",
        split=None if split == "all" else split,
        sample=int(sample) or None,
        seed=int(seed),
        include_superseded=include_superseded,
        as_of=as_of,
        stale_rate=stale_rate,
        trust_judge=bool(trust_judge),
    )
    if chosen is not None:
        _estimate_line(lab, spec, chosen)
    st.button(
        "Run sweep",
        key=f"{NS}.run",
        type="primary",
        icon=":material/play_arrow:",
        disabled=running or not custom_ok or trust_judge is None,
        on_click=on_run,
        args=(lab, spec),
    )


def _estimate_line(lab: Lab, spec: SweepSpec, chosen: EvalSet) -> None:
    """What Run would start, before it starts: queries x settings and about how long. Options the sweep would
    refuse get their one line when Run is clicked, not here."""
    try:
        estimate = estimate_sweep(lab.store, spec, chosen)
    except InvalidInput:
        return
    st.caption(md(f"Run sweep: {estimate.text()}"))


def _judge_gate(lab: Lab, chosen: EvalSet | None) -> bool | None:
    """With an LLM judge's grades in the judgments: its agreement with the analysts, and when it falls below the
    deployment's threshold, a box to use it anyway. True / False: the sweep's `trust_judge`; None: Run waits."""
    if chosen is None or chosen.judge is None:
        return False
    threshold = lab.settings.judge_min_kappa
    if chosen.judge.trusted(threshold):
        st.caption(md(chosen.judge.text()))
        return False
    st.warning(md(f"{chosen.judge.text()}: below the {threshold:.2f} this deployment trusts."), icon="⚠️")
    anyway = st.checkbox(
        "Use the LLM judge's grades anyway",
        key=f"{NS}.trust_judge",
        help="Or have analysts grade a calibration sample of the judge's pairs on the Citation spot-check page.",
    )
    return True if anyway else None


def _custom_recipe() -> tuple[tuple[Recipe, ...], bool]:
    """A team's own recipe, pasted as graphiti's `SearchConfig` JSON, swept beside the presets: (the recipe or
    nothing, whether the sweep may run). A paste that is no SearchConfig is one line, and Run waits for a fix."""
    with st.expander("Custom recipe: your own graphiti SearchConfig"):
        text = st.text_area(
            "SearchConfig JSON (what `SearchConfig.model_dump_json()` writes; its edge_config is used)",
            key=f"{NS}.custom_recipe",
            placeholder='{"edge_config": {"search_methods": ["bm25", "cosine_similarity"], "reranker": "rrf"}}',
        )
        if not text.strip():
            return (), True
        try:
            recipe = parse_config(text, "The custom recipe")
        except InvalidInput as exc:
            st.error(md(exc))
            return (), False
        st.caption(md(f"Swept as {recipe.key}: {describe(recipe)}"))
        return (recipe,), True


def _time_controls() -> tuple[str | None, bool, bool]:
    """As of a date, superseded facts in or out, and whether to measure what the superseded filter keeps out."""
    enter_commits_dates()  # a typed date commits on Enter, not only when the field loses focus
    cols = st.columns([2, 2, 4])
    day = cols[0].date_input(
        "As of (optional)",
        value=None,
        min_value=date(1900, 1, 1),
        max_value=date(2199, 12, 31),
        key=f"{NS}.as_of",
        help="Retrieve the facts valid on this date (empty: today's facts).",
    )
    include = cols[1].checkbox(
        "Include superseded facts", key=f"{NS}.include_superseded", help="Turn the superseded filter off."
    )
    stale = cols[2].checkbox(
        "Measure the stale-fact rate",
        key=f"{NS}.stale_rate",
        help="Ranks every query again without the superseded filter: the share of each setting's top k that "
        "would be superseded facts, i.e. what the filter is worth on this deal (a second pass, cached).",
    )
    return (day.isoformat() if isinstance(day, date) else None), include, stale


# --- results -----------------------------------------------------------------------------------


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
        result = with_rankings(lab.store, exp_id, result, (rec.unsure[0], result.baseline))
        rec = result.recommendation(metric)
    (st.success if rec.beats_baseline and not result.partial else st.info)(
        f"**Recommended: {md(rec.key)}** — {md(rec.sentence)}", icon=":material/recommend:"
    )
    st.caption(f"Rule: {md(rec.rule)}.")
    render_pool_gap(lab, result.unjudged_gap(rec))
    _stale_note(result, rec.key if rec.beats_baseline else rec.best)

    table = results_frame(result, metric, rec)
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
    st.caption(
        "**@k**: the top k the setting hands on (**tokens@k**: its size, counted with the bundled MiniLM "
        f"tokenizer; **judged@k**: the share of it that has a judgment; this set has {kind_words(result.judgment_kind)}"
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


def results_frame(result: SweepResult, metric: str, recommended: Recommendation) -> pd.DataFrame:
    """The metric table as the page shows it: the recommended row on top, the most useful columns first, and none
    that says nothing on this sweep (a cost of $0 everywhere, no reranker fallback, no stale-rate or coverage
    measured); the Table CSV keeps every column. The plain or the condensed metrics, as `metric` is."""
    table = pd.DataFrame(settings_table(result, metric))
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
        result = with_rankings(lab.store, exp_id, result, (against, key))
    wins, losses = wins_and_losses(result, key, metric, against)
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


def render_exports(
    lab: Lab,
    result: SweepResult,
    saved_as: str | None,
    metric: str = DEFAULT_METRIC,
    exp_id: int | None = None,
    picked: str | None = None,
) -> None:
    """The table CSV now; the per-query CSV, the JSON (every ranking) and the inspected setting as a Python module
    to ship (`pipeline eval --export-config`) are built when clicked."""
    cols = st.columns([3, 1, 1, 1, 1])
    name = f"{result.spec.group_id}-sweep" if saved_as is None else saved_as
    slug = file_slug(name, "sweep")

    def whole() -> SweepResult:
        return result if exp_id is None else load_experiment(lab.store, exp_id)[1]

    cols[1].download_button(
        "Table CSV", to_csv(result, metric).encode(), f"{slug}.csv", "text/csv", key=f"{NS}.csv", on_click="ignore"
    )
    cols[2].download_button(
        "Per-query CSV",
        lambda: per_query_csv(result).encode(),
        f"{slug}-queries.csv",
        "text/csv",
        key=f"{NS}.qcsv",
        on_click="ignore",
    )
    cols[3].download_button(
        "JSON",
        lambda: to_json(whole()).encode(),
        f"{slug}.json",
        "application/json",
        key=f"{NS}.json",
        on_click="ignore",
    )
    if picked is not None:
        experiment = f"#{exp_id} {saved_as!r}" if exp_id is not None else ""
        cols[4].download_button(
            "Setting as code",
            lambda: setting_module(result, picked, lab.settings, experiment).encode(),
            "retrieval_setting.py",
            "text/x-python",
            key=f"{NS}.code",
            help=f"{picked} as a Python module for your service: graphiti's SearchConfig, the search_() call at "
            "limit N and the reranker call cut to k.",
            on_click="ignore",
        )
        with st.expander(f"Setting as code: {label(picked)}", icon=":material/code:"):
            # st.code: shown as text (never Markdown), with Streamlit's own copy button
            st.code(setting_module(result, picked, lab.settings, experiment), language="python")


# --- experiments -------------------------------------------------------------------------------


def pick_result(lab: Lab, group_id: str) -> tuple[SweepResult | None, str | None]:
    """The saved experiment to show: the one in the URL (`evaluate.experiment`, set when this session's sweep
    ended or an experiment is picked), so a reload shows the same result."""
    experiments = list_experiments(lab.store, group_id)
    labels = {e.id: experiment_label(e) for e in experiments}
    if (linked := linked_id(OPEN, labels, "experiment", "an experiment of this deal")) is not None:
        set_pick(OPEN, linked)
    if current_pick(OPEN) not in (NONE, *labels):
        st.session_state[pick_key(OPEN)] = NONE
    opened = st.selectbox(
        "Show",
        [NONE, *labels],
        key=pick_key(OPEN),  # the page opens a finished sweep's experiment itself: see pick_key
        format_func=lambda i: "(pick a saved sweep)" if i == NONE else plain(labels.get(i, f"#{i}"), OPTION_CHARS),
        help="Every finished sweep is saved as an experiment; the one shown is in the page's URL.",
    )
    publish_id(OPEN, None if opened == NONE else opened)
    if opened == NONE:
        return None, None
    info, result = load_experiment(lab.store, opened, rankings=False)  # rankings: read where shown
    _fingerprint_line(result)
    _rename_form(lab, info.id, group_id, info.name)
    return result, f"#{info.id} {info.name}"


def _fingerprint_line(result: SweepResult) -> None:
    if "judge_agreement" in result.eval_set:  # beside metrics that rest on the LLM judge's grades
        st.caption(md(result.eval_set["judge_agreement"]))
    fp = result.fingerprint
    if fp:
        st.caption(f"Ran on {md(describe_graph(fp['graph']))}; judgments {md(describe_judgments(fp['judgments']))}.")
    else:
        st.caption("Saved before run fingerprints: the graph and judgment states it ran on were not recorded.")


def _rename_form(lab: Lab, exp_id: int, group_id: str, name: str) -> None:
    with st.popover("Rename", icon=":material/edit:"), st.form(f"{NS}.rename_form", border=False):
        new = st.text_input("Experiment name", value=name, key=f"{NS}.name_{exp_id}")
        if st.form_submit_button("Rename"):
            try:
                rename_experiment(lab.store, exp_id, group_id, new)
            except InvalidInput as exc:
                st.error(md(exc))
            else:
                st.rerun()


def render_comparison(lab: Lab, group_id: str) -> None:
    experiments = list_experiments(lab.store, group_id)
    st.subheader("Compare experiments")
    if len(experiments) < 2:
        st.caption("Save two experiments on this deal to compare them.")
        return
    labels = {e.id: experiment_label(e) for e in experiments}

    def option(i: int) -> str:
        return plain(labels[i], OPTION_CHARS)

    # one experiment a row: their labels (name, deal, queries, when) need the page's width at 1280 px
    a = st.selectbox("Experiment A", list(labels), index=1, key=f"{NS}.cmp_a", format_func=option)
    b = st.selectbox("Experiment B", list(labels), index=0, key=f"{NS}.cmp_b", format_func=option)
    metric = st.columns(3)[0].selectbox("Metric", list(METRIC_NAMES), key=f"{NS}.cmp_metric")
    if a == b:
        st.caption("Pick two different experiments.")
        return
    result_a, result_b = (load_experiment(lab.store, e, rankings=False)[1] for e in (a, b))
    _recommendations(result_a, result_b, metric)
    for line in data_warnings(result_a, result_b, lab.store):
        st.warning(md(line), icon=":material/warning:")
    rows = compare_experiments(result_a, result_b, metric)
    if not rows:
        st.info("The two experiments share no setting.")
        return
    st.markdown(f"**The settings both ran** ({metric})")
    show_table(
        pd.DataFrame(
            [
                {
                    "setting": r.setting,
                    f"A {metric}": round(r.metric_a, 4),
                    f"B {metric}": round(r.metric_b, 4),
                    "delta": round(r.delta, 4),
                    "p (paired, shared queries)": r.p_value,
                    "shared queries": r.queries,
                    "A p50 ms": round(r.p50_a, 1),
                    "B p50 ms": round(r.p50_b, 1),
                }
                for r in rows
            ]
        ),
        f"{NS}.cmp_table",
    )


def _recommendations(a: SweepResult, b: SweepResult, metric: str) -> None:
    """What each experiment recommends, side by side (setting, metric with its confidence interval, why), then
    how their setups differ, which is what makes two recommendations differ on the same data."""
    sides = {"A": recommended_side(a, metric), "B": recommended_side(b, metric)}
    cols = st.columns(2)
    for col, (which, side) in zip(cols, sides.items(), strict=True):
        with col.container(border=True, key=f"{NS}.cmp_rec_{which}"):
            rec = side.recommendation
            st.markdown(f"**{which} recommends {md(rec.key)}**" + (" (partial run)" if side.partial else ""))
            st.markdown(md(f"{metric_label(metric)} {side.interval.text()}"))
            st.caption(md(rec.sentence))
    same = sides["A"].recommendation.key == sides["B"].recommendation.key
    differences = setup_differences(a, b)
    verdict = "Both recommend the same setting." if same else "They recommend different settings."
    if differences:
        st.markdown(f"{verdict} How the two sweeps differ:")
        st.markdown("\n".join(f"- {md(line)}" for line in differences))
    else:
        st.caption(f"{verdict} Same grid, queries, judgment source and time options.")


def eval_sets(lab: Lab, group_id: str) -> list[EvalSet]:
    return run(available_eval_sets(lab, group_id))
