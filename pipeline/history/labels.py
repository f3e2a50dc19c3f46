"""How the dashboard names a stored run in its pickers."""

from __future__ import annotations

from pipeline.history.records import RunSummary


def run_label(summary: RunSummary) -> str:
    """'#12 · 2026-11-02 10:04 · local · N=50 · What was FY2025 revenue?'."""
    query = summary.query if len(summary.query) <= 60 else summary.query[:59] + "…"
    when = summary.created_at[:16].replace("T", " ")
    return f"#{summary.id} · {when} · {summary.reranker} · N={summary.num_candidates} · {query}"
