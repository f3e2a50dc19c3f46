"""The first stage's graph walk against graphiti's own BFS statement (`python -m benchmarks walk-parity`).

For each query, N and temporal filter, the BFS origins are the sources of the query's BM25 and cosine hits
(as in the first stage); graphiti's `edge_bfs_search` and our walk (`pipeline/graph/dialects/falkordb_walk.py`) run
from them, alternately, and the two lists are compared edge for edge, in order. Prints per setting how many
lists differ and both p50 times. FalkorDB only (the walk replays FalkorDB's own traversal order).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphiti_core.driver.driver import GraphProvider
from graphiti_core.search.search_utils import edge_bfs_search, edge_similarity_search

from pipeline.errors import InvalidInput
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import fulltext_words
from pipeline.retrieval.recipes import Recipe

if TYPE_CHECKING:
    from pipeline.lab import Lab

WALK_FILTERS = ("current", "all", "as-of")


def _filter(name: str, as_of: datetime) -> Any:
    return temporal_filter(name == "all", as_of if name == "as-of" else None)


async def walk_parity(
    lab: Lab,
    group_id: str,
    queries: Sequence[str],
    depths: Sequence[int],
    filters: Sequence[str] = WALK_FILTERS,
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    driver = lab.backend.driver(group_id)
    if driver.provider != GraphProvider.FALKORDB:
        raise InvalidInput("walk-parity compares against FalkorDB's own traversal: run it on FalkorDB.")
    edge_config = Recipe.preset("hybrid-walk").edge_config
    when = as_of or datetime.fromisoformat("2023-06-30T00:00:00+00:00")
    vectors = [await lab.embedder.embed_query(q) for q in queries]
    rows = []
    for name in filters:
        search_filter = _filter(name, when)
        for depth in depths:
            limit, differ, stock_ms, walk_ms, lengths = 2 * depth, [], [], [], []
            for query, vector in zip(queries, vectors, strict=True):
                bm25 = await FalkorQueries.edge_fulltext_search(
                    driver, fulltext_words(query), search_filter, [group_id], limit
                )
                cosine = await edge_similarity_search(
                    driver, vector, None, None, search_filter, [group_id], limit, edge_config.sim_min_score
                )
                origins = list(dict.fromkeys(e.source_node_uuid for e in (*bm25, *cosine)))
                started = time.perf_counter()
                stock = await edge_bfs_search(
                    driver, origins, edge_config.bfs_max_depth, search_filter, [group_id], limit
                )
                stock_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                ours = await FalkorQueries.edge_bfs_search(
                    driver, origins, edge_config.bfs_max_depth, search_filter, [group_id], limit
                )
                walk_ms.append((time.perf_counter() - started) * 1000)
                lengths.append(len(stock))
                if [e.uuid for e in stock] != [e.uuid for e in ours]:
                    differ.append(query)
            rows.append(
                {
                    "filter": name,
                    "candidates": depth,
                    "queries": len(queries),
                    "lists_differ": len(differ),
                    "differing_queries": differ[:5],
                    "bfs_hits_p50": statistics.median(lengths),
                    "graphiti_bfs_p50_ms": round(statistics.median(stock_ms), 1),
                    "walk_p50_ms": round(statistics.median(walk_ms), 1),
                }
            )
            print(rows[-1], flush=True)
    return rows
