"""Result cards for the side-by-side view: fact, score, judged grade, where it sits on the other side, citation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from dashboard.common.tables import day
from dashboard.common.text import md, plain
from pipeline.api.models import Result

NOT_JUDGED = "not judged"


def movement(rank: int, other_rank: int | None, top_k: int, side: str, where: str | None = None) -> tuple[str, str]:
    """(text, colour) telling how a result's rank differs on the other side. `side` is "reranked" for the
    right-hand side (compared with the left), anything else for the left; `where` names the other side
    ("on A"), else it is the first-stage order ("before") or the reranked one ("after")."""
    if other_rank is None:
        return ("not in candidates", "gray")
    said = where or ("before" if side == "reranked" else "after")
    if side == "reranked":
        if other_rank > top_k:
            return (f"new · was #{other_rank}" if where is None else f"new · #{other_rank} {where}", "violet")
        delta = other_rank - rank
    else:
        if other_rank > top_k:
            return (f"dropped · now #{other_rank}" if where is None else f"dropped · #{other_rank} {where}", "orange")
        delta = rank - other_rank
    if delta > 0:
        return (f"▲ {delta} · #{other_rank} {said}", "green")
    if delta < 0:
        return (f"▼ {-delta} · #{other_rank} {said}", "red")
    return ("= same rank", "gray")


def grade_badge(grade: int | None) -> tuple[str, str]:
    """(text, colour) of a judged grade; None = the query is judged, this fact is not."""
    if grade is None:
        return (NOT_JUDGED, "gray")
    return (f"judged {grade}", "green" if grade >= 2 else "blue" if grade == 1 else "red")


def score_caption(result: Result, low_confidence: bool = False) -> str:
    """The card's score line; the 0-1 score is relative to the pool, so a low-confidence pool says so."""
    ranked = result.ranked
    if ranked.rerank_score is not None:
        line = f"rerank {ranked.rerank_score:.3f} (norm {ranked.rerank_score_norm:.2f})"
    else:
        line = f"fused RRF {ranked.candidate.fused_score:.3f}"
    return f"{line} · :orange[all scores are low here: norm is relative to this pool]" if low_confidence else line


def result_card(
    result: Result,
    other_rank: int | None,
    top_k: int,
    side: str,
    episodes: dict[str, dict[str, Any]],
    key: str,
    *,
    where: str | None = None,
    grades: dict[str, int] | None = None,
    low_confidence: bool = False,
    below: Callable[[], None] | None = None,
    in_row: bool = False,
    evidence: Mapping[str, str] | None = None,
) -> None:
    """One result; with `grades` (the query is judged) its judged grade is shown beside its movement; `below`
    draws more in the card, under its citations (Compare's grade buttons); `in_row`: the card is as tall as the
    row of columns it sits in (Compare's rank i of A beside rank i of B); `evidence`: the Evidence page's parameters
    for this result (a link to its neighbourhood and where it ranks)."""
    ranked = result.ranked
    with st.container(border=True, key=key, height="stretch" if in_row else "content"):
        head = st.columns([1, 9])
        head[0].markdown(f"**#{ranked.rank}**")
        with head[1]:
            st.markdown(md(ranked.candidate.fact))
            text, colour = movement(ranked.rank, other_rank, top_k, side, where)
            # under the fact, in a row that wraps: a narrow column beside it cut the badges off at 1280 px
            with st.container(horizontal=True, gap="small", vertical_alignment="center"):
                st.badge(text, color=colour)
                if grades is not None:
                    grade_text, grade_colour = grade_badge(grades.get(result.uuid))
                    st.badge(grade_text, color=grade_colour)
                st.caption(score_caption(result, low_confidence))
        if ranked.candidate.superseded:
            st.caption(f":orange[superseded] · invalid since {day(ranked.candidate.invalid_at)}")
        for citation in result.citations[:2]:
            st.caption(f":material/description: {md(citation.label)}")
        if result.citations:
            with st.expander("Source episode"):
                for citation in result.citations:
                    episode = episodes.get(citation.episode_uuid, {})
                    st.markdown(f"**{md(citation.source_description)}**")
                    st.text(plain(episode.get("content", citation.snippet)))
        if evidence is not None:
            st.page_link(
                "app_pages/evidence.py",
                label="Evidence: entities, versions, sources",
                icon=":material/hub:",
                query_params=dict(evidence),
            )
        if below is not None:
            below()
