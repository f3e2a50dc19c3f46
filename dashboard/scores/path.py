"""Where one candidate's rank came from: each step from the recipe's first-stage lists to the final top k, with
the scale each number lives on, and (when the recipe's score is RRF) that score as a waterfall of the lists'
contributions. A method the recipe does not run reads "not used", one that ran without finding the fact "not found".

graphiti fuses the lists by reciprocal rank (`rrf`, rank constant 1): a fact at rank r of a list adds 1/r. Its
other fusions score otherwise: MMR (relevance to the query less similarity to the facts above), node distance
(of the fact's source entity from the center entity: 10 for the center itself, 1 for a neighbour, else 0), episode
mentions (RRF scores, ordered by how many episodes mention the fact).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from pipeline.api.models import METHOD_LABELS, METHODS, RankedCandidate, Recipe, RetrievalRun

RRF_SCORED = ("rrf", "episode_mentions")  # fusions whose fused score is the lists' RRF score
FUSION_SCALES = {
    "mmr": "maximal marginal relevance: relevance to the query less similarity to the facts ranked above",
    "node_distance": "graphiti's node distance: 10 for the center entity's facts, 1 for a neighbour's, else 0",
}


def contributions(candidate: RankedCandidate, methods: tuple[str, ...] = METHODS) -> dict[str, float]:
    """Each first-stage list's share of the fused RRF score (1 / rank; 0 when the list did not find it)."""
    ranks = candidate.candidate.method_ranks
    return {m: (1.0 / ranks[m]) if ranks.get(m) else 0.0 for m in methods}


def path_steps(run: RetrievalRun, picked: RankedCandidate, recipe: Recipe) -> pd.DataFrame:
    """The steps as rows: step, value, scale."""
    c = picked.candidate
    pool = f"of the {len(run.candidates)} candidates"
    rows = []
    for method in METHODS:
        rank = c.method_ranks.get(method)
        used = method in recipe.methods
        rows.append(
            {
                "step": f"{METHOD_LABELS[method]} rank",
                "value": ("not used" if not used else f"#{rank}" if rank else "not found"),
                "scale": f"rank in {METHOD_LABELS[method]}'s list of 2 x N = {2 * run.num_candidates} (1 = best)"
                if used
                else f"the {recipe.key} recipe does not run {METHOD_LABELS[method]}",
            }
        )
    fusion = recipe.fusion_label
    if recipe.fusion in RRF_SCORED:
        shares = contributions(picked, recipe.methods)
        parts = " + ".join(f"{METHOD_LABELS[m]} {shares[m]:.3f}" for m in recipe.methods if shares[m])
        rows.append(
            {
                "step": "RRF contribution",
                "value": f"{c.fused_score:.3f}" + (f" = {parts}" if parts else ""),
                "scale": f"reciprocal rank fusion: 1/rank from each list, summed (max {len(recipe.methods)}.0)",
            }
        )
    else:
        rows.append({"step": f"{fusion} score", "value": f"{c.fused_score:.3f}", "scale": FUSION_SCALES[recipe.fusion]})
    order = "by episodes mentioning the fact, RRF within a tie" if recipe.fusion == "episode_mentions" else ""
    order = order or f"by {fusion} score"
    rows.append({"step": "First-stage rank", "value": f"#{c.first_stage_rank}", "scale": f"{order}, {pool}"})
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


def rrf_waterfall(picked: RankedCandidate, methods: tuple[str, ...] = METHODS) -> go.Figure:
    """The fused score built up from the recipe's lists' 1/rank contributions."""
    shares = contributions(picked, methods)
    names = [METHOD_LABELS[m] for m in methods]
    fig = go.Figure(
        go.Waterfall(
            x=[*names, "RRF score"],
            measure=["relative"] * len(names) + ["total"],
            y=[*(shares[m] for m in methods), 0.0],
            text=[f"{shares[m]:.3f}" for m in methods] + [f"{picked.candidate.fused_score:.3f}"],
            textposition="outside",
        )
    )
    fig.update_layout(title="RRF score: each list's 1/rank contribution", yaxis_title="RRF score", showlegend=False)
    return fig


def render_path(run: RetrievalRun, recipe: Recipe) -> RankedCandidate | None:
    """A picked candidate's path (the top result unless another is picked); `recipe` is the run's. The candidate
    picked, if any."""
    by_uuid = {r.candidate.uuid: r for r in run.reranked}
    if not by_uuid:
        return None
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
    show_table(path_steps(run, picked, recipe), "scores.path", where=left)
    if recipe.fusion in RRF_SCORED:
        right.plotly_chart(rrf_waterfall(picked, recipe.methods), key="scores.waterfall")
    else:
        right.caption(md(f"No waterfall: the {recipe.fusion_label} score is not a sum of the lists' 1/rank."))
    return picked
