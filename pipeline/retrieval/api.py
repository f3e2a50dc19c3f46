"""Retrieval as the pages, the CLI and the benchmarks use it: `lab.retrieval`. Every ranking goes through the one
`rank()` (retrieve.py); the values are in `pipeline.api.models`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphiti_core import Graphiti

from pipeline.retrieval import citations, retrieve, stock, walk_parity
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.records import RetrievalRun
from pipeline.retrieval.setting import Setting
from pipeline.retrieval.vector_index import build, check, repo
from pipeline.retrieval.vector_index.records import FirstStageName, RecallCheck

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Retrieval:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self._stock: dict[str, Graphiti] = {}

    async def rank(
        self,
        query: str,
        group_id: str,
        settings: Sequence[Setting],
        include_superseded: bool = False,
        as_of: datetime | None = None,
        hooks: RankHooks | None = None,
    ) -> list[RetrievalRun]:
        """One query under several settings, each pool searched and reranked once (see `retrieve.rank`)."""
        return await retrieve.rank(self.lab, query, group_id, settings, include_superseded, as_of, hooks=hooks)

    async def retrieve(
        self,
        query: str,
        group_id: str,
        candidates: int = 50,
        top_k: int = 10,
        reranker: str = "none",
        include_superseded: bool = False,
        as_of: datetime | None = None,
        reranker_model: str | None = None,
        first_stage: FirstStageName = "exact",
        recipe: Recipe | None = None,
    ) -> RetrievalRun:
        """One query under one setting."""
        return await retrieve.retrieve(
            self.lab,
            query,
            group_id,
            candidates,
            top_k,
            reranker,
            include_superseded,
            as_of,
            reranker_model,
            first_stage=first_stage,
            recipe=recipe,
        )

    async def hold_facts(self, group_id: str) -> tuple[int, float] | None:
        """Hold the deal's facts and vectors in this process for the rankings to come (held_facts.py): (facts,
        megabytes) held, or None when they do not fit `held_facts_mb`."""
        held = await self.lab.facts.load(group_id)
        return None if held is None else (len(held.edges), held.nbytes / 2**20)

    async def episodes(self, group_id: str, uuids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The cited episodes (source documents, Q&A answers, chat) by uuid."""
        return await citations.fetch_episodes(self.lab.backend, group_id, uuids)

    async def stock_search_ms(self, query: str, group_id: str, recipe: Recipe, candidates: int) -> float:
        """graphiti's own `search_()` with the recipe's config at N, stock: its wall time (the first stage's
        yardstick in the benchmarks)."""
        if group_id not in self._stock:
            self._stock[group_id] = stock.graphiti_for(self.lab, group_id, stock.NoCrossEncoder())
        return await stock.stock_search_ms(self._stock[group_id], query, group_id, recipe, candidates)

    async def walk_parity(
        self, group_id: str, queries: Sequence[str], depths: Sequence[int], filters: Sequence[str]
    ) -> list[dict[str, Any]]:
        """The first stage's graph walk against graphiti's own BFS, list for list (FalkorDB only)."""
        return await walk_parity.walk_parity(self.lab, group_id, queries, depths, filters)

    # --- the deal's vector index (vector_index/) ---

    async def ensure_vector_index(
        self, group_id: str, progress: Callable[[str], None] | None = None, actor: str = "system"
    ) -> bool:
        """Wait until the deal's vector index is ready, creating it first if need be; whether this call created it."""
        return await build.ensure_index(self.lab, group_id, progress, actor=actor)

    async def check_vector_recall(self, group_id: str, queries: Sequence[str], candidates: int) -> RecallCheck:
        """The index's recall@N against the exact scan on these queries."""
        return await check.check_recall(self.lab, group_id, queries, candidates)

    def save_vector_check(self, recall: RecallCheck) -> None:
        repo.save_check(self.lab.store, recall)

    def latest_vector_check(self, group_id: str) -> RecallCheck | None:
        return repo.latest_check(self.lab.store, group_id)
