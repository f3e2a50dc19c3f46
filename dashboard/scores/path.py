"""Where one candidate's rank came from: each step from the three first-stage lists to the final top k, with
the scale each number lives on, and its RRF score as a waterfall of the three lists' contributions.

graphiti fuses the lists by reciprocal rank (`rrf`, rank constant 1): a fact at rank r of a list adds 1/r.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from pipeline.retrieval.records import METHODS, RankedCandidate, RetrievalRun

METHOD_NAMES = {"bm25": "BM25", "cosine": "cosine", "bfs": "graph BFS"}


def contributions(candidate: RankedCandidate) -> dict[str, float]:
    """Each first-stage list's share of the fused RRF score (1 / rank; 0 when the list did not find it)."""
    ranks = candidate.candidate.method_ranks
    return {m: (1.0 / ranks[m]) if ranks.get(m) else 0.0 for m in METHODS}


def path_steps(run: RetrievalRun, picked: RankedCandidate) -> pd.DataFrame:
    """The steps as rows: step, value, scale."""
    c = picked.candidate
    pool = f"of the {len(run.candidates)} candidates"
    rows = []
    for method in METHODS:
        rank = c.method_ranks.get(method)
        rows.append(
            {
                "step": f"{METHOD_NAMES[method]} rank",
                "value": f"#{rank}" if rank else "not found",
                "scale": f"rank in {METHOD_NAMES[method]}'s list of 2 x N = {2 * run.num_candidates} (1 = best)",
            }
        )
    shares = contributions(picked)
    parts = " + ".join(f"{METHOD_NAMES[m]} {shares[m]:.3f}" for m in METHODS if shares[m])
    rows.append(
        {
            "step": "RRF contribution",
            "value": f"{c.fused_score:.3f}" + (f" = {parts}" if parts else ""),
            "scale": "reciprocal rank fusion: 1/rank from each list, summed (max 3.0)",
        }
    )
    rows.append({"step": "First-stage rank", "value": f"#{c.first_stage_rank}", "scale": f"by RRF score, {pool}"})
    if picked.rerank_score is not None:
        rows.append(
            {
                "step": "Reranker score (raw)",
                "value": f"{picked.rerank_score:.4f}",
                "scale": f"{run.reranker}'s own scale ({run.reranker_model or run.reranker})",
            }
        )
        rows.append(
            {
                "step": "Reranker score (normalised)",
                "value": f"{picked.rerank_score_norm:.2f}",
                "scale": f"min-max within this pool: 0 = lowest, 1 = highest {pool}",
            }
        )
    else:
        rows.append({"step": "Reranker", "value": "none", "scale": "first-stage order kept"})
    rows.append({"step": "Final rank", "value": f"#{picked.rank}", "scale": f"after reranking, {pool}"})
    made = picked.rank <= run.top_k
    rows.append(
        {
            "step": "Top k",
            "value": "made the top k" if made else "cut",
            "scale": f"k = {run.top_k}: {'handed on' if made else 'not handed on'} to the agent",
        }
    )
    return pd.DataFrame(rows)


def rrf_waterfall(picked: RankedCandidate) -> go.Figure:
    """The fused score built up from the three lists' 1/rank contributions."""
    shares = contributions(picked)
    names = [METHOD_NAMES[m] for m in METHODS]
    fig = go.Figure(
        go.Waterfall(
            x=[*names, "RRF score"],
            measure=["relative"] * len(names) + ["total"],
            y=[*(shares[m] for m in METHODS), 0.0],
            text=[f"{shares[m]:.3f}" for m in METHODS] + [f"{picked.candidate.fused_score:.3f}"],
            textposition="outside",
        )
    )
    fig.update_layout(title="RRF score: each list's 1/rank contribution", yaxis_title="RRF score", showlegend=False)
    return fig


def render_path(run: RetrievalRun) -> None:
    """A picked candidate's path (the top result unless another is picked)."""
    by_uuid = {r.candidate.uuid: r for r in run.reranked}
    if not by_uuid:
        return
    st.subheader("Where a rank came from")
    picked_uuid = st.selectbox(
        "Candidate",
        list(by_uuid),
        key="scores.pick",
        format_func=lambda u: plain(f"#{by_uuid[u].rank} · {by_uuid[u].candidate.fact}", OPTION_CHARS),
    )
    picked = by_uuid.get(picked_uuid) or run.reranked[0]
    if len(f"#{picked.rank} · {picked.candidate.fact}") > OPTION_CHARS:  # the box shows its start: all of it here
        st.caption(md(picked.candidate.fact))
    left, right = st.columns([3, 2])
    show_table(path_steps(run, picked), "scores.path", where=left)
    right.plotly_chart(rrf_waterfall(picked), key="scores.waterfall")
