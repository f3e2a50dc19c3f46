"""How the dashboard names a stored run in its pickers."""

from __future__ import annotations

from pipeline.history.records import RunSummary
from pipeline.utc import stamp


def run_label(summary: RunSummary) -> str:
    """'#12 · 2026-11-02 10:04 UTC · local · N=50 · What was FY2025 revenue?'."""
    query = summary.query if len(summary.query) <= 60 else summary.query[:59] + "…"
    return (
        f"#{summary.id} · {stamp(summary.created_at)} UTC · {summary.reranker} · N={summary.num_candidates} · {query}"
    )
