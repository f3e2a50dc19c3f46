"""The chosen setting as code a team pastes into its service: graphiti's `SearchConfig`, the `search_()` call at
limit N, and the reranker call cut to k.

The module written is self-contained for the first stage (graphiti only) and for Voyage and Cohere (their SDKs, with
this tool's model names). `local` is this tool's offline re-scorer, not a cross-encoder: the module then imports it
from this package and says so. Its top k is the tool's top k for the same query (`tests/integration/test_ship.py`).
"""

from __future__ import annotations

from pipeline.evaluation.records import SettingResult, SweepResult
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.rerankers.specs import spec as reranker_spec
from pipeline.retrieval.filters import temporal_filter
from pipeline.settings import Settings

_HEAD = '''"""Retrieval setting chosen with Retrieval Lab: {label}.

{why}
Deal {group!r}, {queries} judged queries, {when}. Call `await retrieve(graphiti, query, group_ids)`: the top k facts.
"""

from __future__ import annotations

from graphiti_core import Graphiti
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_config import EdgeReranker, SearchConfig
from graphiti_core.search.search_filters import SearchFilters

# graphiti's search recipe {recipe!r} (its limit is set to N below)
SEARCH_CONFIG = SearchConfig.model_validate_json({config!r})
# {filter_note}
SEARCH_FILTER = SearchFilters.model_validate_json({search_filter!r})
CANDIDATES = {n}  # N: first-stage candidates handed to the reranker
TOP_K = {k}  # k: facts handed on
CENTER_NODE_UUID: str | None = {center!r}


async def first_stage(graphiti: Graphiti, query: str, group_ids: list[str]) -> list[EntityEdge]:
    """graphiti's search with the recipe at limit N."""
    config = SEARCH_CONFIG.model_copy(deep=True)
    config.limit = CANDIDATES
    center = CENTER_NODE_UUID
    if config.edge_config is not None and config.edge_config.reranker == EdgeReranker.node_distance and center is None:
        # no center given: the source entity of the best BM25/cosine hit (RRF of the same lists), as Retrieval Lab
        # and graphiti's quickstart pick it
        seed = config.model_copy(deep=True)
        seed.edge_config.reranker = EdgeReranker.rrf  # type: ignore[union-attr]
        found = await graphiti.search_(query, seed, group_ids=group_ids, search_filter=SEARCH_FILTER)
        if not found.edges:
            return []
        center = found.edges[0].source_node_uuid
    results = await graphiti.search_(
        query, config, group_ids=group_ids, search_filter=SEARCH_FILTER, center_node_uuid=center
    )
    return results.edges


async def retrieve(graphiti: Graphiti, query: str, group_ids: list[str]) -> list[EntityEdge]:
    """The top k facts for `query`: the first stage at N, reranked, cut at k."""
    edges = await first_stage(graphiti, query, group_ids)
    if not edges:
        return []
    return (await rerank(graphiti, query, edges))[:TOP_K]
'''

_RERANK = {
    "none": '''

async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """No reranker: the first stage's order."""
    return edges
''',
    "voyage": '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Voyage's reranker over all N (VOYAGE_API_KEY from the environment)."""
    import voyageai

    client = voyageai.AsyncClient()
    found = await client.rerank(query, [e.fact for e in edges], model=RERANK_MODEL, truncation=True)
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
''',
    "cohere": '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Cohere's reranker over all N (COHERE_API_KEY / CO_API_KEY from the environment)."""
    import cohere

    client = cohere.AsyncClientV2()
    found = await client.rerank(model=RERANK_MODEL, query=query, documents=[e.fact for e in edges], top_n=len(edges))
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
''',
    "local": '''

async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Retrieval Lab's offline re-scorer (embedding similarity and BM25 over the pool), imported from the
    retrieval-lab package: it is not a cross-encoder. A service would measure Voyage or Cohere the same way and ship
    one of those."""
    from pipeline.rerankers import make_reranker
    from pipeline.retrieval.rerank import rank_order, score_pool
    from pipeline.settings import get_settings

    ranker = make_reranker("local", get_settings())
    assert ranker is not None
    outcome = await score_pool(graphiti.driver, ranker, query, [e.uuid for e in edges], [e.fact for e in edges])
    return [edges[i] for i in rank_order(outcome.scores)]
''',
}


def setting_module(result: SweepResult, key: str, settings: Settings, experiment: str = "") -> str:
    """The Python module of one setting of a sweep (by key), with the recommendation's numbers when it is the
    recommended one."""
    chosen: SettingResult = result.setting(key)
    spec = result.spec
    recipe = spec.recipe(chosen.recipe)
    rec = result.recommendation()
    base = result.setting(result.baseline)
    if rec.key == key and rec.beats_baseline:
        why = f"Recommended: {rec.sentence}"
    else:
        why = f"nDCG@k {chosen.metric('ndcg@k'):.3f}; the baseline ({base.key}) {base.metric('ndcg@k'):.3f}."
    if settings.graph_backend != "neo4j" and FalkorQueries.fulltext_groups([spec.group_id]) is None:
        why += (
            f"\nWARNING: on FalkorDB, graphiti's full-text search finds nothing in group {spec.group_id!r} (RediSearch "
            "splits the id where graphiti's filter does not), so search_() below runs without BM25 and its top k "
            "can differ from the one measured, which searched without that filter."
        )
    when = "current facts"
    if spec.as_of:
        when = f"facts valid on {spec.as_of}"
    elif spec.include_superseded:
        when = "superseded facts included"
    search_filter = temporal_filter(spec.include_superseded, spec.as_of_datetime())
    reranker = reranker_spec(chosen.reranker)  # its model setting (none, local: no model)
    model = reranker.model(settings) if reranker else ""
    head = _HEAD.format(
        label=f"{chosen.recipe} + {chosen.reranker}, N={chosen.candidates}, k={chosen.top_k}",
        why=why,
        group=spec.group_id,
        queries=result.stats.queries,
        when=f"{when}{', experiment ' + experiment if experiment else ''}",
        recipe=recipe.key,
        config=recipe.config.model_dump_json(),
        filter_note=f"the sweep's filter: {when}",
        search_filter=search_filter.model_dump_json(),
        n=chosen.candidates,
        k=chosen.top_k,
        center=recipe.center,
    )
    return head + _RERANK[chosen.reranker].format(model=model)
