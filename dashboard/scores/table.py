"""All N candidates of one run as a table: first-stage score and per-method ranks beside the reranker."""

from __future__ import annotations

import pandas as pd

from pipeline.retrieval.records import RetrievalRun


def candidates_frame(run: RetrievalRun) -> pd.DataFrame:
    k = run.top_k
    rows = []
    for r in run.reranked:
        c = r.candidate
        rows.append(
            {
                "fact": c.fact,
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
    for column in ("bm25_rank", "cosine_rank", "bfs_rank"):
        frame[column] = frame[column].astype("Int64")  # missing = not found by this method
    return frame.sort_values("rank_after").reset_index(drop=True)
