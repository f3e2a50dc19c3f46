"""The side-by-side view of two settings: banners, the judged verdict and per-side metrics, overlap, and each
side's top k as cards (judged grade, movement against the other side, citation, grade buttons) under its setting
(recipe included) and, when the recipe's floors left fewer than N candidates, a line saying so."""

from __future__ import annotations

import streamlit as st

from dashboard.common.links import evidence_params, scores_params
from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.query_form import setting_runs
from dashboard.common.recipes import pool_note
from dashboard.common.result_cards import result_card
from dashboard.common.runtime import run
from dashboard.common.text import md
from dashboard.compare.form import NS, CompareRequest
from dashboard.compare.grading import grade_row, grading_header
from pipeline.api import Lab
from pipeline.api.models import Confidence, QueryJudgments, RetrievalRun, Setting

KEPT = SessionMemo(f"{NS}.memo", keep=40)  # per query: its confidence and judgments
# B's outcome against A: a colour and an icon each, and the line starts with the word (colour is not the only signal).
# Worse is orange, not red: a red box means the page failed (the browser tests and the load test count them).
OUTCOME_BOX = {
    "better": (st.success, ":material/trending_up:"),
    "worse": (st.warning, ":material/trending_down:"),
    "no change": (st.info, ":material/balance:"),
}


def _forget_judgments() -> None:
    """Drop the judgments kept for the page: a grade was just recorded."""
    KEPT.forget(lambda key: key[0] == "judged")


def render_comparison(lab: Lab, request: CompareRequest, reviewer: str) -> None:
    a, b = setting_runs(NS, lab, request.query, request.group_id, [request.a, request.b])
    said: set[str] = set()
    for name, side in (("A", a), ("B", b)):
        if side.fallback_reason:
            st.warning(
                f"**Side {name}: the reranker fell back to first-stage order.** {md(side.fallback_reason)}",
                icon=":material/warning:",
            )
        for message in side.timings.over_budget:
            if message not in said:  # a shared first stage is over budget once, not once per side
                said.add(message)
                st.caption(f":orange[Over budget:] {md(message)}")
    basis = _confidence_basis(a, b)
    confidence: Confidence = KEPT.get(
        ("confidence", basis.query, basis.group_id, basis.recipe, basis.num_candidates, basis.first_stage),
        lambda: run(lab.comparison.assess(basis)),
    )
    low = confidence.low
    if low:
        st.warning(
            "**Low confidence: this deal probably holds no good answer to the query.** "
            f"{md(confidence.reason)}. The 0-1 scores below are relative to this pool, so its best reads 1.00 "
            "even when every score is low.",
            icon=":material/help:",
        )
    judged: QueryJudgments | None = KEPT.get(
        ("judged", a.query, a.group_id), lambda: run(lab.comparison.query_judgments(a.group_id, a.query))
    )
    _judged_summary(lab, judged, a, b, lab.comparison.side_names(request.a, request.b))
    _stats(lab, a, b)
    grading_header(reviewer)
    _cards(lab, request, a, b, judged, low, reviewer)


def _confidence_basis(a: RetrievalRun, b: RetrievalRun) -> RetrievalRun:
    """The side whose first stage the low-confidence rule reads: the rule needs the cosine and BM25 lists, which a
    side's recipe may not run (`vector`, `bm25`) or its floors may empty (`mmr`); A unless B has more of them."""

    def signals(side: RetrievalRun) -> tuple[bool, bool, int]:
        found = [c.method_ranks for c in side.candidates]
        return any(r.get("cosine") for r in found), any(r.get("bm25") for r in found), len(found)

    return b if signals(b) > signals(a) else a


def _judged_summary(
    lab: Lab, judged: QueryJudgments | None, a: RetrievalRun, b: RetrievalRun, names: tuple[str, str]
) -> None:
    if judged is None or not judged.scorable:
        st.caption("Not judged: this query is not in the deal's labelled set and has no relevance verdicts.")
        return
    grades = judged.grades
    score_a = lab.comparison.side_score(grades, [r.uuid for r in a.results], a.top_k)
    score_b = lab.comparison.side_score(grades, [r.uuid for r in b.results], b.top_k)
    said = lab.comparison.verdict(score_a, score_b, names)
    box, icon = OUTCOME_BOX[said.outcome]
    box(f"**{md(said.line)}**", icon=icon)
    st.caption(md(f"Judged by: {', '.join(judged.sources)} ({len(grades)} facts graded; 1 or more is relevant)."))
    cols = st.columns(6)
    for i, (name, score) in enumerate((("A", score_a), ("B", score_b))):
        cols[3 * i].metric(f"{name}: nDCG@{score.top_k}", f"{score.ndcg:.2f}")
        cols[3 * i + 1].metric(f"{name}: recall@{score.top_k}", f"{score.recall:.2f}")
        cols[3 * i + 2].metric(f"{name}: MRR@{score.top_k}", f"{score.mrr:.2f}")


def _stats(lab: Lab, a: RetrievalRun, b: RetrievalRun) -> None:
    shared = lab.comparison.overlap([r.uuid for r in a.results], [r.uuid for r in b.results])
    # two rows, so no label or figure is cut at a 1280 px window: how alike the two lists are, then each side's cost
    stats = st.columns(3)
    stats[0].metric("Overlap of the two top-k", f"{shared.shared} / {len(b.results)}")
    stats[1].metric("Jaccard", f"{shared.jaccard:.2f}", help="Shared facts / facts on either side.")
    stats[2].metric(
        "Rank-biased overlap",
        f"{shared.rbo:.2f}",
        help="RBO (Webber et al. 2010, extrapolated, p = 0.9): agreement weighted towards the top; 1 = same order.",
    )
    costs = st.columns(4)
    for i, (name, side) in enumerate((("A", a), ("B", b))):
        reranked = side.timings.stages_ms.get("rerank")
        costs[i].metric(
            f"{name}: time",
            f"{side.timings.stages_ms['total']:.0f} ms",
            delta=f"rerank {reranked:.0f} ms" if reranked is not None else None,
            delta_color="off",
        )
        cost = side.timings.rerank_cost_usd
        costs[2 + i].metric(f"{name}: rerank cost", "free" if cost is None else f"${cost:.5f}")


def _cards(
    lab: Lab,
    request: CompareRequest,
    a: RetrievalRun,
    b: RetrievalRun,
    judged: QueryJudgments | None,
    low: bool,
    reviewer: str,
) -> None:
    """Each side's heading, then its cards a row at a time: rank i of A beside rank i of B, as tall as each
    other (a column per side would let a long card push every card below it out of line)."""
    rank_on = {name: {r.candidate.uuid: r.rank for r in side.reranked} for name, side in (("A", a), ("B", b))}
    episodes = run(
        lab.retrieval.episodes(
            request.group_id,
            (c.episode_uuid for r in (*a.results, *b.results) for c in r.citations),
        )
    )
    grades = judged.grades if judged is not None and judged.scorable else None
    graded = judged.grades if judged is not None else {}  # any source, grade 0 included
    mine = lab.spotcheck.compare_grades(request.group_id, a.query, reviewer)
    sides = (
        ("A", request.a, a, "B", b, "baseline"),
        ("B", request.b, b, "A", a, "reranked"),
    )
    names = lab.comparison.side_names(request.a, request.b)
    for column, (name, setting, side, _, _, _), title in zip(st.columns(2), sides, names, strict=True):
        with column:
            _side_heading(request, name, title, setting, side)
    for i in range(max(len(a.results), len(b.results))):
        for column, (name, setting, side, other, other_run, kind) in zip(st.columns(2), sides, strict=True):
            if i >= len(side.results):
                continue
            result = side.results[i]
            key = f"compare.{name.lower()}.{result.uuid}"
            with column:
                result_card(
                    result,
                    rank_on[other].get(result.uuid),
                    other_run.top_k,
                    kind,
                    episodes,
                    key=key,
                    where=f"on {other}",
                    grades=grades,
                    low_confidence=low,
                    in_row=True,
                    evidence=evidence_params(request.group_id, result.uuid, query=a.query, side=setting),
                    below=lambda r=result, k=key: grade_row(
                        lab,
                        request.group_id,
                        a.query,
                        r,
                        k,
                        reviewer,
                        mine.get(r.uuid),
                        r.uuid in graded,
                        _forget_judgments,
                    ),
                )


def _side_heading(request: CompareRequest, name: str, title: str, setting: Setting, side: RetrievalRun) -> None:
    """A side's name (what sets it apart), how it orders, its whole setting and its link to Scores."""
    st.subheader(f"{name}: {title}")
    if side.reranker == "none":
        st.caption(md(f"First-stage order: {setting.recipe.describe()}"))
    else:
        st.caption(md(side.reranker_model or side.reranker))
    st.caption(md(f"{name}: {setting.label}"))
    if (note := pool_note(setting, len(side.candidates))) is not None:
        st.caption(md(note))
    st.page_link(
        "app_pages/scores.py",
        label=f"Every candidate of {name} on Scores",
        icon=":material/table:",
        query_params=scores_params(request.group_id, request.query, setting),
    )
