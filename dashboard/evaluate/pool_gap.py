"""Under a recommendation whose best lead rests on unjudged facts: the pool that would settle it (its size, the
command, and a button that builds it), so the next sweep compares the two settings on judged facts."""

from __future__ import annotations

import streamlit as st

from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.runtime import run
from dashboard.common.text import LABEL_CHARS, md
from pipeline.api import Lab, now_iso
from pipeline.api.models import PoolGap, PoolSpec, Setting
from pipeline.errors import RetrievalLabError

NS = "evaluate.pool_gap"


def _build(lab: Lab, gap: PoolGap) -> None:
    reviewer = str(st.session_state.get(f"{NS}.by", "")).strip()
    try:
        if not reviewer:
            raise RetrievalLabError("Enter your name before building the pool.")
        settings = tuple(Setting.parse(text, "The pooled setting") for text in gap.settings)
        name = f"unjudged gap of {' vs '.join(gap.settings)} · {now_iso()[:19]}"
        pool = run(lab.pools.build(PoolSpec(name, gap.group_id, gap.set_name, settings, reviewer)), timeout=1800)
    except RetrievalLabError as exc:
        flash(f"{NS}.flash", md(exc), "error")
        return
    flash(
        f"{NS}.flash",
        f"Built pool **#{pool.queue_id}**: {pool.pairs:,} pairs to judge ({pool.skipped:,} judged already, left out). "
        "Judge them on Citation spot-check (or with `python -m pipeline judge`), then run the sweep again.",
    )


def render_pool_gap(lab: Lab, gap: PoolGap | None) -> None:
    """The pool of the unjudged pairs in the two top k; nothing when no lead rests on unjudged facts."""
    if gap is None:
        return
    with st.container(border=True):
        st.markdown(
            f"**Settle it with judgments:** {gap.pairs or 'Some'} (query, fact) pairs in the two top k have no "
            "judgment. "
            "Pool them, judge them, and run the sweep again."
        )
        st.code(gap.command, language="bash")
        cols = st.columns([3, 2], vertical_alignment="bottom")
        cols[0].text_input("Your name", key=f"{NS}.by", max_chars=LABEL_CHARS, placeholder="who builds the pool")
        cols[1].button(
            "Build this pool",
            key=f"{NS}.build",
            icon=":material/playlist_add:",
            on_click=_build,
            args=(lab, gap),
        )
        show_flash(f"{NS}.flash")
