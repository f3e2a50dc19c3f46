"""The first stage: graphiti's hybrid edge search (BM25 + cosine + BFS, fused by RRF), method by method.

`graphiti.search_()` returns only the fused top `limit`, without the per-method lists. We run the
same searches its `edge_search` runs, with the same depth (2 x limit per method), BFS expanded from the
sources of the BM25 and cosine hits, and graphiti's own `rrf`, so the candidates are exactly those of
`search_()` with `HYBRID_SEARCH` at the same limit (a test checks this), while each method's ranks and
time are kept. BM25 and cosine run graphiti's statements without returning each hit's embedding
(pipeline/retrieval/search.py); on FalkorDB the BFS is a walk that returns graphiti's list without
enumerating every path (pipeline/retrieval/graph_walk.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from graphiti_core.driver.driver import GraphDriver, GraphProvider
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_config import EdgeSearchMethod, SearchConfig
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_bfs_search, rrf

from pipeline.retrieval.collector import collector_paused
from pipeline.retrieval.graph_walk import walk_bfs_search
from pipeline.retrieval.search import text_search, vector_search
from pipeline.timing import StageTimer

# graphiti's hybrid RRF recipe with the graph walk added; copied, never mutated (graphiti mutates recipes)
HYBRID_SEARCH: SearchConfig = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
HYBRID_SEARCH.edge_config.search_methods = [  # type: ignore[union-attr]
    EdgeSearchMethod.bm25,
    EdgeSearchMethod.cosine_similarity,
    EdgeSearchMethod.bfs,
]
# graphiti drops cosine hits under 0.6; a reranker needs the pool filled to N, so keep every neighbour
HYBRID_SEARCH.edge_config.sim_min_score = 0.0  # type: ignore[union-attr]


def fulltext_words(query: str) -> str:
    """The query for the full-text index: words with no letter or digit left out. They can match nothing, and
    graphiti's FalkorDB query builder passes a lone "_" through, which RediSearch refuses as a syntax error."""
    return " ".join(word for word in query.split() if any(ch.isalnum() for ch in word))


async def fulltext_edges(
    driver: GraphDriver, query: str, search_filter: SearchFilters, group_id: str, limit: int
) -> list[EntityEdge]:
    """graphiti's BM25 edge search (pipeline/retrieval/search.py). On FalkorDB graphiti's RediSearch group filter
    (`@group_id:"3f1c9a52\\-acme"`) matches nothing when the group id holds a character RediSearch splits words
    on (a UUID's hyphen: the indexed value is split there, the escaped filter is not). The group is the graph
    itself on FalkorDB, so for such an id the filter is left out and the group checked on the results; any other
    id keeps graphiti's query exactly."""
    if driver.provider != GraphProvider.FALKORDB or all(ch.isalnum() or ch == "_" for ch in group_id):
        return await text_search(driver, query, search_filter, [group_id], limit)
    edges = await text_search(driver, query, search_filter, None, limit)
    return [edge for edge in edges if edge.group_id == group_id]


async def bfs_edges(
    driver: GraphDriver,
    origins: list[str],
    max_depth: int,
    search_filter: SearchFilters,
    group_ids: list[str],
    limit: int,
) -> list[EntityEdge]:
    """graphiti's BFS edge search: on FalkorDB our walk, which returns the same list without enumerating every
    path (pipeline/retrieval/graph_walk.py); elsewhere graphiti's own statement."""
    if driver.provider == GraphProvider.FALKORDB:
        return await walk_bfs_search(driver, origins, max_depth, search_filter, group_ids, limit)
    return await edge_bfs_search(driver, origins, max_depth, search_filter, group_ids, limit)


def hybrid_config(limit: int) -> SearchConfig:
    config = HYBRID_SEARCH.model_copy(deep=True)
    config.limit = limit
    return config


@dataclass(frozen=True)
class FirstStage:
    edges: tuple[EntityEdge, ...]  # fused order, at most `limit`
    fused_scores: tuple[float, ...]
    method_ranks: dict[str, dict[str, int]]  # method -> edge uuid -> 1-based rank


async def hybrid_search(
    driver: GraphDriver,
    query: str,
    query_vector: list[float],
    group_id: str,
    limit: int,
    search_filter: SearchFilters,
    timer: StageTimer,
    similar: Callable[[int], Awaitable[list[EntityEdge]]] | None = None,
) -> FirstStage:
    """`similar(depth)`, when given, answers the cosine method instead of graphiti's exact scan (the vector
    index option, pipeline/vector_index); everything else is the same."""
    edge_config = HYBRID_SEARCH.edge_config
    assert edge_config is not None
    with collector_paused():
        depth = 2 * limit  # what graphiti's edge_search asks of each method
        groups = [group_id]
        nearest = (
            vector_search(driver, query_vector, search_filter, groups, depth, edge_config.sim_min_score)
            if similar is None
            else similar(depth)
        )
        bm25, cosine = await asyncio.gather(
            timer.timed("bm25", fulltext_edges(driver, fulltext_words(query), search_filter, group_id, depth)),
            timer.timed("cosine", nearest),
        )
        # graphiti walks from every hit's source, repeats included (a hub entity hundreds of times); a repeated
        # origin adds no new row to the walk's DISTINCT ones, so walking each origin once returns the same list
        origins = list(dict.fromkeys(edge.source_node_uuid for edge in (*bm25, *cosine)))
        walk = bfs_edges(driver, origins, edge_config.bfs_max_depth, search_filter, groups, depth)
        bfs = await timer.timed("bfs", walk)
        with timer.stage("fusion"):
            lists = {"bm25": bm25, "cosine": cosine, "bfs": bfs}
            by_uuid = {edge.uuid: edge for result in lists.values() for edge in result}
            fused_uuids, fused_scores = rrf([[e.uuid for e in result] for result in lists.values()])
            method_ranks: dict[str, dict[str, int]] = {name: {} for name in lists}
            for name, result in lists.items():
                for rank, edge in enumerate(result, start=1):
                    method_ranks[name].setdefault(edge.uuid, rank)
    return FirstStage(
        edges=tuple(by_uuid[u] for u in fused_uuids[:limit]),
        fused_scores=tuple(fused_scores[:limit]),
        method_ranks=method_ranks,
    )
