"""The query controls Compare and Scores share: query, example queries, a setting's first-stage recipe, N, k and
reranker, and the first stage (exact, or the graph's vector index once `python -m pipeline vector-index` has built
and measured one). A setting is the pipeline's `Setting` (pipeline/retrieval/setting.py).

Every control is bound to the URL (`bind="query-params"`), so a comparison can be shared as a link.
Runs come from `rank()` with the session's pools and reranker scores (`rank_cache.py`), a pool being (recipe, N,
first stage): changing k searches and reranks nothing. Each shown ranking is recorded once in the run history.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace

import streamlit as st

from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.page_state.url import drop_param, publish_id, restore_text, url_value
from dashboard.common.rank_cache import POOLS_KEPT, session_hooks
from dashboard.common.recipes import recipe_control
from dashboard.common.runtime import run
from dashboard.common.text import OPTION_CHARS, md, plain
from pipeline.api import Lab, reranker_choices, whole_number
from pipeline.api.models import (
    FIRST_STAGES,
    MAX_CANDIDATES,
    RECIPE_NAMES,
    Example,
    FirstStageName,
    RetrievalRun,
    Setting,
)

log = logging.getLogger("retrieval_lab")

MAX_SHOWN_K = 25  # the top-k slider's maximum
EXAMPLES = SessionMemo("query_form.examples", keep=4)  # a deal and its newest experiment each


@dataclass(frozen=True)
class Request:
    query: str
    group_id: str
    setting: Setting


def example_list(lab: Lab, group_id: str) -> list[Example]:
    """The deal's examples, read again only when a newer experiment is saved (loading a sweep's per-query rows
    is too slow for every rerun)."""
    latest = lab.evaluation.list_experiments(group_id)
    return EXAMPLES.get((group_id, latest[0].id if latest else None), lambda: lab.comparison.examples(group_id))


def _use_example(ns: str, notes: dict[str, Example], sides: tuple[str, ...]) -> None:
    """Fill the query box; a swept example also sets the sides to the setting the sweep measured it with."""
    picked = st.session_state.get(f"{ns}.example")
    if not picked:
        return
    st.session_state[f"{ns}.q"] = picked  # the picker keeps showing it until the query is edited (`_typed`)
    example = notes.get(picked)
    if example is None or example.delta is None or example.setting is None:
        return
    swept = example.setting
    if swept.candidates % 5 or not 5 <= swept.candidates <= MAX_CANDIDATES or swept.top_k > MAX_SHOWN_K:
        return  # not a setting the sliders can show
    if swept.recipe.key not in RECIPE_NAMES:
        return  # a recipe the select box does not offer (a given center)
    rerankers = ("none", swept.reranker) if len(sides) == 2 else (swept.reranker,)
    for side, reranker in zip(sides, rerankers, strict=True):
        st.session_state[f"{ns}.{side}recipe"] = swept.recipe.key
        st.session_state[f"{ns}.{side}reranker"] = reranker
        st.session_state[f"{ns}.{side}n"] = swept.candidates
        st.session_state[f"{ns}.{side}k"] = swept.top_k


def _typed(ns: str) -> None:
    """A query edited away from the picked example: the picker no longer shows that example."""
    if st.session_state.get(f"{ns}.example") != st.session_state.get(f"{ns}.q"):
        st.session_state[f"{ns}.example"] = None


def query_box(ns: str, lab: Lab, group_id: str, sides: tuple[str, ...] = ("",)) -> str:
    """The example picker and the query box; the query typed (maybe empty)."""
    listed = example_list(lab, group_id)
    notes = {e.text: e for e in listed}
    if st.session_state.get(f"{ns}.example") not in notes:  # picked on another deal, or before a newer sweep
        st.session_state[f"{ns}.example"] = None
    if listed:
        swept = listed[0].delta is not None
        st.selectbox(
            "Examples where the last sweep saw reranking's effect"
            if swept
            else "Example queries from the labelled set",
            [None, *notes],
            key=f"{ns}.example",
            format_func=lambda q: "Pick one for a one-click demo…" if q is None else plain(q, OPTION_CHARS),
            placeholder="Pick one for a one-click demo…",  # what the browser shows for None (not format_func's)
            on_change=_use_example,
            args=(ns, notes, sides),
            help=listed[0].note.split(" on this query")[0] + ", per query." if swept else None,
        )
    query = st.text_input(
        "Query",
        key=f"{ns}.q",
        bind="query-params",
        max_chars=2000,
        placeholder="e.g. What was FY2025 revenue after the audit?",
        on_change=_typed,
        args=(ns,),
    )
    shown = notes.get(query)
    if shown is not None and shown.note:
        st.caption(md(shown.note))
    return query


def setting_controls(ns: str, lab: Lab, side: str = "", with_none: bool = False, default: str | None = None) -> Setting:
    """Recipe, N, k and reranker under keys `{ns}.{side}recipe`, `{ns}.{side}n`, `{ns}.{side}k`,
    `{ns}.{side}reranker`; the setting's first stage is exact until the form's one first-stage control says."""
    settings = lab.settings
    choices = {c.name: c for c in reranker_choices(settings)}
    names = [c for c in choices if with_none or c != "none"]
    if side:  # one of Compare's half-width sides: recipe and reranker on rows of their own, so no name is cut off
        recipe_box, reranker_box, n_box, k_box = st.container(), st.container(), *st.columns(2)
    else:
        recipe_box, reranker_box = st.columns(2)
        n_box, k_box = st.columns(2)
    recipe = recipe_control(ns, side, recipe_box)
    n = n_box.slider(
        "Candidates (N)",
        5,
        MAX_CANDIDATES,
        settings.default_candidates,
        step=5,
        key=f"{ns}.{side}n",
        bind="query-params",
    )
    k = k_box.slider("Top-k", 1, MAX_SHOWN_K, settings.default_top_k, key=f"{ns}.{side}k", bind="query-params")
    key = f"{ns}.{side}reranker"
    fallback = default if default in names else names[0]
    restore_text(key, names, "reranker", "a reranker offered here")  # a name in the URL, not a label
    st.session_state.setdefault(key, fallback)
    unavailable = [choices[c] for c in names if not choices[c].available]
    reranker = reranker_box.selectbox(
        "Reranker",
        names,
        key=key,
        format_func=lambda c: choices[c].label if choices[c].available else f"{choices[c].label} (unavailable)",
        help="The local re-scorer is not a cross-encoder: it re-scores candidates with the embedding model and BM25."
        + "".join(f"  \n{md(c.label)}: {md(c.note)}" for c in unavailable),
    )
    if not choices[reranker].available:  # the reason, in full, where the short label cannot hold it
        reranker_box.caption(f"Unavailable: {md(choices[reranker].note)}")
    publish_id(key, None if reranker == fallback else reranker)
    return Setting(recipe, n, reranker, k)


def refuse_unicode_numbers(ns: str, sides: Sequence[str] = ("",)) -> None:
    """N and k in the URL as digits 0-9 only. A slider bound to the URL reads its value with `int()`, which takes
    any script's digits (`٣` is 3), and from the URL the page opened with, whatever the page deletes: so each such
    value is dropped from the URL and the page runs again without it, then says so in one line each."""
    refused = f"{ns}.refused_numbers"
    bad = [
        (key, what, raw)
        for side in sides
        for key, what in ((f"{ns}.{side}n", "N"), (f"{ns}.{side}k", "top-k"))
        if (raw := url_value(key)) is not None and whole_number(raw) is None
    ]
    if bad:
        for key, _what, _raw in bad:
            drop_param(key)  # also the query string the next run opens with
        st.session_state[refused] = [
            f"The link's {what} “{md(raw, 40)}” is not a whole number in digits 0-9: left out." for _k, what, raw in bad
        ]
        st.rerun()
    for line in st.session_state.pop(refused, []):
        st.warning(line)


def checked(setting: Setting) -> Setting:
    """k cut to N when larger, said in one line."""
    n = setting.candidates
    if setting.top_k > n:
        st.warning(f"Top-k ({setting.top_k}) is larger than N ({n}); showing k = {n}.")
        return replace(setting, top_k=n)
    return setting


def query_form(ns: str, lab: Lab, group_id: str) -> Request | None:
    """Scores' controls: query, one setting (its first stage included); the request once a query is entered."""
    refuse_unicode_numbers(ns)
    query = query_box(ns, lab, group_id)
    setting = setting_controls(ns, lab, with_none=True, default="local")
    first_stage = first_stage_control(ns, lab, group_id)
    if not query.strip():
        st.info("Type a query or pick an example to run it.")
        return None
    return Request(query, group_id, checked(replace(setting, first_stage=first_stage)))


def first_stage_control(ns: str, lab: Lab, group_id: str) -> FirstStageName:
    """Exact search, unless the deal has a measured vector index and the user picks it; its recall is always
    said beside the choice (it is approximate)."""
    check = lab.retrieval.latest_vector_check(group_id)
    if check is None:
        return "exact"
    picked = st.selectbox(
        "First stage",
        FIRST_STAGES,
        key=f"{ns}.first",
        bind="query-params",
        format_func=lambda s: "Exact (graphiti's cosine scan)" if s == "exact" else "Vector index (approximate)",
    )
    st.caption(md(f"Vector index: {check.summary()}"))
    return picked


def setting_runs(ns: str, lab: Lab, query: str, group_id: str, settings: Sequence[Setting]) -> list[RetrievalRun]:
    """The run of each setting, ranked together (`rank`: sides that share a pool share one first stage), with the
    session's pools and reranker scores (`rank_cache.py`): another k or the other side's reranker on the same pool
    searches and reranks nothing, and shows the times measured when it did. A rerun shows the very runs it showed
    (kept per setting). The history records each ranking once, at the k it was first run with."""
    shown = SessionMemo(f"{ns}.shown", keep=POOLS_KEPT * 4)
    recorded = SessionMemo(f"{ns}.runs", keep=POOLS_KEPT * 4)  # each ranking's run as the history holds it

    def key(setting: Setting) -> tuple[object, ...]:
        return (query, group_id, setting.pool, setting.reranker, setting.top_k)

    missing = list({key(s): s for s in settings if key(s) not in shown}.values())
    if missing:
        for setting, ranked in zip(
            missing, run(lab.retrieval.rank(query, group_id, missing, hooks=session_hooks(ns, group_id))), strict=True
        ):
            shown.put(key(setting), ranked)
            if key(setting)[:4] not in recorded:
                recorded.put(key(setting)[:4], _recorded(lab, ranked))
    return [shown.peek(key(s)) for s in settings]


def _recorded(lab: Lab, retrieved: RetrievalRun) -> RetrievalRun:
    """Record a run in the history; a store failure is said in a toast and never hides the results."""
    try:
        lab.history.save_run(retrieved, "dashboard")
    except sqlite3.Error as exc:
        log.exception("could not record the run")
        st.toast(f"This run was not recorded in the history: {md(exc)}", icon=":material/warning:")
    return retrieved
