"""Judging pools on the Spot-check page: a pool's progress, the LLM judge's run and its agreement with the
analysts, calibration samples, and the form that builds a pool. Everything is computed in `pipeline/pools`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import streamlit as st

from dashboard.common.grading import REVIEWER
from dashboard.common.runtime import run
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.spotcheck.actions import NS, QUEUE, safely
from pipeline.api import Lab
from pipeline.api.models import PROMPT_VERSION, Pool, PoolSpec, Setting
from pipeline.errors import InvalidInput, RetrievalLabError

POOL = f"{NS}.pool"
DEFAULT_SETTINGS = "graphiti-default:none:50:10\nvector:none:50:10\ngraphiti-default:local:50:10\nvector:local:50:10"


def render_pool_panel(lab: Lab, pool: Pool, reviewer: str) -> None:
    """Above the review card of a pool: where it stands, the judge, calibration."""
    grades = lab.spotcheck.deal_grades(pool.group_id)
    progress = lab.pools.progress(pool, grades)
    what = md(pool.label) + (f": {md(', '.join(pool.settings))}" if pool.settings else "")
    st.caption(f"{what} · {pool.pairs:,} pairs · {pool.skipped:,} judged already, left out")
    st.progress(progress.fraction, text=md(progress.text()))
    agreement = lab.spotcheck.judge_agreement(pool.group_id, grades)
    if agreement.judged_by_judge:
        threshold = lab.settings.judge_min_kappa
        trusted = "trusted for metrics" if agreement.trusted(threshold) else f"not trusted (below {threshold:.2f})"
        st.caption(f"{md(agreement.text())} · {trusted}")
    if pool.kind != "pool":
        return
    cols = st.columns([1.6, 1, 1, 1.6])
    try:
        judge = lab.judge.config()
        missing = ""
    except InvalidInput as exc:
        judge, missing = None, str(exc)
    cols[0].button(
        f"Grade with the LLM judge ({judge.model})" if judge else "Grade with the LLM judge",
        key=f"{NS}.judge",
        icon=":material/smart_toy:",
        disabled=judge is None,
        help=f"Every pair of the pool, on the rubric analysts see (prompt {PROMPT_VERSION}); cached, so a second "
        "run costs nothing. Large pools: `python -m pipeline judge`.",
        on_click=safely,
        args=(lambda: _judge(lab, pool, reviewer),),
    )
    size = cols[1].number_input("Calibration pairs", 1, 2_000, 30, key=f"{NS}.calibration_size")
    seed = cols[2].number_input("Seed", 0, 2**31 - 1, 7, key=f"{NS}.calibration_seed")
    cols[3].button(
        "Draw a calibration sample",
        key=f"{NS}.calibrate",
        icon=":material/rule:",
        disabled=not reviewer or not agreement.judged_by_judge,
        help="A seeded sample of the pairs the judge graded and no analyst has: analysts grade them, and the "
        "judge's agreement with them decides whether its grades may feed metrics.",
        on_click=safely,
        args=(lambda: _calibrate(lab, pool, reviewer, int(size), int(seed)),),
    )
    if missing:
        st.caption(md(missing))
    with st.expander(f"The judge's prompt ({PROMPT_VERSION})"):
        st.text(plain(lab.judge.prompt_text()))


def _judge(lab: Lab, pool: Pool, reviewer: str) -> str:
    judged = run(lab.pools.judge(pool.group_id, pool.queue_id, reviewer or "dashboard"), timeout=3600)
    if judged.report.failure:
        raise RetrievalLabError(f"{judged.report.failure} {judged.text()}")
    return md(judged.text())


def _calibrate(lab: Lab, pool: Pool, reviewer: str, size: int, seed: int) -> str:
    sample = lab.pools.calibrate(pool.group_id, pool.queue_id, size, seed, reviewer)
    st.session_state[QUEUE] = sample.queue_id
    return f"Drew **{md(sample.name)}**: {sample.pairs} pairs the judge graded, for analysts to grade."


def _build(lab: Lab, group_id: str) -> str:
    state: dict[str, Any] = st.session_state
    reviewer = state.get(REVIEWER, "").strip()
    if not reviewer:
        raise RetrievalLabError("Enter your name (reviewer) before building a pool.")
    lines = [line.strip() for line in state.get(f"{POOL}.settings", "").splitlines() if line.strip()]
    settings = tuple(Setting.parse(line, "Each line") for line in lines)
    set_name = state.get(f"{POOL}.set")
    name = state.get(f"{POOL}.name", "").strip() or f"pool of {set_name} · {datetime.now(UTC):%Y-%m-%d %H:%M:%S}"
    pool = run(lab.pools.build(PoolSpec(name, group_id, set_name, settings, reviewer)), timeout=1800)
    state[QUEUE] = pool.queue_id
    state[f"{POOL}.name"] = ""
    return (
        f"Built pool **{md(pool.name)}**: {pool.pairs:,} pairs to judge from {len(pool.settings)} settings "
        f"({pool.skipped:,} judged already, left out)."
    )


def render_new_pool(lab: Lab, group_id: str) -> None:
    sets = [s.name for s in lab.query_sets.sets(group_id)]
    st.markdown("**New judging pool**: the union of several settings' top k for every query of a set")
    if not sets:
        st.info("This deal has no query set: import a query log with `python -m pipeline import-queries`.")
        return
    with st.form(POOL, border=True):
        st.text_input("Pool name", key=f"{POOL}.name", max_chars=120, placeholder="Optional: named from the set")
        st.selectbox("Query set", sets, key=f"{POOL}.set", format_func=lambda n: plain(n, OPTION_CHARS))
        st.text_area(
            "Settings, one per line: [RECIPE:]RERANKER:N:K",
            DEFAULT_SETTINGS,
            key=f"{POOL}.settings",
            help="Each setting's top k is pooled (depth-k pooling); pairs the set or analysts judged are left out.",
        )
        st.form_submit_button(
            "Build pool",
            key=f"{POOL}.build",
            type="primary",
            icon=":material/playlist_add:",
            on_click=safely,
            args=(lambda: _build(lab, group_id),),
        )
