"""All N candidates of one run as a table: first-stage score and per-method ranks beside the reranker, each
candidate's judged grade (when the query is judged) and where the top-k cut falls."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pipeline.retrieval.records import RetrievalRun


def cut_label(rank: int, k: int) -> str:
    """The table's top-k column: the k-th row says it is the cut."""
    if rank < k:
        return "in top k"
    if rank == k:
        return f"in top k · cut at k = {k}"
    return ""


def candidates_frame(run: RetrievalRun, grades: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One row per candidate in final order; `judged_grade` is empty for a fact nobody judged."""
    k = run.top_k
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
    frame = pd.DataFrame(rows)
    for column in ("bm25_rank", "cosine_rank", "bfs_rank", "judged_grade"):
        frame[column] = frame[column].astype("Int64")  # missing = not found by this method / not judged
    return frame.sort_values("rank_after").reset_index(drop=True)
