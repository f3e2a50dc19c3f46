"""The evidence view's picture: a neighbourhood as a Plotly network with a fixed layout (no physics: the same focus
always draws the same picture, and 200 facts draw at once in Chromium).

Entities are circles, facts are diamonds on the line between their two entities (a click on either moves the view
there). A fact's two entities sit left and right with the facts between them in a column, the fact's own versions
among them; every other entity sits on rings around the focus entity it is linked to, the most linked outermost, so a
hub of 200 facts stays a readable fan. Superseded facts are open orange diamonds on dotted lines. Only the focus and
the most linked neighbours carry a name; every point names itself on hover.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import plotly.graph_objects as go

from dashboard.common.text import HOVER_CHARS, chart
from pipeline.api import day
from pipeline.api.models import FactRow, NeighbourEntity, Neighbourhood

Point = tuple[float, float]
LABELLED = 14  # neighbours named on the picture (the most linked); the rest on hover
NAME_CHARS = 28
CURRENT, SUPERSEDED, FOCUS, ENTITY, HUB = "#2f6fde", "#e07b00", "#c2185b", "#b0b7c3", "#37474f"
APART = 2.4  # a fact's two entities at -APART and +APART
WEDGE = 45  # degrees either side of the line to the other focus entity where no neighbour is drawn
FIRST_RING = 1.6  # the radius of the first ring of neighbours around a focus entity
RING_GAP = 0.8  # between two rings of neighbours
SPACING = 0.45  # between two neighbours on a ring
GOLDEN = (math.sqrt(5) - 1) / 2
STACK = 0.22  # between two facts drawn in the column between the two focus entities


def _arc(count: int, center: Point, start: float, end: float, radius: float) -> list[Point]:
    """`count` points on arcs around `center` from angle `start` to `end`, ring after ring outward. Within a ring the
    points are handed out spread (by the golden ratio), so the last of them (the most linked) are not side by side."""
    points: list[Point] = []
    ring = 0
    while len(points) < count:
        r = radius + ring * RING_GAP
        n = min(max(1, int(r * abs(end - start) / SPACING)), count - len(points))
        free = list(range(n))
        for j in range(n):
            slot = free.pop(min(int((j * GOLDEN) % 1 * len(free)), len(free) - 1))
            angle = start + (end - start) * (slot + 0.5) / n
            points.append((center[0] + r * math.cos(angle), center[1] + r * math.sin(angle)))
        ring += 1
    return points


def layout(nb: Neighbourhood) -> tuple[dict[str, Point], dict[str, Point]]:
    """Entity uuid -> position, fact uuid -> position."""
    ends = [e.uuid for e in nb.entities]
    if len(ends) == 2:
        entities: dict[str, Point] = {ends[0]: (-APART, 0.0), ends[1]: (APART, 0.0)}
    else:
        entities = {ends[0]: (0.0, 0.0)}
    sides: dict[str, list[str]] = defaultdict(list)  # which focus entity a neighbour is drawn around
    linked_to: dict[str, set[str]] = defaultdict(set)
    for fact in nb.facts:
        for a, b in ((fact.source_uuid, fact.target_uuid), (fact.target_uuid, fact.source_uuid)):
            if a in entities and b not in entities:
                linked_to[b].add(a)
    for neighbour in nb.neighbours:
        around = linked_to.get(neighbour.uuid) or {ends[0]}
        sides[ends[0] if len(around) == 2 or len(ends) == 1 else next(iter(around))].append(neighbour.uuid)
    if len(ends) == 2:
        # each fans out all round but for the wedge facing the other, where the column of facts between them is
        arcs = {
            ends[0]: (math.radians(WEDGE), math.radians(360 - WEDGE)),
            ends[1]: (math.radians(180 - WEDGE), math.radians(WEDGE - 180)),
        }
        both = [u for u in sides[ends[0]] if len(linked_to.get(u, ())) == 2]
        sides[ends[0]] = [u for u in sides[ends[0]] if u not in both]
        for i, uuid in enumerate(both):  # linked to both: above and below the column between them
            entities[uuid] = (0.0, (1 if i % 2 == 0 else -1) * (APART + 1 + RING_GAP * (i // 2)))
    else:
        arcs = {ends[0]: (math.pi / 2, math.pi / 2 - 2 * math.pi)}
    for end, (start, stop) in arcs.items():
        # the most linked outermost: their facts spread along the longest rays, their names where rings are widest
        outward = sides[end][::-1]
        for uuid, point in zip(outward, _arc(len(outward), entities[end], start, stop, FIRST_RING), strict=True):
            entities[uuid] = point
    return entities, _fact_points(nb.facts, entities, set(ends))


def _fact_points(facts: Sequence[FactRow], entities: dict[str, Point], ends: set[str]) -> dict[str, Point]:
    """Facts between the two focus entities in a column across the line joining them; the facts of a focus entity
    with a neighbour along the line to it, from 45% to 85% of the way (a hub's 18 facts with one
    neighbour stay on that neighbour's ray instead of covering the next)."""
    pairs: dict[frozenset[str], list[FactRow]] = defaultdict(list)
    for fact in facts:
        pairs[frozenset((fact.source_uuid, fact.target_uuid))].append(fact)
    points: dict[str, Point] = {}
    for pair, members in pairs.items():
        inner = sorted(pair, key=lambda u: u not in ends)  # the focus entity first
        a, b = entities[inner[0]], entities[inner[-1]]
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy) or 1.0
        across = (-dy / length, dx / length)
        n = len(members)
        for i, fact in enumerate(members):
            if pair <= ends:
                t, offset = 0.5, (i - (n - 1) / 2) * STACK
            else:
                t = 0.6 if n == 1 else 0.45 + 0.4 * i / (n - 1)
                offset = 0.0 if n == 1 else (0.06 if i % 2 else -0.06)
            points[fact.uuid] = (a[0] + dx * t + across[0] * offset, a[1] + dy * t + across[1] * offset)
    return points


def _day(fact: FactRow) -> str:
    start = fact.valid_at or fact.episode_at
    until = fact.invalid_at or fact.expired_at
    since = f"valid from {day(start)}" if start else "valid from an unknown date"
    return f"{since} · superseded since {day(until)}" if until else f"{since} · current"


def _fact_hover(fact: FactRow) -> str:
    return f"<b>{chart(fact.relation, 60)}</b><br>{chart(fact.fact, HOVER_CHARS)}<br>{_day(fact)}"


def _entity_hover(entity: NeighbourEntity) -> str:
    return f"<b>{chart(entity.name, 80)}</b><br>{entity.facts} facts, {entity.current} current"


def evidence_figure(nb: Neighbourhood) -> go.Figure:
    entities, facts = layout(nb)
    refs = {e.uuid: e for e in (*nb.entities, *nb.neighbours)}
    focus_ends = {e.uuid for e in nb.entities}
    named = focus_ends | {e.uuid for e in nb.neighbours[:LABELLED]}
    fig = go.Figure()
    for superseded, dash, colour in ((False, "solid", "#c5cbd3"), (True, "dot", "#f0c08a")):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for fact in nb.facts:
            if fact.superseded == superseded:
                for a, b in ((fact.source_uuid, fact.uuid), (fact.uuid, fact.target_uuid)):
                    p, q = (entities[a] if a in entities else facts[a]), (entities[b] if b in entities else facts[b])
                    xs += [p[0], q[0], None]
                    ys += [p[1], q[1], None]
        fig.add_scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"color": colour, "width": 1, "dash": dash},
            hoverinfo="skip",
            showlegend=False,
        )
    chain_x: list[float | None] = []
    chain_y: list[float | None] = []
    for link in nb.links:
        (x0, y0), (x1, y1) = facts[link.old], facts[link.new]
        chain_x += [x0, x1, None]
        chain_y += [y0, y1, None]
    fig.add_scatter(
        x=chain_x,
        y=chain_y,
        mode="lines",
        name="superseded by",
        line={"color": FOCUS, "width": 2},
        hoverinfo="skip",
    )
    groups = (
        ("current fact", [f for f in nb.facts if not f.superseded and f.uuid != nb.focus], "diamond", CURRENT, 11),
        (
            "superseded fact",
            [f for f in nb.facts if f.superseded and f.uuid != nb.focus],
            "diamond-open",
            SUPERSEDED,
            11,
        ),
        ("this fact", [f for f in nb.facts if f.uuid == nb.focus], "star", FOCUS, 22),
    )
    for name, members, symbol, colour, size in groups:
        fig.add_scatter(
            x=[facts[f.uuid][0] for f in members],
            y=[facts[f.uuid][1] for f in members],
            mode="markers",
            name=name,
            marker={"symbol": symbol, "color": colour, "size": size, "line": {"width": 1.5, "color": colour}},
            customdata=[["fact", f.uuid] for f in members],
            hovertext=[_fact_hover(f) for f in members],
            hoverinfo="text",
        )
    for name, members, colour, size in (
        ("entity", [u for u in entities if u not in focus_ends], ENTITY, 16),
        ("focus entity", [u for u in entities if u in focus_ends], HUB, 30),
    ):
        fig.add_scatter(
            x=[entities[u][0] for u in members],
            y=[entities[u][1] for u in members],
            mode="markers+text",
            name=name,
            text=[chart(refs[u].name, NAME_CHARS) if u in named else "" for u in members],
            textposition="bottom center" if name == "focus entity" else "top center",
            textfont={"size": 13 if name == "focus entity" else 11},
            marker={"color": colour, "size": size, "line": {"width": 1, "color": "#ffffff"}},
            customdata=[["entity", u] for u in members],
            hovertext=[_entity_hover(refs[u]) for u in members],
            hoverinfo="text",
        )
    axis = {"visible": False, "fixedrange": True}
    fig.update_layout(
        height=680,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis=axis,
        yaxis={**axis, "scaleanchor": "x"},
        legend={"orientation": "h", "y": -0.02, "x": 0},
        hoverlabel={"align": "left"},
        clickmode="event+select",
        dragmode=False,
    )
    return fig
