"""Result cards for the side-by-side view: fact, score, where it sits on the other side, citation."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.common.text import md, plain
from pipeline.retrieval.records import Result


def movement(rank: int, other_rank: int | None, top_k: int, side: str) -> tuple[str, str]:
    """(text, colour) telling how a result's rank differs on the other side."""
    if other_rank is None:
        return ("not in candidates", "gray")
    if side == "reranked":
        if other_rank > top_k:
            return (f"new · was #{other_rank}", "violet")
        delta = other_rank - rank
    else:
        if other_rank > top_k:
            return (f"dropped · now #{other_rank}", "orange")
        delta = rank - other_rank
    if delta > 0:
        return (
            f"▲ {delta} · #{other_rank} before" if side == "reranked" else f"▲ {delta} · #{other_rank} after",
            "green",
        )
    if delta < 0:
        return (
            f"▼ {-delta} · #{other_rank} before" if side == "reranked" else f"▼ {-delta} · #{other_rank} after",
            "red",
        )
    return ("= same rank", "gray")


def result_card(
    result: Result, other_rank: int | None, top_k: int, side: str, episodes: dict[str, dict[str, Any]], key: str
) -> None:
    ranked = result.ranked
    with st.container(border=True, key=key):
        head = st.columns([1, 6, 3])
        head[0].markdown(f"**#{ranked.rank}**")
        head[1].markdown(md(ranked.candidate.fact))
        text, colour = movement(ranked.rank, other_rank, top_k, side)
        with head[2]:
            st.badge(text, color=colour)
            if side == "reranked" and ranked.rerank_score is not None:
                st.caption(f"rerank {ranked.rerank_score:.3f} (norm {ranked.rerank_score_norm:.2f})")
            else:
                st.caption(f"fused RRF {ranked.candidate.fused_score:.3f}")
        if ranked.candidate.superseded:
            st.caption(f":orange[superseded] · invalid since {md(ranked.candidate.invalid_at)}")
        for citation in result.citations[:2]:
            st.caption(f":material/description: {md(citation.label)}")
        if result.citations:
            with st.expander("Source episode"):
                for citation in result.citations:
                    episode = episodes.get(citation.episode_uuid, {})
                    st.markdown(f"**{md(citation.source_description)}**")
                    st.text(plain(episode.get("content", citation.snippet)))
