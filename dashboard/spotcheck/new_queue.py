"""The Citation spot-check page's New queue form: a queue built from the form's settings, in the form's
`on_click` callback (`actions.safely`), which says in one line what was built or why not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import streamlit as st

from dashboard.common.grading import REVIEWER
from dashboard.common.runtime import run
from dashboard.common.text import md
from dashboard.spotcheck.actions import NS, QUEUE, safely
from pipeline.api import Lab, reranker_choices
from pipeline.api.models import MAX_SIZE, PRIORITIES, REPLAY_S, SOURCES, QueueSpec
from pipeline.errors import RetrievalLabError


def _build(lab: Lab, group_id: str) -> str:
    state: dict[str, Any] = st.session_state
    reviewer = state.get(REVIEWER, "").strip()
    if not reviewer:
        raise RetrievalLabError("Enter your name (reviewer) before building a queue.")
    source, size, seed = state[f"{NS}.new.source"], int(state[f"{NS}.new.size"]), int(state[f"{NS}.new.seed"])
    name = state.get(f"{NS}.new.name", "").strip() or (
        f"{source.replace('_', ' ')} · {size} @ seed {seed} · {datetime.now(UTC):%Y-%m-%d %H:%M:%S}"
    )
    limit = int(state[f"{NS}.new.queries"])
    spec = QueueSpec(
        name=name,
        group_id=group_id,
        source=source,
        size=size,
        seed=seed,
        priority=state[f"{NS}.new.priority"],
        created_by=reviewer,
        top_k=int(state[f"{NS}.new.top_k"]),
        reranker=state[f"{NS}.new.reranker"],
        query_limit=limit or None,
    )
    # the same submission can arrive twice (a double click, a click the browser sends again while the first build
    # runs): the second finds the queue the first built, and says it was built, not that the name is taken
    queue = run(lab.spotcheck.build(spec, replay_within_s=REPLAY_S), timeout=600)
    state[QUEUE] = queue.id
    state[f"{NS}.new.name"] = ""
    return f"Built queue **{md(queue.name)}** with {queue.item_count} items."


def render_new_queue(lab: Lab, group_id: str) -> None:
    rerankers = [c.name for c in reranker_choices(lab.settings) if c.available]
    with st.form(f"{NS}.new", border=True):
        st.text_input(
            "Queue name", key=f"{NS}.new.name", max_chars=120, placeholder="Optional: named from the settings"
        )
        cols = st.columns(2)  # source and priority on a row of their own: their longest names fit at 1280 px
        cols[0].selectbox("Source", list(SOURCES), key=f"{NS}.new.source", format_func=SOURCES.__getitem__)
        priority = cols[1]
        cols = st.columns(2)
        cols[0].number_input("Sample size", 1, MAX_SIZE, 20, key=f"{NS}.new.size")
        cols[1].number_input(
            "Seed", 0, 2**31 - 1, 42, key=f"{NS}.new.seed", help="Same seed + same graph = same sample."
        )
        priority.selectbox(
            "Priority",
            list(PRIORITIES),
            key=f"{NS}.new.priority",
            format_func=PRIORITIES.__getitem__,
            help="Sources disagree: a fact cited by several channels, with different confidences, "
            "or one that supersedes / was superseded by another fact.",
        )
        more = st.columns(3)
        more[0].number_input("Top-k per query (query set)", 1, 20, 3, key=f"{NS}.new.top_k")
        more[1].selectbox(
            "Reranker (query set)",
            rerankers,
            key=f"{NS}.new.reranker",
            index=rerankers.index("local") if "local" in rerankers else 0,
        )
        more[2].number_input(
            "Queries to run (query set, 0 = all)",
            0,
            10_000,
            0,
            key=f"{NS}.new.queries",
            help="A seeded sample of the labelled queries: quicker on large sets.",
        )
        st.form_submit_button(
            "Build queue",
            key=f"{NS}.new.build",
            type="primary",
            icon=":material/playlist_add:",
            on_click=safely,
            args=(lambda: _build(lab, group_id),),
        )
