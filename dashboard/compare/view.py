"""The side-by-side view: first-stage top k on the left, reranked top k on the right."""

from __future__ import annotations

import streamlit as st

from dashboard.common.result_cards import result_card
from dashboard.common.runtime import run
from dashboard.common.text import md
from pipeline.lab import Lab
from pipeline.retrieval.citations import fetch_episodes
from pipeline.retrieval.records import RetrievalRun


def overlap(a: RetrievalRun, b: RetrievalRun) -> int:
    return len({r.uuid for r in a.results} & {r.uuid for r in b.results})


def render_comparison(lab: Lab, baseline: RetrievalRun, reranked: RetrievalRun) -> None:
    k = reranked.top_k
    if reranked.fallback_reason:
        st.warning(
            f"**The reranker fell back to first-stage order.** {md(reranked.fallback_reason)}",
            icon=":material/warning:",
        )
    for message in reranked.timings.over_budget:
        st.caption(f":orange[Over budget:] {md(message)}")

    shared = overlap(baseline, reranked)
    stats = st.columns(4)
    stats[0].metric("Overlap of the two top-k", f"{shared} / {len(reranked.results)}")
    stats[1].metric("Without reranking", f"{baseline.timings.stages_ms['total']:.0f} ms")
    stats[2].metric(
        "With reranking",
        f"{reranked.timings.stages_ms['total']:.0f} ms",
        delta=f"rerank {reranked.timings.stages_ms.get('rerank', 0):.0f} ms",
        delta_color="off",
    )
    cost = reranked.timings.rerank_cost_usd
    stats[3].metric("Rerank cost", "free (local)" if cost is None else f"${cost:.5f}")

    after = {r.candidate.uuid: r.rank for r in reranked.reranked}
    before = {c.uuid: c.first_stage_rank for c in reranked.candidates}
    episodes = run(
        fetch_episodes(
            lab.backend,
            reranked.group_id,
            (c.episode_uuid for r in (*baseline.results, *reranked.results) for c in r.citations),
        )
    )
    left, right = st.columns(2)
    with left:
        st.subheader("Without reranking")
        st.caption("First-stage order: RRF fusion of BM25, cosine and graph BFS")
        for result in baseline.results:
            result_card(result, after.get(result.uuid), k, "baseline", episodes, key=f"compare.left.{result.uuid}")
    with right:
        st.subheader("With reranking")
        st.caption(md(reranked.reranker_model or reranked.reranker))
        for result in reranked.results:
            result_card(result, before.get(result.uuid), k, "reranked", episodes, key=f"compare.right.{result.uuid}")
