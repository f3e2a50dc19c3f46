"""The evidence view: a fact's neighbourhood as a picture (its two entities, their other facts current and
superseded, its versions, the episodes citing it) and, for a query, where the fact ranks and which methods found it.

The focus is in the URL (`evidence.fact` or `evidence.entity`, a uuid), with the query (`evidence.q`) and the
setting it ran under (`evidence.setting`, `RECIPE:RERANKER:N:K`); Compare, Scores, the Timeline and the spot-check
link here with them. A click on a node of the picture moves the focus there (a fact, or an entity's own
neighbourhood), as does the entity picker; the query stays for the facts it leads to.
"""

from __future__ import annotations

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.common.links import evidence_params, query_links
from dashboard.common.page_state.url import drop_param, mirror, url_value
from dashboard.common.sidebar import DEAL_KEY
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, label, md, plain
from dashboard.evidence import data
from pipeline.api import Lab, day
from pipeline.api.models import LOSS_LABELS, FactRow, Neighbourhood, Setting
from pipeline.errors import InvalidInput

NS = "evidence"
FACT, ENTITY, QUERY, SETTING = f"{NS}.fact", f"{NS}.entity", f"{NS}.q", f"{NS}.setting"
DEFAULT_SETTING = "graphiti-default:none:50:10"  # a query linked without its setting (the spot-check's)
UNSEARCHED = ("gone", "filtered")  # stages before any method searched: no rank to show
METHOD_NAMES = {"bm25": "BM25", "cosine": "Cosine", "bfs": "Graph walk (BFS)"}


def move(kind: str, uuid: str) -> None:
    """The focus to the fact or entity `uuid`: in the URL, the other kind's key out of it."""
    mirror(FACT if kind == "fact" else ENTITY, uuid)
    drop_param(ENTITY if kind == "fact" else FACT)


def focus(lab: Lab, group_id: str, state: DealState) -> str | None:
    """The uuid the URL names (a fact, else an entity of this deal), else the deal's default focus (`move`d into
    the URL, so a reload shows the same); a uuid the deal does not hold is said in one line and left out."""
    facts, entities = data.known(lab, group_id, state)
    for key, valid, what in ((FACT, facts, "fact"), (ENTITY, entities, "entity")):
        raw = url_value(key)
        if raw is None:
            continue
        if raw in valid:
            return raw
        drop_param(key)
        st.warning(f"The link's {what} “{md(raw, 40)}” is not a {what} of this deal: showing another.")
    picked = data.default_focus(lab, group_id, state)
    if picked is not None:
        move("fact" if picked in facts else "entity", picked)
    return picked


def _query_setting() -> tuple[str, Setting] | None:
    """The linked query and its setting; a setting this page cannot run is said in one line and dropped."""
    query = (url_value(QUERY) or "").strip()
    if not query:
        return None
    text = url_value(SETTING) or DEFAULT_SETTING
    try:
        return query, Setting.parse(text, "setting")
    except InvalidInput:
        drop_param(SETTING)
        st.warning(f"The link's setting “{md(text, 60)}” cannot be run here: showing {DEFAULT_SETTING}.")
        return query, Setting.parse(DEFAULT_SETTING, "setting")


def _entity_picker(nb: Neighbourhood) -> None:
    """Go to an entity of the picture (the focus first, then the most linked) from the keyboard: each node's click."""
    entities = {e.uuid: e for e in (*nb.entities, *nb.neighbours)}

    def go() -> None:
        if (picked := st.session_state.get(f"{NS}.go")) is not None:
            move("entity", picked)
        st.session_state[f"{NS}.go"] = None

    st.selectbox(
        "Go to an entity of this picture",
        list(entities),
        index=None,
        key=f"{NS}.go",
        placeholder="Pick an entity to see its neighbourhood…",
        format_func=lambda u: plain(f"{entities[u].name} ({entities[u].facts} facts)", OPTION_CHARS),
        on_change=go,
    )


def render(lab: Lab, group_id: str, state: DealState, uuid: str) -> None:
    nb = data.neighbourhood(lab, group_id, state, uuid)
    _headline(nb)
    linked = _query_setting()
    if linked is not None and nb.fact is not None:
        _sighting(lab, group_id, state, nb.fact, *linked)
    drawn = len(nb.facts)
    more = f" ({nb.left_out} more, older or superseded, are left out: the Timeline has them all)" if nb.left_out else ""
    st.caption(
        f"{drawn} facts around {' and '.join(md(e.name) for e in nb.entities)}{more}. Diamonds are facts (open orange: "
        "superseded), circles entities; the pink line joins a fact to the version that replaced it. Click a node "
        "to move there."
    )
    event = st.plotly_chart(
        data.figure(group_id, state, uuid, nb),
        key=f"{NS}.graph.{uuid}",  # a new focus is a new chart: the old click is not read again
        on_select="rerun",
        selection_mode="points",
        config={"displayModeBar": False},
    )
    points = event.selection.points if event is not None else []
    if points and (clicked := points[0].get("customdata")) and clicked[1] != uuid:
        move(clicked[0], clicked[1])
        st.rerun()
    _entity_picker(nb)
    _entities(group_id, nb)
    if nb.fact is not None:
        _versions(nb)
        _citing(nb)
    _facts(nb)


def _headline(nb: Neighbourhood) -> None:
    if nb.fact is None:
        entity = nb.entities[0]
        st.subheader(label(entity.name))
        st.caption(f"Entity · {entity.facts} facts, {entity.current} current")
        return
    fact = nb.fact
    with st.container(border=True, key=f"{NS}.focus"):
        st.markdown(f"**{md(fact.fact)}**")
        badges = st.container(horizontal=True)
        if fact.superseded:
            badges.badge(f"superseded since {day(fact.invalid_at or fact.expired_at)}", color="orange")
        else:
            badges.badge("current", color="green")
        badges.badge(md(fact.relation, 60), color="gray")
        st.caption(
            f"{md(fact.source_name)} → {md(fact.target_name)} · valid from {day(fact.valid_at)} · {md(fact.citation)}"
        )


def _sighting(lab: Lab, group_id: str, state: DealState, fact: FactRow, query: str, setting: Setting) -> None:
    """For the linked query: which methods found the fact at which rank, and where it ended (or was lost)."""
    seen = data.sighting(lab, group_id, state, query, setting.text, fact.uuid)
    st.markdown(f"**For the query “{md(query, 200)}”** under {md(setting.label)}: {LOSS_LABELS[seen.stage]}")
    st.caption(md(seen.detail))
    left, mid, right = st.columns([4, 1, 1])
    if seen.stage not in UNSEARCHED:
        rows = [
            {"step": METHOD_NAMES[m], "rank": f"#{seen.method_ranks[m]}" if m in seen.method_ranks else "not found"}
            for m in setting.recipe.methods
        ]
        rows.append({"step": "Fused (first-stage) rank", "rank": f"#{seen.fused_rank}" if seen.fused_rank else "—"})
        rows.append({"step": "Final rank", "rank": f"#{seen.rank}" if seen.rank else "—"})
        show_table(rows, f"{NS}.ranks", where=left, export=False)
    query_links(group_id, query, setting, mid, right)


def _entities(group_id: str, nb: Neighbourhood) -> None:
    """Each focus entity: its own neighbourhood here, and its facts over time on the Timeline."""
    for column, entity in zip(st.columns(len(nb.entities)), nb.entities, strict=True):
        with column:
            st.markdown(f"**{md(entity.name, 80)}** · {entity.facts} facts, {entity.current} current")
            if nb.kind == "fact":
                column.page_link(
                    "app_pages/evidence.py",
                    label="Its neighbourhood",
                    icon=":material/hub:",
                    query_params=evidence_params(group_id, entity.uuid, "entity"),
                )
            column.page_link(
                "app_pages/timeline.py",
                label="Its facts on the Timeline",
                icon=":material/timeline:",
                query_params={
                    DEAL_KEY: group_id,
                    "timeline.entity_search": entity.name,
                    "timeline.entity": entity.uuid,
                },
            )


def _versions(nb: Neighbourhood) -> None:
    st.subheader("Versions, oldest first")
    if len(nb.chain) < 2:
        st.caption("No other version: nothing superseded this fact, and it superseded nothing.")
    rows = [
        {
            "fact": f.fact,
            "valid_from": day(f.valid_at),
            "valid_until": day(f.invalid_at or f.expired_at),
            "status": ("this fact · " if f.uuid == nb.focus else "") + ("superseded" if f.superseded else "current"),
            "source": f.citation,
        }
        for f in nb.chain
    ]
    show_table(rows, f"{NS}.versions")


def _citing(nb: Neighbourhood) -> None:
    st.subheader("Cited by")
    if not nb.citing:
        st.caption("No episode of the graph names this fact as extracted from it.")
        return
    rows = [
        {
            "document": c.document,
            "page": "" if c.page is None else str(c.page),
            "chunk": "" if c.chunk is None else str(c.chunk),
            "channel": c.channel.replace("_", " "),
            "episode_date": day(c.valid_at),
            "passage": c.snippet,
        }
        for c in nb.citing
    ]
    show_table(rows, f"{NS}.citing")


def _facts(nb: Neighbourhood) -> None:
    st.subheader("Facts around it" if nb.kind == "fact" else "Its facts")
    rows = [
        {
            "relation": f.relation,
            "fact": f.fact,
            "from": f.source_name,
            "to": f.target_name,
            "status": "superseded" if f.superseded else "current",
            "valid_from": day(f.valid_at),
            "valid_until": day(f.invalid_at or f.expired_at),
        }
        for f in nb.facts
    ]
    show_table(rows, f"{NS}.facts")
