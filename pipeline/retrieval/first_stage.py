"""The first stage: a recipe's edge search (pipeline/retrieval/recipes.py), method by method.

`graphiti.search_()` returns only the fused top `limit`, without the per-method lists. We run the
same searches its `edge_search` runs, with the same depth (2 x limit per method), the walk expanded from the
sources of the BM25 and cosine hits, and graphiti's own fusion (`rrf`, `maximal_marginal_relevance`,
`node_distance_reranker`, the episode-mentions sort), so the candidates are exactly those of `search_()` with the
recipe's config at the same limit (tests check every preset and a custom config), while each method's ranks and
time are kept. Each method's list is fetched once per query, filter and depth (`MethodLists`), so recipes and
settings that share a method share its list. Every method runs through the graph's dialect, graphiti's search
operations (pipeline/graph/dialects/): BM25 and cosine run graphiti's statements without returning each hit's
embedding; on FalkorDB the walk returns graphiti's list without enumerating every path.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import node_distance_reranker, rrf

from pipeline.graph.dialects.registry import for_driver
from pipeline.retrieval.collector import collector_paused
from pipeline.retrieval.held_facts import HeldDeal
from pipeline.retrieval.recipes import Recipe

T = TypeVar("T")
Timed = tuple[list[EntityEdge], float]  # a method's list and its fetch's wall time (ms)
NO_FLOOR = -2.0  # below every cosine similarity (FalkorDB's lie in [0, 1], Neo4j's in [-1, 1])


def fulltext_words(query: str) -> str:
    """The query for the full-text index: words with no letter or digit left out. They can match nothing, and
    graphiti's FalkorDB query builder passes a lone "_" through, which RediSearch refuses as a syntax error."""
    return " ".join(word for word in query.split() if any(ch.isalnum() for ch in word))


class FactVectors:
    """Facts' stored vectors, shared by the queries of one sweep: queries on one deal retrieve many of the same facts,
    and a vector costs far more to read (its floats parsed one by one) than to find. Each is kept with its share of
    the load that brought it (ms), so a setting is still timed as if it loaded its own. A fact without a stored
    vector is remembered as such. Bounded by bytes (least recently used first out); vectors are float64 arrays,
    the very doubles the graph returned (MMR and the local re-scorer compute on them as on the lists)."""

    BUDGET_BYTES = 64 * 2**20

    def __init__(self, budget_bytes: int = BUDGET_BYTES) -> None:
        self.budget_bytes = budget_bytes
        self._known: OrderedDict[str, tuple[np.ndarray | None, float]] = OrderedDict()
        self._bytes = 0

    def get(self, uuid: str) -> tuple[np.ndarray | None, float] | None:
        """(vector or None, ms share) of a fact looked up before; None for one never looked up (or evicted)."""
        found = self._known.get(uuid)
        if found is not None:
            self._known.move_to_end(uuid)
        return found

    def put(self, uuid: str, vector: list[float] | None, ms: float) -> None:
        array = None if vector is None else np.asarray(vector, dtype=np.float64)
        self._forget(uuid)
        self._known[uuid] = (array, ms)
        self._bytes += 0 if array is None else array.nbytes
        while self._bytes > self.budget_bytes and len(self._known) > 1:
            self._forget(next(iter(self._known)))

    def _forget(self, uuid: str) -> None:
        old = self._known.pop(uuid, None)
        if old is not None and old[0] is not None:
            self._bytes -= old[0].nbytes

    def clear(self) -> None:
        self._known.clear()
        self._bytes = 0


class MethodLists:
    """One query's method lists under one filter, each fetched once per (method, depth, floor / walk) and shared by
    every recipe and N that asks for it; concurrent asks for the same list wait for the one fetch. `similar(depth)`,
    when given, answers the cosine method instead of graphiti's exact scan (the vector index option, which has no
    floor). The exact cosine scan is shared by every floor (see `cosine`); given the deal's `held` facts, numpy
    answers it and hands out their vectors without a read (`held_facts.py`). Each list comes with its fetch's wall
    time, so a setting's first stage is timed as if it ran alone. Other facts' stored vectors (MMR's fusion, the
    local reranker) are loaded once per fact (`vectors`), for this query or, given a shared `FactVectors`, for every
    query that shares it."""

    def __init__(
        self,
        driver: GraphDriver,
        query: str,
        vector: list[float],
        group_id: str,
        search_filter: SearchFilters,
        similar: Callable[[int], Awaitable[list[EntityEdge]]] | None = None,
        known: FactVectors | None = None,
        held: HeldDeal | None = None,
    ) -> None:
        self.driver, self.query, self.vector, self.group_id = driver, query, vector, group_id
        self.dialect = for_driver(driver)
        self.search_filter, self.similar = search_filter, similar
        self._fetches: dict[tuple[object, ...], asyncio.Future[Any]] = {}
        self.known = known if known is not None else FactVectors()
        self.held = held

    async def _once(self, key: tuple[object, ...], fetch: Callable[[], Awaitable[T]]) -> tuple[T, float]:
        """What `fetch` returns and its wall time (ms), fetched once per key."""
        if key not in self._fetches:

            async def timed() -> tuple[T, float]:
                started = time.perf_counter()
                with collector_paused():
                    found = await fetch()
                return found, (time.perf_counter() - started) * 1000

            self._fetches[key] = asyncio.ensure_future(timed())
        return await asyncio.shield(self._fetches[key])

    async def vectors(self, uuids: Sequence[str]) -> tuple[dict[str, np.ndarray], float]:
        """The stored vectors of these facts (a fact without one left out) and what loading them alone would have
        taken (ms: each fact's share of the load that brought it). Only facts not looked up yet are read."""
        wanted = list(dict.fromkeys(uuids))
        started = time.perf_counter()
        held = {u: v for u in wanted if self.held is not None and (v := self.held.vector(u)) is not None}
        held_ms = (time.perf_counter() - started) * 1000
        known = {u: self.known.get(u) for u in wanted if u not in held}
        missing = [u for u, found in known.items() if found is None]
        if missing:
            started = time.perf_counter()
            with collector_paused():
                loaded = await self.dialect.fact_vectors(self.driver, missing)
            share = (time.perf_counter() - started) * 1000 / len(missing)
            for u in missing:
                self.known.put(u, loaded.get(u), share)
                known[u] = self.known.get(u)
        vectors = {u: found[0] for u, found in known.items() if found is not None and found[0] is not None}
        return held | vectors, held_ms + sum(found[1] for found in known.values() if found is not None)

    def bm25(self, depth: int) -> Awaitable[Timed]:
        words = fulltext_words(self.query)
        return self._once(
            ("bm25", depth),
            lambda: self.dialect.edge_fulltext_search(self.driver, words, self.search_filter, [self.group_id], depth),
        )

    async def cosine(self, depth: int, floor: float) -> Timed:
        if self.similar is not None:
            similar = self.similar
            return await self._once(("cosine", depth, "index"), lambda: similar(depth))
        # one scan per depth for every floor: graphiti's statement keeps `score > floor`, sorts by score and takes
        # the first `depth`, so its list is the floorless list's hits above the floor (every hit above a floor ranks
        # before every hit below it)
        hits, ms = await self.similarities(depth)
        return [edge for edge, score in hits if score > floor], ms

    def similarities(self, depth: int) -> Awaitable[tuple[list[tuple[EntityEdge, float]], float]]:
        """The exact cosine list without a floor, with each hit's similarity (best first, at most `depth`)."""
        return self._once(("cosine", depth), lambda: self._exact_cosine(depth))

    async def _exact_cosine(self, depth: int) -> list[tuple[EntityEdge, float]]:
        if self.held is not None:
            return self.held.similar(self.vector, self.search_filter, depth, NO_FLOOR)
        return await self.dialect.edge_similarity_search(
            self.driver, self.vector, self.search_filter, [self.group_id], depth, NO_FLOOR
        )

    def walk(self, origins: tuple[str, ...], max_depth: int, depth: int) -> Awaitable[Timed]:
        return self._once(
            ("bfs", depth, max_depth, origins),
            lambda: self.dialect.edge_bfs_search(
                self.driver, list(origins), max_depth, self.search_filter, [self.group_id], depth
            ),
        )


@dataclass(frozen=True)
class FirstStage:
    edges: tuple[EntityEdge, ...]  # fused order, at most `limit`
    fused_scores: tuple[float, ...]  # the recipe's fusion score of each (RRF, MMR, 1 / node distance)
    fused: tuple[str, ...]  # every fact the fusion kept (above `reranker_min_score`), in order, before the cut at N
    method_ranks: dict[str, dict[str, int]]  # method -> edge uuid -> 1-based rank
    stages_ms: dict[str, float]  # each method's fetch and the fusion
    alone_ms: float  # the first stage's time had it fetched its lists itself: BM25 and cosine at once, walk, fusion
    center: str | None = None  # node distance: the entity the distances are measured from


def _ranks(lists: dict[str, list[EntityEdge]]) -> dict[str, dict[str, int]]:
    ranks: dict[str, dict[str, int]] = {name: {} for name in lists}
    for name, result in lists.items():
        for rank, edge in enumerate(result, start=1):
            ranks[name].setdefault(edge.uuid, rank)
    return ranks


async def search_recipe(lists: MethodLists, recipe: Recipe, limit: int) -> FirstStage:
    """graphiti's `edge_search` with the recipe's config at `limit`, from shared method lists."""
    config = recipe.edge_config
    min_score = recipe.config.reranker_min_score
    depth = 2 * limit  # what graphiti's edge_search asks of each method
    methods = recipe.methods
    asks: dict[str, Awaitable[Timed]] = {}
    if "bm25" in methods:
        asks["bm25"] = lists.bm25(depth)
    if "cosine" in methods:
        asks["cosine"] = lists.cosine(depth, config.sim_min_score)
    fetched = dict(zip(asks, await asyncio.gather(*asks.values()), strict=True))
    if "bfs" in methods:
        # graphiti walks from every hit's source, repeats included (a hub entity hundreds of times); a repeated
        # origin adds no new row to the walk's DISTINCT ones, so walking each origin once returns the same list
        origins = tuple(dict.fromkeys(e.source_node_uuid for edges, _ms in fetched.values() for e in edges))
        fetched["bfs"] = await lists.walk(origins, config.bfs_max_depth, depth)
    results = {name: edges for name, (edges, _ms) in fetched.items()}
    ms = {name: took for name, (_edges, took) in fetched.items()}
    # a list another recipe fetched first costs this one nothing now, but would have had it run alone
    side_by_side = max((took for name, took in ms.items() if name != "bfs"), default=0.0)
    by_uuid = {edge.uuid: edge for result in results.values() for edge in result}
    stored, vectors_ms = await lists.vectors(list(by_uuid)) if recipe.fusion == "mmr" else ({}, 0.0)
    fused = time.perf_counter()
    ranked = [[edge.uuid for edge in result] for result in results.values()]
    center = None
    if recipe.fusion == "mmr":
        candidates = {uuid: stored[uuid] for uuid in by_uuid if uuid in stored}
        uuids, scores = mmr(lists.vector, candidates, config.mmr_lambda, min_score)
    elif recipe.fusion == "node_distance":
        seeded, _ = rrf(ranked, min_score=min_score)
        center = recipe.center or (by_uuid[seeded[0]].source_node_uuid if seeded else None)
        uuids, scores = await _by_node_distance(lists.driver, [by_uuid[u] for u in seeded], center, min_score)
    else:
        uuids, scores = rrf(ranked, min_score=min_score)
        if recipe.fusion == "episode_mentions":  # graphiti's stable sort: most-cited facts first, RRF within a tie
            order = sorted(range(len(uuids)), key=lambda i: -len(by_uuid[uuids[i]].episodes or ()))
            uuids, scores = [uuids[i] for i in order], [scores[i] for i in order]
    ms["fusion"] = (time.perf_counter() - fused) * 1000 + vectors_ms  # MMR's vectors as if loaded for it alone
    return FirstStage(
        edges=tuple(by_uuid[u] for u in uuids[:limit]),
        fused_scores=tuple(scores[:limit]),
        fused=tuple(uuids),
        method_ranks=_ranks(results),
        stages_ms=ms,
        alone_ms=side_by_side + ms.get("bfs", 0.0) + ms["fusion"],
        center=center,
    )


def mmr(
    query_vector: list[float], candidates: dict[str, Sequence[float]], mmr_lambda: float, min_score: float
) -> tuple[list[str], list[float]]:
    """graphiti's `maximal_marginal_relevance`, the same order and scores, with one matrix product where graphiti
    loops over every pair in Python (160 ms at 200 candidates, N=50's pool, on every query). As in graphiti: each
    candidate is L2-normalised (a zero vector kept), the query is not; a candidate's redundancy is its highest
    similarity to another candidate, or 0 (the matrix's diagonal stays 0); candidates are sorted by score, ties in
    their given order, and those below `min_score` dropped. Each similarity is summed the same way wherever it sits
    in the matrix, so identical facts stay tied (tests/unit/test_mmr.py checks it against graphiti's)."""
    uuids = list(candidates)
    if not uuids:
        return [], []
    raw = np.array([candidates[u] for u in uuids], dtype=np.float64)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    unit = np.where(norms == 0, raw, raw / np.where(norms == 0, 1.0, norms))
    similarity = np.einsum("ij,kj->ik", unit, unit)
    np.fill_diagonal(similarity, 0.0)
    relevance = np.einsum("ij,j->i", unit, np.asarray(query_vector, dtype=np.float64))
    scores = mmr_lambda * relevance + (mmr_lambda - 1) * similarity.max(axis=1)
    order = sorted(range(len(uuids)), key=lambda i: scores[i], reverse=True)
    kept = [i for i in order if scores[i] >= min_score]
    return [uuids[i] for i in kept], [float(scores[i]) for i in kept]


async def _by_node_distance(
    driver: GraphDriver, seeded: list[EntityEdge], center: str | None, min_score: float
) -> tuple[list[str], list[float]]:
    """graphiti's node-distance fusion: facts grouped by source entity, entities ordered by graphiti's
    `node_distance_reranker` from the center, RRF order within an entity. Each fact gets its source entity's
    score (graphiti returns one score per entity, so its scores do not line up with its facts)."""
    if center is None:
        return [], []
    by_source: dict[str, list[str]] = defaultdict(list)
    for edge in seeded:
        by_source[edge.source_node_uuid].append(edge.uuid)
    nodes, node_scores = await node_distance_reranker(driver, list(by_source), center, min_score=min_score)
    uuids: list[str] = []
    scores: list[float] = []
    for node, score in zip(nodes, node_scores, strict=True):
        uuids.extend(by_source[node])
        scores.extend([score] * len(by_source[node]))
    return uuids, scores
