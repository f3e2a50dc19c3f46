"""The rank-change chart of one reranked run: a bump chart of the top of the list, readable at any N.

One line per candidate that is in the top rows before or after reranking (the top k, at least 10, at most 25
rows), its rank and fact on both axes; a candidate that came from further down (or fell out) starts (or ends)
under a gap row, in rank order, its real rank in its label. Everything else is summed up in the subtitle (how
many moved, the median and the largest move), so N = 200 draws the same few lines as N = 20. The lines go in
three traces (up, down, unchanged), not one trace per candidate.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from dashboard.common.text import HOVER_CHARS, chart
from pipeline.api.models import RankedCandidate

MIN_ROWS = 10  # a small k still shows what happened just below the cut
MAX_ROWS = 25  # the deepest top-k Compare and Scores show
LABEL_CHARS = 38  # a fact's label on the axis; the hover has the full text
ROW_PX = 24
BEFORE, AFTER = "first stage", "reranked"
MOVES = (("moved up", "#2e9e5b"), ("moved down", "#d9534f"), ("unchanged", "#8a94a6"))


@dataclass(frozen=True)
class RankMoves:
    """What the chart draws (`shown`, best final rank first) and what it only counts (`others`)."""

    rows: int  # the top rows drawn on each side (ranks 1..rows); under a gap row, those from further down
    top_k: int
    shown: tuple[RankedCandidate, ...]
    others: tuple[RankedCandidate, ...]

    @property
    def note(self) -> str:
        """One line about the candidates not drawn: how many moved and by how much."""
        if not self.others:
            return f"Every candidate is drawn ({len(self.shown)})."
        moves = [abs(r.rank_change) for r in self.others if r.rank_change]
        head = f"{len(self.others)} more candidates stay below the top {self.rows} on both sides: "
        if not moves:
            return head + "none of them moved."
        return head + (
            f"{len(moves)} moved, by a median of {statistics.median(moves):g} places (at most {max(moves)})."
        )


def rank_moves(reranked: Sequence[RankedCandidate], top_k: int) -> RankMoves:
    rows = min(max(top_k, MIN_ROWS), MAX_ROWS, len(reranked))
    ordered = sorted(reranked, key=lambda r: r.rank)
    shown = tuple(r for r in ordered if r.rank <= rows or r.candidate.first_stage_rank <= rows)
    others = tuple(r for r in ordered if r.rank > rows and r.candidate.first_stage_rank > rows)
    return RankMoves(rows, min(top_k, len(reranked)), shown, others)


def _label(rank: int, fact: str) -> str:
    return f"{rank}. {chart(fact, LABEL_CHARS)}"


def _slots(ranks: Sequence[int], rows: int) -> dict[int, int]:
    """Where each rank is drawn: the top rows at their rank, the rest under a gap row, in rank order."""
    below = sorted(r for r in ranks if r > rows)
    return {r: r for r in ranks if r <= rows} | {r: rows + 2 + i for i, r in enumerate(below)}


def rank_changes(reranked: Sequence[RankedCandidate], top_k: int) -> go.Figure:
    moves = rank_moves(reranked, top_k)
    before_at = _slots([r.candidate.first_stage_rank for r in moves.shown], moves.rows)
    after_at = _slots([r.rank for r in moves.shown], moves.rows)
    fig = go.Figure()
    for name, colour in MOVES:
        xs: list[str | None] = []
        ys: list[int | None] = []
        hover: list[list[object] | None] = []
        for r in moves.shown:
            change = r.rank_change
            if (name == "moved up") != (change > 0) or (name == "moved down") != (change < 0):
                continue
            before, after = r.candidate.first_stage_rank, r.rank
            xs += [BEFORE, AFTER, None]
            ys += [before_at[before], after_at[after], None]
            point = [chart(r.candidate.fact, HOVER_CHARS), before, after]
            hover += [point, point, None]
        if not xs:
            continue
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                name=name,
                mode="lines+markers",
                line={"color": colour, "width": 2},
                marker={"size": 7},
                customdata=hover,
                hovertemplate="%{customdata[0]}<br>first stage %{customdata[1]} → reranked %{customdata[2]}"
                "<extra></extra>",
            )
        )
    bottom = max([*before_at.values(), *after_at.values(), moves.rows])
    ticks = list(range(1, bottom + 1))
    gap = f"below {moves.rows}:" if bottom > moves.rows else ""
    left = {
        before_at[r.candidate.first_stage_rank]: _label(r.candidate.first_stage_rank, r.candidate.fact)
        for r in moves.shown
    }
    right = {after_at[r.rank]: _label(r.rank, r.candidate.fact) for r in moves.shown}
    axis = {"range": [bottom + 0.6, 0.4], "tickvals": ticks, "showgrid": False, "zeroline": False, "fixedrange": True}
    fig.update_layout(
        title={
            "text": f"Rank changes in the top {moves.rows} (k = {moves.top_k})",
            "subtitle": {"text": moves.note},
        },
        yaxis={**axis, "ticktext": [left.get(t, gap) for t in ticks]},
        yaxis2={**axis, "ticktext": [right.get(t, gap) for t in ticks], "overlaying": "y", "side": "right"},
        xaxis={"fixedrange": True, "range": [-0.15, 1.15]},
        height=160 + ROW_PX * bottom,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.06, "xanchor": "center", "x": 0.5},
        hoverlabel={"align": "left"},
    )
    if moves.top_k < moves.rows:  # the cut at k, inside the rows drawn
        fig.add_hline(
            y=moves.top_k + 0.5,
            line={"dash": "dot", "color": "#2f6fde", "width": 1},
            annotation={"text": f"cut at k = {moves.top_k}", "font": {"color": "#2f6fde", "size": 11}},
            annotation_position="top",
        )
    if bottom > moves.rows:  # the gap row before the candidates from further down
        fig.add_hline(y=moves.rows + 1, line={"dash": "dot", "color": "#b0b7c3", "width": 1})
    # the right axis is drawn only for a trace on it: an invisible point pins it
    fig.add_trace(
        go.Scatter(x=[AFTER], y=[1], yaxis="y2", mode="markers", opacity=0, hoverinfo="skip", showlegend=False)
    )
    return fig
