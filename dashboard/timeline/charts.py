"""Pure functions from temporal records to tables and the Plotly timeline (no Streamlit here)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, date, datetime, timedelta

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from dashboard.common.text import HOVER_CHARS, chart
from pipeline.api import is_money_or_share, one_line, supersession_chains
from pipeline.api.models import FIGURE, AsOfAnswer, FactRow, Supersession, Timeline

CHANNEL_LABELS = {"document": "document", "qa_response": "Q&A response", "analyst_chat": "analyst chat"}
CHANNEL_COLOURS = {"document": "#2f6fde", "Q&A response": "#2e9e5b", "analyst chat": "#e8a33d"}
LABEL_CHARS = 70
MIN_TAIL = 16
PAGE_BARS = 250  # bars per chart page (the demo hub has 241): a 10k-fact deal's hub has 2,000, no chart reads that


def _day(value: datetime | None) -> str:
    return value.date().isoformat() if value else "—"


def filter_timeline(
    tl: Timeline,
    start: date | None = None,
    end: date | None = None,
    channels: Collection[str] | None = None,
    only_chains: bool = False,
    now: datetime | None = None,
) -> Timeline:
    """Keep facts whose bar overlaps [start, end], from the given channels, and (optionally) only chain members."""
    now = now or datetime.now(UTC)
    linked = {u for link in tl.links for u in (link.old, link.new)}
    lo = datetime(start.year, start.month, start.day, tzinfo=UTC) if start else None
    hi = datetime(end.year, end.month, end.day, tzinfo=UTC) + timedelta(days=1) if end else None

    def keep(f: FactRow) -> bool:
        begin, finish = f.starts_at or now, f.invalid_at or now
        return (
            (lo is None or finish >= lo)
            and (hi is None or begin < hi)
            and (channels is None or f.channel in channels)
            and (not only_chains or f.uuid in linked)
        )

    facts = tuple(f for f in tl.facts if keep(f))
    kept = {f.uuid for f in facts}
    return Timeline(tl.selection, facts, tuple(x for x in tl.links if x.old in kept and x.new in kept))


def chart_pages(tl: Timeline, bars: int = PAGE_BARS) -> list[Timeline]:
    """The timeline cut into pages of at most `bars` facts, in its own order, never splitting a supersession
    chain (a longer chain gets a page of its own). One page when it fits."""
    if len(tl.facts) <= bars:
        return [tl]
    chain_of = supersession_chains(tl.facts, tl.links)
    pages: list[list[FactRow]] = [[]]
    run: list[FactRow] = []
    for fact in [*tl.facts, None]:
        if run and (fact is None or chain_of[fact.uuid] != chain_of[run[0].uuid]):
            if pages[-1] and len(pages[-1]) + len(run) > bars:
                pages.append([])
            pages[-1].extend(run)
            run = []
        if fact is not None:
            run.append(fact)
    out = []
    for facts in pages:
        kept = {f.uuid for f in facts}
        out.append(Timeline(tl.selection, tuple(facts), tuple(x for x in tl.links if x.old in kept and x.new in kept)))
    return out


def default_as_of(tl: Timeline, today: date) -> date:
    """The as-of date a selection opens on: the day before its middle change, so that the diff shows that
    change and every later one (on a change's own day the old fact is no longer true, so "superseded since"
    would read 0); today when nothing in it ever changed."""
    by_uuid = {f.uuid: f for f in tl.facts}
    changed = sorted(
        when.date()
        for link in tl.links
        if (when := by_uuid[link.old].invalid_at or by_uuid[link.new].starts_at) is not None
    )
    if not changed:
        return today
    return min(changed[len(changed) // 2] - timedelta(days=1), today)


def timeline_frame(facts: Sequence[FactRow], now: datetime | None = None) -> pd.DataFrame:
    """One row per fact: the bar (start, end), its status and everything the hover shows, the text escaped
    for Plotly (facts, names and citations come from the graph: no tag or link may be built from them)."""
    now = now or datetime.now(UTC)
    rows = []
    for f in facts:
        start = f.starts_at or now
        end = f.invalid_at or now
        if end <= start:  # a fact corrected on the day it began: show a one-day sliver
            end = start + timedelta(days=1)
        rows.append(
            {
                "uuid": f.uuid,
                "label": chart(clip_middle(one_line(f.fact), LABEL_CHARS)),
                "start": start,
                "end": end,
                "channel": chart(CHANNEL_LABELS.get(f.channel, f.channel), LABEL_CHARS),
                "status": "superseded" if f.superseded else "current",
                "fact": chart(f.fact, HOVER_CHARS),
                "relation": chart(f.relation, LABEL_CHARS),
                "between": chart(f"{f.source_name} → {f.target_name}", HOVER_CHARS),
                "valid_at": _day(f.valid_at) if f.valid_at else f"unknown (first source {_day(f.episode_at)})",
                "invalid_at": _day(f.invalid_at) if f.invalid_at else "still valid",
                "expired_at": f.expired_at.isoformat(timespec="minutes") if f.expired_at else "—",
                "citation": chart(f.citation, HOVER_CHARS),
            }
        )
    return pd.DataFrame(rows)


def timeline_figure(
    tl: Timeline,
    now: datetime | None = None,
    window: tuple[date | None, date | None] | None = None,
    as_of: date | None = None,
    title: str = "",
) -> go.Figure:
    """Bars from valid_at to invalid_at (open-ended ones run to today), coloured by source channel,
    hatched when superseded, with an arrow from each superseded fact to the fact that replaced it, and the
    as-of date as a labelled vertical line."""
    frame = timeline_frame(tl.facts, now)
    if frame.empty:
        return go.Figure()
    fig = px.timeline(
        frame,
        x_start="start",
        x_end="end",
        y="uuid",
        color="channel",
        pattern_shape="status",
        color_discrete_map={chart(label, LABEL_CHARS): colour for label, colour in CHANNEL_COLOURS.items()},
        pattern_shape_map={"current": "", "superseded": "/"},
        category_orders={
            "channel": [chart(c, LABEL_CHARS) for c in CHANNEL_COLOURS],
            "status": ["current", "superseded"],
        },
        custom_data=["fact", "relation", "between", "valid_at", "invalid_at", "expired_at", "citation"],
        labels={"channel": "source", "status": "status"},
    )
    fig.update_traces(
        hovertemplate=(
            "<b>%{customdata[0]}</b><br>%{customdata[1]} · %{customdata[2]}<br>"
            "valid %{customdata[3]} → %{customdata[4]}<br>expired_at %{customdata[5]}<br>"
            "<i>%{customdata[6]}</i><extra></extra>"
        )
    )
    starts = dict(zip(frame["uuid"], frame["start"], strict=True))
    ends = dict(zip(frame["uuid"], frame["end"], strict=True))
    # one layout update for every arrow: add_annotation copies the whole list on each call (quadratic)
    fig.update_layout(
        annotations=[
            {
                "x": starts[link.new],
                "y": link.new,
                "ax": ends[link.old],
                "ay": link.old,
                "xref": "x",
                "yref": "y",
                "axref": "x",
                "ayref": "y",
                "showarrow": True,
                "arrowhead": 3,
                "arrowsize": 1.2,
                "arrowwidth": 1.5,
                "arrowcolor": "#8a5cd1" if link.inferred else "#d9534f",
                "text": "",
            }
            for link in tl.links
        ],
        shapes=[_as_of_line(as_of)] if as_of else [],
    )
    fig.update_yaxes(
        categoryorder="array",
        categoryarray=list(frame["uuid"]),
        autorange="reversed",
        tickmode="array",
        tickvals=list(frame["uuid"]),
        ticktext=list(frame["label"]),
        title=None,
    )
    # the dates above the bars as well as below them: a chain of 60 bars is taller than a screen. Both axes get
    # the same explicit ticks: left to Plotly, the top axis (its range matched, its ticks its own) put its month
    # ticks a month off the bottom one's
    lo, hi = (window[0], window[1] + timedelta(days=1)) if window and window[0] and window[1] else (None, None)
    lo = lo or min(frame["start"]).date()
    hi = hi or max(frame["end"]).date()
    ticks = date_ticks(lo, hi)
    fig.update_layout(xaxis2={"overlaying": "x", "matches": "x", "side": "top", "showgrid": False, "type": "date"})
    fig.update_xaxes(title=None, showticklabels=True, ticks="outside", **ticks)
    fig.add_trace(
        go.Scatter(
            x=list(frame["start"]), y=list(frame["uuid"]), xaxis="x2", mode="markers", opacity=0, hoverinfo="skip",
            showlegend=False,
        )
    )  # fmt: skip
    if window and window[0] and window[1]:  # bars that began earlier are clipped at the left edge
        fig.update_xaxes(range=[window[0].isoformat(), (window[1] + timedelta(days=1)).isoformat()])
    height = max(360, 26 * len(frame) + 200)
    fig.update_layout(
        title={"text": chart(title, LABEL_CHARS), "x": 0, "xanchor": "left", "y": 1, "yanchor": "top", "pad": {"t": 8}},
        height=height,
        # under the title, above the top dates: inside the figure (anchored at its bottom, it was drawn off the top)
        legend={"orientation": "h", "y": 1 - 40 / height, "yanchor": "top", "x": 0, "yref": "container"},
        margin={"l": 10, "r": 10, "t": 110, "b": 10},
    )
    return fig


TICK_STEPS = (1, 2, 3, 6, 12, 24, 60)  # months between date ticks
MAX_TICKS = 10


def date_ticks(lo: date, hi: date) -> dict:
    """The date axes' ticks for the span lo..hi, as Plotly settings both axes share (same first tick, same step,
    same format): at most about 10 ticks, on the first of a month (every 1, 2, 3, 6, 12, 24 or 60 months, counted
    from January 2000, so both axes and every rerun agree), or every 7 or 14 days on a span under two months."""
    days = max(1, (hi - lo).days)
    if days <= 60:
        step = 7 if days <= 7 * MAX_TICKS else 14
        return {"tickmode": "linear", "tick0": "2000-01-03", "dtick": step * 86_400_000, "tickformat": "%b %d, %Y"}
    months = next((m for m in TICK_STEPS if days / (30.44 * m) <= MAX_TICKS), TICK_STEPS[-1])
    return {"tickmode": "linear", "tick0": "2000-01-01", "dtick": f"M{months}", "tickformat": "%b %Y"}


def chart_title(tl: Timeline) -> str:
    """What the chart shows, in words: the entity by its name, the relation, or the topic query."""
    value = tl.selection.value
    if tl.selection.kind == "relation":
        return f"Facts of relation {value} over time"
    if tl.selection.kind == "query":
        return f"Facts about “{value}” over time"
    names = [f.source_name for f in tl.facts if f.source_uuid == value]
    names += [f.target_name for f in tl.facts if f.target_uuid == value]
    return f"Facts of {names[0] if names else 'the entity'} over time"


def clip_middle(text: str, limit: int) -> str:
    """`text` in `limit` characters, cut in the middle: a chain's facts share their start ("Halcyon's cash balance
    was") and differ at the end (the value, the date), so both ends stay; a figure (an amount or a percentage) the
    cut would hide is kept in the head, with what precedes it, when a tail of some words still fits."""
    if len(text) <= limit:
        return text
    head = (limit - 1) * 2 // 5
    figure = next((m for m in FIGURE.finditer(text) if m.end() > head and is_money_or_share(m)), None)
    if figure is not None and figure.start() < len(text) - (limit - 1 - head) and figure.end() <= limit - 1 - MIN_TAIL:
        head = figure.end()
    return text[:head].rstrip() + "…" + text[len(text) - (limit - 1 - head) :].lstrip()


AS_OF_COLOUR = "#444444"


def _as_of_line(day: date) -> dict:
    """A dashed vertical line at the as-of date, labelled at its top, right of it (a shape's own label: the
    chart's annotations are its supersession arrows; fig.add_vline cannot place a label on a date axis)."""
    x = day.isoformat()
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "xref": "x",
        "y0": 0,
        "y1": 1,
        "yref": "paper",
        "line": {"color": AS_OF_COLOUR, "width": 1.5, "dash": "dash"},
        "label": {
            "text": f"as of {x}",
            "textangle": 0,
            "textposition": "end",  # at the top, inside the plot: above it the legend would cover it
            "xanchor": "left",
            "yanchor": "top",
            "padding": 4,
            "font": {"color": AS_OF_COLOUR, "size": 12},
        },
    }


def as_of_frames(answer: AsOfAnswer) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(what was true then, how each fact changed since) as tables."""
    then = pd.DataFrame(
        [
            {"fact": f.fact, "relation": f.relation, "valid_at": _day(f.valid_at), "source": f.citation}
            for f in answer.then
        ],
        columns=["fact", "relation", "valid_at", "source"],
    )
    diff = pd.DataFrame(
        [
            {
                "change": r.status,
                "fact": r.fact.fact,
                "relation": r.fact.relation,
                "valid_at": _day(r.fact.valid_at),
                "invalid_at": _day(r.fact.invalid_at),
                "replaced_by": r.replaced_by.fact if r.replaced_by else "",
            }
            for r in answer.diff
        ],
        columns=["change", "fact", "relation", "valid_at", "invalid_at", "replaced_by"],
    )
    return then, diff


def supersession_frame(rows: Sequence[Supersession]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "when": _day(r.at),
                "relation": r.old.relation,
                "old_fact": r.old.fact,
                "new_fact": r.new.fact,
                "source_channel": CHANNEL_LABELS.get(r.new.channel, r.new.channel),
                "source": r.new.citation,
                "link": "inferred" if r.inferred else "recorded",
                "old_uuid": r.old.uuid,
                "new_uuid": r.new.uuid,
            }
            for r in rows
        ],
        columns=[
            "when",
            "relation",
            "old_fact",
            "new_fact",
            "source_channel",
            "source",
            "link",
            "old_uuid",
            "new_uuid",
        ],
    )
