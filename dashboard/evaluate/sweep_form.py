"""The Evaluate & tune page's inputs: the deal's query sets, and the sweep form with what Run would start and about
how long. Run starts the sweep as a server-side job (`sweep_job.py`, listed by `jobs_view.py` for every session); a
finished one is saved as an experiment on its own (`experiments.py` opens it, `view.py` shows it).
"""

from __future__ import annotations

from datetime import date

import streamlit as st

from dashboard.common.dates import enter_commits_dates
from dashboard.common.runtime import run
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.evaluate.jobs_view import NS, active_job, on_run
from pipeline.api import Lab, reranker_choices
from pipeline.api.models import BASELINE, DEFAULT_RECIPE, DEFAULT_SAMPLE, RECIPE_NAMES, EvalSet, Recipe, SweepSpec
from pipeline.errors import InvalidInput

CANDIDATE_OPTIONS = [5, 10, 25, 50, 75, 100, 150, 200]
TOP_K_OPTIONS = [1, 3, 5, 10, 20]


def eval_sets(lab: Lab, group_id: str) -> list[EvalSet]:
    return run(lab.evaluation.available_eval_sets(group_id))


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
        + "; ".join(f"{name}: {Recipe.preset(name).describe()}" for name in RECIPE_NAMES),
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
        (*(Recipe.preset(name) for name in recipes), *mine),
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
        estimate = lab.evaluation.estimate_sweep(spec, chosen)
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
            recipe = Recipe.from_config(text, "The custom recipe")
        except InvalidInput as exc:
            st.error(md(exc))
            return (), False
        st.caption(md(f"Swept as {recipe.key}: {recipe.describe()}"))
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
