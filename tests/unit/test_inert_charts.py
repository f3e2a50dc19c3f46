"""Every Plotly figure built from data carries it escaped: no tag, link or LaTeX in any label, tick or hover."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime

import pandas as pd

from dashboard.scores.rank_chart import rank_changes
from dashboard.scores.view import score_scatter
from dashboard.spotcheck.charts import verdict_bars
from dashboard.timeline.charts import timeline_figure
from pipeline.retrieval.records import Candidate, RankedCandidate
from pipeline.spotcheck.verdicts import RateRow
from pipeline.temporal.records import FactRow, FactSelection, Timeline

HOSTILE = "<a href='http://evil.example/x'>click</a> <b>bold</b> $$\\huge X$$ <img src=http://evil.example/i.png>"


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def assert_inert(figure_json: str) -> None:
    """No string of the figure holds a tag Plotly would build or LaTeX; the hostile text is there, escaped."""
    texts = strings(json.loads(figure_json))
    for text in texts:
        if "evil" in text or "bold" in text or "huge" in text:  # from the data (the figures' own tags are not)
            assert "<" not in text and ">" not in text and "$" not in text, text
    assert any("&lt;a href='http://evil.example/x'&gt;click" in t for t in texts)  # shown, as characters


def test_timeline_ticks_hover_and_legend_are_escaped() -> None:
    when = datetime(2025, 1, 1, tzinfo=UTC)
    fact = FactRow(
        "u1", HOSTILE, HOSTILE, "s", HOSTILE, "t", HOSTILE, ("e",), when, None, None, when, None, None,
        HOSTILE, HOSTILE, when,
    )  # fmt: skip
    fig = timeline_figure(Timeline(FactSelection("entity", "s"), (fact,), ()))
    spec = fig.to_json()
    assert_inert(spec)
    assert html.unescape(fig.layout.yaxis.ticktext[0]).startswith("<a href=")  # the text itself is kept


def test_scores_charts_escape_the_facts() -> None:
    frame = pd.DataFrame(
        [
            {"fact": HOSTILE, "fused_score": 0.5, "rerank_score": 0.9, "rank_before": 2, "rank_after": 1,
             "rank_change": 1, "in_top_k_before": True, "in_top_k_after": True},
            {"fact": "plain", "fused_score": 0.6, "rerank_score": 0.1, "rank_before": 1, "rank_after": 2,
             "rank_change": -1, "in_top_k_before": True, "in_top_k_after": False},
        ]
    )  # fmt: skip
    assert_inert(score_scatter(frame).to_json())
    reranked = [
        RankedCandidate(Candidate("u1", HOSTILE, "R", "s", "t", (), None, None, None, 0.5, 2, {}), 1, 0.9, 1.0),
        RankedCandidate(Candidate("u2", "plain", "R", "s", "t", (), None, None, None, 0.6, 1, {}), 2, 0.1, 0.0),
    ]
    rank_fig = rank_changes(reranked, 1)
    assert_inert(rank_fig.to_json())
    assert html.unescape(rank_fig.layout.yaxis2.ticktext[0]).startswith("1. <a href=")  # labelled, as text


def test_spotcheck_bars_escape_document_names() -> None:
    rows = [RateRow(HOSTILE, 2, {"supported": 1, "not_supported": 1})]
    fig = verdict_bars(rows, "By document")
    assert_inert(fig.to_json())
    assert all(len(label) < 200 for trace in fig.data for label in trace.y)  # long names cut on the axis
