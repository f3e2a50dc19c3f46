"""All N candidates of one run as a table: first-stage score and per-method ranks beside the reranker, each
candidate's judged grade (when the query is judged) and where the top-k cut falls.

A method the run's recipe does not use reads "not used" in its rank column (an empty rank is a method that ran
and did not find the fact); the fused score's header names the recipe's fusion."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from dashboard.common.tables import show_table
from pipeline.api.models import DEFAULT_RECIPE, METHODS, Recipe, RetrievalRun

# What a person asks first (where did it land, did it move, what is it, what did the reranker think) comes
# first and stays on screen at 1280 px; the first-stage detail follows, to scroll to.
NAMES = {
    "rank_after": "Rank",
    "rank_change": "Moved",
    "fact": "Fact",
    "rerank_score_norm": "Reranker (0-1)",
    "rerank_score": "Reranker score",
    "judged_grade": "Judged grade",
    "top_k": "Top k",
    "rank_before": "Rank before",
    "fused_score": "Fused score (RRF)",
    "bm25_rank": "BM25 rank",
    "cosine_rank": "Cosine rank",
    "bfs_rank": "BFS rank",
    "relation": "Relation",
    "superseded": "Superseded",
    "valid_at": "Valid from",
    "invalid_at": "Valid until",
    "in_top_k_before": "In top k before",
    "in_top_k_after": "In top k after",
}
ORDER = list(NAMES)
NOT_USED = "not used"
SHADE = "background-color: rgba(47, 111, 222, 0.10)"  # the rows handed on (top k)


def cut_label(rank: int, k: int) -> str:
    """The table's top-k column: the k-th row says it is the cut."""
    if rank < k:
        return "in top k"
    if rank == k:
        return f"in top k · cut at k = {k}"
    return ""


def names(recipe: Recipe | None = None) -> dict[str, str]:
    """The table's headers: the fused score's names the recipe's fusion (RRF, MMR, node distance, ...)."""
    return {**NAMES, "fused_score": f"Fused score ({(recipe or Recipe.preset(DEFAULT_RECIPE)).fusion_label})"}


def candidates_frame(
    run: RetrievalRun, grades: Mapping[str, int] | None = None, recipe: Recipe | None = None
) -> pd.DataFrame:
    """One row per candidate in final order; `judged_grade` is empty for a fact nobody judged, a method rank empty
    when the method did not find the fact and "not used" when `recipe` (the run's) does not run the method."""
    k = run.top_k
    used = recipe.methods if recipe is not None else METHODS
    rows = []
    for r in run.reranked:
        c = r.candidate
        rows.append(
            {
                "top_k": cut_label(r.rank, k),
                "fact": c.fact,
                "judged_grade": (grades or {}).get(c.uuid),
                "relation": c.relation,
                "fused_score": c.fused_score,
                "bm25_rank": c.method_ranks.get("bm25"),
                "cosine_rank": c.method_ranks.get("cosine"),
                "bfs_rank": c.method_ranks.get("bfs"),
                "rerank_score": r.rerank_score,
                "rerank_score_norm": r.rerank_score_norm,
                "rank_before": c.first_stage_rank,
                "rank_after": r.rank,
                "rank_change": r.rank_change,
                "in_top_k_before": c.first_stage_rank <= k,
                "in_top_k_after": r.rank <= k,
                "superseded": c.superseded,
                "valid_at": c.valid_at,
                "invalid_at": c.invalid_at,
                "uuid": c.uuid,
            }
        )
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=[*NAMES, "uuid"])  # a recipe's floors: maybe none
    for column in ("judged_grade", *(f"{m}_rank" for m in used)):
        frame[column] = frame[column].astype("Int64")  # missing = not found by this method / not judged
    for method in METHODS:
        if method not in used:
            frame[f"{method}_rank"] = NOT_USED
    return frame.sort_values("rank_after").reset_index(drop=True)


def show_candidates(frame: pd.DataFrame, key: str, recipe: Recipe | None = None) -> None:
    """The candidates table: the top-k rows shaded, Rank pinned (not Fact: Streamlit fades a pinned column's text),
    the fact column narrow enough for the reranker's columns to be seen beside it at 1280 px without scrolling."""
    top = NAMES["in_top_k_after"]
    show_table(
        frame,
        key,
        export=False,  # the page's "Export CSV" (every candidate, as scores_view builds it)
        names=names(recipe),
        dates=("valid_at", "invalid_at"),
        order=ORDER,
        style=lambda styler: styler.apply(lambda row: [SHADE if row[top] else ""] * len(row), axis=1),
        config={
            "rank_after": st.column_config.NumberColumn(width=55, pinned=True, help="Final rank, after reranking"),
            "rank_change": st.column_config.NumberColumn(
                width=65, format="%+d", help="Places moved by the reranker (+ = up)"
            ),
            "fact": st.column_config.TextColumn(width=320),
            "rerank_score_norm": st.column_config.ProgressColumn(
                min_value=0, max_value=1, format="%.2f", width=110, help="Min-max within this pool"
            ),
            "rerank_score": st.column_config.NumberColumn(format="%.4f", width=105, help="The reranker's raw score"),
            "judged_grade": st.column_config.NumberColumn(width=95, help="0-3; — = not judged"),
            "top_k": st.column_config.TextColumn(help="The rows handed on, and where the cut at k falls"),
            "fused_score": st.column_config.NumberColumn(format="%.4f"),
            "uuid": None,
        },
    )
