"""The query controls Compare and Scores share: query, N, k, reranker, example queries, and the first stage
(exact, or the graph's vector index once `python -m pipeline vector-index` has built and measured one).

Every control is bound to the URL (`bind="query-params"`), so a comparison can be shared as a link.
Runs are kept in session state by their parameters (widget reruns never repeat a retrieval) and
recorded once in the run history.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

import streamlit as st

from dashboard.common.runtime import run
from dashboard.common.text import OPTION_CHARS, md, plain
from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.rerankers import reranker_choices
from pipeline.retrieval.records import RetrievalRun
from pipeline.retrieval.retrieve import MAX_CANDIDATES, retrieve, without_reranking
from pipeline.vector_index import FIRST_STAGES, FirstStageName
from pipeline.vector_index.repo import latest_check

log = logging.getLogger("retrieval_lab")


@dataclass(frozen=True)
class Request:
    query: str
    group_id: str
    num_candidates: int
    top_k: int
    reranker: str
    first_stage: FirstStageName = "exact"


def example_queries(lab: Lab, group_id: str) -> list[str]:
    query_set = load_query_set(lab.store, group_id)
    return [q.text for q in query_set.queries] if query_set else []


def _use_example(ns: str) -> None:
    picked = st.session_state.get(f"{ns}.example")
    if picked:
        st.session_state[f"{ns}.q"] = picked
        st.session_state[f"{ns}.example"] = None


def query_form(ns: str, lab: Lab, group_id: str) -> Request | None:
    """Draw the controls under namespace `ns`; the request once a query is entered."""
    settings = lab.settings
    choices = {c.name: c for c in reranker_choices(settings)}
    examples = example_queries(lab, group_id)
    if examples:
        st.selectbox(
            "Example queries from the labelled set",
            [None, *examples],
            key=f"{ns}.example",
            format_func=lambda q: "Pick one for a one-click demo…" if q is None else plain(q, OPTION_CHARS),
            on_change=_use_example,
            args=(ns,),
        )
    query = st.text_input(
        "Query",
        key=f"{ns}.q",
        bind="query-params",
        max_chars=2000,
        placeholder="e.g. What was FY2025 revenue after the audit?",
    )
    cols = st.columns([2, 2, 3])
    n = cols[0].slider(
        "Candidates (N)", 5, 100, settings.default_candidates, step=5, key=f"{ns}.n", bind="query-params"
    )
    k = cols[1].slider("Top-k", 1, 25, settings.default_top_k, key=f"{ns}.k", bind="query-params")
    reranker = cols[2].selectbox(
        "Reranker",
        [c for c in choices if c != "none"],
        key=f"{ns}.reranker",
        bind="query-params",
        format_func=lambda c: choices[c].label if choices[c].available else f"{choices[c].label} — {choices[c].note}",
        help="The local re-scorer is not a cross-encoder: it re-scores candidates with the embedding model and BM25.",
    )
    first_stage = _first_stage(ns, lab, group_id)
    if not query.strip():
        st.info("Type a query or pick an example to run it.")
        return None
    if k > n:
        st.warning(f"Top-k ({k}) is larger than N ({n}); showing k = {n}.")
        k = n
    return Request(query, group_id, min(n, MAX_CANDIDATES), k, reranker, first_stage)


def _first_stage(ns: str, lab: Lab, group_id: str) -> FirstStageName:
    """Exact search, unless the deal has a measured vector index and the user picks it; its recall is always
    said beside the choice (it is approximate)."""
    check = latest_check(lab.store, group_id)
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


def cached_run(ns: str, lab: Lab, request: Request, reranker: str) -> RetrievalRun:
    """The run for these parameters, retrieved once per session and recorded in the run history."""
    key = (request.query, request.group_id, request.num_candidates, request.top_k, reranker, request.first_stage)
    cache: dict = st.session_state.setdefault(f"{ns}.runs", {})
    if key not in cache:
        if len(cache) > 20:
            cache.clear()
        retrieval = retrieve(
            lab,
            request.query,
            request.group_id,
            request.num_candidates,
            request.top_k,
            reranker,
            first_stage=request.first_stage,
        )
        cache[key] = _recorded(lab, run(retrieval))
    return cache[key]


def cached_pair(ns: str, lab: Lab, request: Request) -> tuple[RetrievalRun, RetrievalRun]:
    """(without reranking, with reranking) from one first stage: the two sides differ only by the reranker."""
    reranked = cached_run(ns, lab, request, request.reranker)
    key = (
        request.query,
        request.group_id,
        request.num_candidates,
        request.top_k,
        f"none, beside {request.reranker}",
        request.first_stage,
    )
    cache: dict = st.session_state.setdefault(f"{ns}.runs", {})
    if key not in cache:
        cache[key] = _recorded(lab, run(without_reranking(lab, reranked)))
    return cache[key], reranked


def _recorded(lab: Lab, retrieved: RetrievalRun) -> RetrievalRun:
    """Record a run in the history; a store failure is said in a toast and never hides the results."""
    try:
        save_run(lab.store, retrieved, "dashboard")
    except sqlite3.Error as exc:
        log.exception("could not record the run")
        st.toast(f"This run was not recorded in the history: {md(exc)}", icon=":material/warning:")
    return retrieved
