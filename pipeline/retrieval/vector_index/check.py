"""Recall of the vector index against exact search, measured on one deal over a set of queries.

For each query both first stages run at N (current facts, as a page runs them): the pool recall is the share of
exact search's N candidates that the index's first stage also returns (what a reranker gets to see), the cosine
recall the same for the cosine method's own 2 x N list. Timings are those of the cosine method alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from pipeline.deals import deal_counts
from pipeline.errors import InvalidInput
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import FirstStage, MethodLists, search_recipe
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.vector_index.records import RecallCheck
from pipeline.retrieval.vector_index.search import indexed_similarity_search
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab


def _overlap(exact: Sequence[str], approx: Sequence[str]) -> float:
    return len(set(exact) & set(approx)) / len(exact) if exact else 1.0


async def check_recall(lab: Lab, group_id: str, queries: Sequence[str], num_candidates: int) -> RecallCheck:
    if not queries:
        raise InvalidInput(f"No queries to measure the vector index of deal {group_id!r} with.")
    index = await lab.backend.cypher.fact_vector_index(group_id)
    if index is None or not index.ready:
        raise InvalidInput(f"Deal {group_id!r} has no ready vector index.")
    driver = lab.backend.driver(group_id)
    search_filter = temporal_filter(False, None)
    similar = partial(indexed_similarity_search, lab.backend, driver, group_id)
    recipe = Recipe.preset("hybrid-walk")  # no cosine floor, as the index has none: the two differ only by the index
    pool, cosine, exact_ms, index_ms = [], [], [], []
    for query in queries:
        vector = await lab.embedder.embed_query(query)
        runs: list[tuple[FirstStage, float]] = []
        for nearest in (None, partial(similar, vector, search_filter)):
            lists = MethodLists(driver, query, vector, group_id, search_filter, nearest)
            stage = await search_recipe(lists, recipe, num_candidates)
            runs.append((stage, stage.stages_ms["cosine"]))
        (exact, exact_t), (approx, index_t) = runs
        pool.append(_overlap([e.uuid for e in exact.edges], [e.uuid for e in approx.edges]))
        cosine.append(_overlap(list(exact.method_ranks["cosine"]), list(approx.method_ranks["cosine"])))
        exact_ms.append(exact_t)
        index_ms.append(index_t)
    counts = await deal_counts(lab.backend, group_id)
    return RecallCheck(
        group_id=group_id,
        created_at=now_iso(),
        facts=counts.facts,
        queries=len(queries),
        candidates=num_candidates,
        pool_recall=float(np.mean(pool)),
        cosine_recall=float(np.mean(cosine)),
        exact_ms_p50=float(np.median(exact_ms)),
        index_ms_p50=float(np.median(index_ms)),
    )
