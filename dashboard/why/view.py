"""The loss X-ray page: where each judged-relevant fact of a query set was lost under each chosen setting, as a chart
and a table that add up to the set's relevant facts, what a larger N or a lifted floor would bring, example queries
per stage linked to Compare and Scores, and one query fact by fact.

Every control is bound to the URL (`why.*`), so an X-ray can be shared as a link. The report is computed once per
deal state, set, judgments and settings, and shared by every session (`shared_cache`): it ranks every judged query
of the set under each setting, through the one `rank()`.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from dashboard.common.deal_state import DealState, deal_state
from dashboard.common.links import query_links
from dashboard.common.page_state.url import publish_id, restore_id
from dashboard.common.runtime import run
from dashboard.common.shared_cache import shared_cache
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, label, md, plain
from dashboard.why.charts import losses_figure
from pipeline.api import Lab
from pipeline.api.models import (
    LOSS_LABELS,
    LOSS_STAGES,
    RECIPE_NAMES,
    SWEPT_SETTINGS,
    DealInfo,
    EvalSet,
    ExperimentInfo,
    LossReport,
    Setting,
    SweptReport,
)

NS = "why"
DEFAULT_RECIPES = ["graphiti-default", "vector"]
RERANKERS = ("none", "local")  # offline rerankers only: an X-ray reranks every judged query of the set
RUN_TIMEOUT_S = 900.0
EXPERIMENT = f"{NS}.experiment"
# what to X-ray; a button group's URL value is the option as shown (`why.from=A+saved+sweep`)
CHOSEN, SWEPT = "Settings chosen here", "A saved sweep"
HEADERS = {stage: text[:1].upper() + text[1:] for stage, text in LOSS_LABELS.items()}


def _fingerprint(eval_set: EvalSet) -> str:
    """The set's judgments, in a few characters: a new grade or query draws a new report."""
    items = sorted((q, u, g) for q, judged in eval_set.qrels.items() for u, g in judged.items())
    return hashlib.sha256(repr((eval_set.queries, items)).encode()).hexdigest()[:16]


@shared_cache(max_entries=8)
def swept_report(_lab: Lab, group_id: str, state: DealState, exp_id: int, judgments: str) -> SweptReport:
    """A saved sweep's X-ray (an experiment never changes: the deal's state and its set's judgments key it)."""
    return run(_lab.why.experiment_report(exp_id), timeout=RUN_TIMEOUT_S)


@shared_cache(max_entries=16)
def loss_report(
    _lab: Lab, group_id: str, state: DealState, source: str, judgments: str, settings: tuple[str, ...]
) -> LossReport:
    chosen = [Setting.parse(text, "setting") for text in settings]
    return run(_lab.why.report(group_id, chosen, source), timeout=RUN_TIMEOUT_S)


def source_control() -> str:
    """What to X-ray: settings chosen on the page (CHOSEN), or a saved sweep's (SWEPT); in the URL (`why.from`)."""
    picked = st.segmented_control("X-ray", [CHOSEN, SWEPT], key=f"{NS}.from", default=CHOSEN, bind="query-params")
    return picked or CHOSEN


def controls(lab: Lab, group_id: str) -> tuple[EvalSet, list[Setting]] | None:
    """The query set and the settings to X-ray (every chosen recipe at one reranker, N and k); None when the deal
    has no judged set or no recipe is chosen."""
    sets = {s.source: s for s in run(lab.evaluation.available_eval_sets(group_id)) if s.scorable}
    if not sets:
        st.info(
            "This deal has no judged queries yet: import a query set (`python -m pipeline import-queries DIR --group "
            "G`) or grade citations on the Citation spot-check page, then come back."
        )
        return None
    top, reranker_box, n_box, k_box = st.columns([3, 1, 1, 1])
    source = top.selectbox(
        "Query set",
        list(sets),
        key=f"{NS}.set",
        format_func=lambda s: plain(f"{sets[s].label} ({len(sets[s].scorable)} judged queries)", OPTION_CHARS),
        bind="query-params",
    )
    recipes = st.multiselect(
        "First-stage recipes",
        RECIPE_NAMES,
        default=DEFAULT_RECIPES,
        key=f"{NS}.recipes",
        bind="query-params",
    )
    reranker = reranker_box.selectbox("Reranker", RERANKERS, key=f"{NS}.reranker", bind="query-params")
    n = n_box.selectbox("Candidates (N)", (10, 25, 50, 100, 200), index=2, key=f"{NS}.n", bind="query-params")
    k = k_box.selectbox("Top-k", (3, 5, 10, 20), index=2, key=f"{NS}.k", bind="query-params")
    if not recipes:
        st.info("Choose at least one first-stage recipe.")
        return None
    if k > n:
        st.info(f"Top-k ({k}) cannot exceed N ({n}).")
        return None
    return sets[source], [Setting.parse(f"{r}:{reranker}:{n}:{k}", "setting") for r in recipes]


def render(lab: Lab, deal: DealInfo, eval_set: EvalSet, chosen: list[Setting]) -> None:
    """The X-ray of the settings chosen on the page."""
    state = deal_state(lab, deal)
    with st.spinner(f"X-raying {len(eval_set.scorable)} judged queries under {len(chosen)} settings…"):
        report = loss_report(
            lab, deal.group_id, state, eval_set.source, _fingerprint(eval_set), tuple(s.text for s in chosen)
        )
    _draw(deal.group_id, report, chosen)


def sweep_control(lab: Lab, group_id: str) -> ExperimentInfo | None:
    """A saved sweep of the deal to X-ray (its id is in the URL: `why.experiment`); None when the deal has none."""
    saved = {e.id: e for e in lab.evaluation.list_experiments(group_id)}
    labels = {i: lab.evaluation.experiment_label(e) for i, e in saved.items()}
    if not labels:
        st.info("This deal has no saved sweep yet: run one on Evaluate & tune, then X-ray it here.")
        return None
    restore_id(EXPERIMENT, labels, "experiment", "an experiment of this deal")
    picked = st.selectbox(
        "Saved sweep",
        list(labels),
        key=EXPERIMENT,
        format_func=lambda i: plain(labels[i], OPTION_CHARS),
        help=f"Its recommended setting, its baseline and its best by the sweep's metric (at most {SWEPT_SETTINGS}), "
        "on the queries it ran.",
    )
    publish_id(EXPERIMENT, picked)
    return saved[picked]


def render_swept(lab: Lab, deal: DealInfo, info: ExperimentInfo) -> None:
    """The X-ray of a saved sweep's settings."""
    state = deal_state(lab, deal)
    sets = {s.source: s for s in run(lab.evaluation.available_eval_sets(deal.group_id))}
    judged = _fingerprint(sets[info.judgments]) if info.judgments in sets else ""
    with st.spinner(f"X-raying the sweep's {info.queries} queries…"):
        swept = swept_report(lab, deal.group_id, state, info.id, judged)
    for note in swept.notes:
        st.caption(md(note))
    _draw(deal.group_id, swept.report, list(swept.settings))


def _draw(group_id: str, report: LossReport, chosen: list[Setting]) -> None:
    """The report's chart and table, each setting's what-ifs and examples, and one query fact by fact; `chosen` are
    the report's settings in its order."""
    facts = f"facts valid on {report.as_of[:10]}" if report.as_of else "all facts" if report.include_superseded else ""
    st.caption(
        f"{report.queries} judged queries of {md(report.set_label)}, {facts or 'current facts'}. Each judged-relevant "
        "fact (grade 1 or more) is counted once, at the first stage that lost it; the bars add up to all of them."
    )
    st.plotly_chart(losses_figure(report.settings), key=f"{NS}.chart", config={"displayModeBar": False})
    rows = [{"where": HEADERS[stage], **{f.label: f.counts[stage] for f in report.settings}} for stage in LOSS_STAGES]
    rows.append({"where": "All judged-relevant facts", **{f.label: f.relevant for f in report.settings}})
    show_table(rows, f"{NS}.counts", names={f.label: f.label for f in report.settings})  # recipe names as written
    for figures, setting in zip(report.settings, chosen, strict=True):
        st.markdown(f"**{label(figures.label)}**")
        for what_if in figures.what_ifs:
            st.markdown(f"- What if {md(what_if.sentence(figures.relevant))}")
        _examples(group_id, setting, figures.examples)
    _one_query(report)


def _examples(group_id: str, setting: Setting, examples: dict[str, tuple[tuple[str, str], ...]]) -> None:
    """Per stage that lost facts, its example queries, each linked to Scores and to Compare under this setting."""
    for stage in LOSS_STAGES:
        if stage == "kept" or not examples[stage]:
            continue
        st.caption(f"{LOSS_LABELS[stage]}:")
        for query_id, text in examples[stage]:
            left, mid, right = st.columns([6, 1, 1])
            left.text(plain(f"{query_id}: {text}", 200))
            query_links(group_id, text, setting, mid, right)


def _one_query(report: LossReport) -> None:
    """One judged query, fact by fact: where each relevant fact was lost under each setting, with the evidence."""
    st.subheader("One query, fact by fact")
    texts = {q.query_id: q.text for q in report.per_query}
    query_id = st.selectbox(
        "Judged query",
        list(texts),
        key=f"{NS}.query",
        format_func=lambda q: plain(f"{q}: {texts[q]}", OPTION_CHARS),
        bind="query-params",
    )
    names = {s.setting: s.label for s in report.settings}
    rows = [
        {
            "setting": names[q.setting],
            "stage": LOSS_LABELS[f.stage],
            "grade": f.grade,
            "fact": f.fact,
            "evidence": f.detail + (f" (same text as a fact ranked above it: {f.twin})" if f.twin else ""),
            "rank": f.rank,
        }
        for q in report.per_query
        if q.query_id == query_id
        for f in q.facts
    ]
    show_table(rows, f"{NS}.facts")
