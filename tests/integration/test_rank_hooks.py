"""`rank()` with a caller's caches plugged in (the hooks pages and sweeps use): a cached pool is not searched
again, cached scores are not asked for again, and the runs they make are the runs a search and a reranker make."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from pipeline.lab import Lab
from pipeline.retrieval import rerank, retrieve
from pipeline.retrieval.hooks import RankHooks, ScoreCall, ScoreRow
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.records import CandidatePool, Citation, Result, RetrievalRun
from pipeline.retrieval.setting import Setting

QUERY = "What was Halcyon's FY2025 revenue?"
SETTINGS = [Setting(Recipe.preset(name), n, "local", 10) for name in ("graphiti-default", "vector") for n in (25, 50)]


class MemoryPools:
    """Pools in a dict: the smallest cache behind the pool hook."""

    def __init__(self) -> None:
        self.pools: dict[tuple[object, ...], CandidatePool] = {}

    def get(self, setting: Setting, query: str) -> CandidatePool | None:
        return self.pools.get((setting.pool, query))

    def put(self, setting: Setting, query: str, pool: CandidatePool) -> None:
        self.pools[(setting.pool, query)] = pool


class MemoryScores:
    """Scores in a dict: the smallest cache behind the score hook."""

    def __init__(self) -> None:
        self.scores: dict[tuple[object, ...], dict[str, ScoreRow]] = {}

    def lookup(self, reranker: str, model: str, query: str, uuids: Sequence[str], facts: Sequence[str]) -> Any:
        return dict(self.scores.get((reranker, model, query, tuple(uuids), tuple(facts)), {}))

    def put(self, call: ScoreCall) -> None:
        self.scores[(call.reranker, call.model, call.query, tuple(call.uuids), tuple(call.facts))] = call.rows()

    def failure(self, *_args: Any) -> None:
        return None

    def put_failure(self, *_args: Any) -> None:
        raise AssertionError("the local re-scorer does not fail here")


def cited(result: Result) -> list[Citation]:
    return [replace(c, retrieved_at="") for c in result.citations]  # when it was retrieved: now


def ranking(run: RetrievalRun) -> list[tuple[str, float | None]]:
    return [(r.candidate.uuid, r.rerank_score) for r in run.reranked]


async def test_cached_pools_and_scores_make_the_same_runs_without_searching_or_scoring(
    lab: Lab, demo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pools, scores = MemoryPools(), MemoryScores()
    first = await retrieve.rank(lab, QUERY, demo, SETTINGS, hooks=RankHooks(pools=pools, scores=scores))
    plain = await retrieve.rank(lab, QUERY, demo, SETTINGS)
    assert [ranking(r) for r in first] == [ranking(r) for r in plain]  # the hooks change nothing on a miss
    assert len(pools.pools) == 4 and len(scores.scores) == 4

    async def refuse(*_args: Any, **_kw: Any) -> Any:
        raise AssertionError("searched or scored again")

    monkeypatch.setattr(retrieve, "search_recipe", refuse)
    monkeypatch.setattr(rerank, "score_pool", refuse)
    monkeypatch.setattr(type(lab.embedder), "embed_query", refuse)
    again = await retrieve.rank(lab, QUERY, demo, SETTINGS, hooks=RankHooks(pools=pools, scores=scores))
    for before, after in zip(first, again, strict=True):
        assert ranking(after) == ranking(before)
        assert after.candidates == before.candidates
        assert [cited(r) for r in after.results] == [cited(r) for r in before.results]
        for stage in ("embed_query", "hybrid_search", "rerank"):  # the times measured when computed
            assert after.timings.stages_ms[stage] == pytest.approx(before.timings.stages_ms[stage])
