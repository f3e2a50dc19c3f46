"""Every first-stage recipe gives exactly graphiti's `search_()` with that recipe's config at limit N, on the demo
deal in the real embedded FalkorDB (current facts, superseded ones included, and as of a date)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig

from pipeline.errors import InvalidInput
from pipeline.graph.dialects.registry import for_driver
from pipeline.ingest.loading import parse_time
from pipeline.lab import Lab
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import FactVectors, FirstStage, MethodLists, search_recipe
from pipeline.retrieval.recipes import PRESETS, Recipe, custom
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.stock import graphiti_for
from tests.integration.test_retrieve import Failing

AS_OF = parse_time("2024-09-30")
# (query, N, superseded included, as of): several depths, each filter
CASES: list[tuple[str, int, bool, datetime | None]] = [
    ("customer concentration risk", 10, False, None),
    ("What was Halcyon's FY2025 revenue?", 25, False, None),
    ("How many FTEs does the target employ right now?", 50, True, None),
    ("status of the Freightline patent lawsuit", 25, False, AS_OF),
    ("annual recurring revenue and net retention", 100, True, None),
    ("customer churn", 100, False, AS_OF),
]

# MMR as graphiti weighs it (lambda 0.5) keeps next to nothing of the demo deal, whose facts repeat each other;
# weighed all on relevance, it keeps its candidates and still reads every candidate's vector
RELEVANCE_FIRST_MMR = custom(
    SearchConfig(
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
            reranker=EdgeReranker.mmr,
            mmr_lambda=1.0,
        )
    )
)


def uuids(first: FirstStage) -> list[str]:
    """graphiti's `Edge.__eq__` holds no edge equal to another (it asks for a Node): compare by uuid."""
    return [e.uuid for e in first.edges]


async def assert_same_as_graphiti(lab: Lab, group_id: str, recipe: Recipe) -> int:
    """Our first stage against graphiti's `search_()` for every case; the number of candidates seen."""
    graphiti = graphiti_for(lab, group_id, Failing())
    driver = lab.backend.driver(group_id)
    seen = 0
    for query, n, superseded, as_of in CASES:
        search_filter = temporal_filter(superseded, as_of)
        vector = await lab.embedder.embed_query(query)
        ours = await search_recipe(MethodLists(driver, query, vector, group_id, search_filter), recipe, n)
        stock = await graphiti.search_(
            query,
            recipe.search_config(n),
            group_ids=[group_id],
            search_filter=search_filter,
            center_node_uuid=ours.center,
        )
        assert [e.uuid for e in ours.edges] == [e.uuid for e in stock.edges], (recipe.key, query, n)
        # graphiti's node-distance scores are per entity and its episode-mentions scores stay in RRF order, so neither
        # lines up with its facts; ours give each fact its own
        if recipe.fusion in ("rrf", "mmr"):
            assert list(ours.fused_scores) == pytest.approx(stock.edge_reranker_scores), (recipe.key, query)
        assert len(ours.edges) <= n
        seen += len(ours.edges)
    return seen


@pytest.mark.parametrize("name", list(PRESETS))
async def test_every_preset_is_exactly_graphiti_search(lab: Lab, demo: str, name: str) -> None:
    recipe = Recipe.preset(name)
    assert await assert_same_as_graphiti(lab, demo, recipe) > 0, f"{name} found nothing: the test proves nothing"


async def test_retrieve_ranks_graphitis_candidates_for_its_recipe(lab: Lab, demo: str) -> None:
    graphiti = graphiti_for(lab, demo, Failing())
    for name, (query, n, superseded, as_of) in zip(("graphiti-default", "hybrid-walk"), CASES[3:5], strict=True):
        recipe = Recipe.preset(name)
        run = await retrieve(lab, query, demo, n, 10, "none", superseded, as_of, recipe=recipe)
        stock = await graphiti.search_(
            query, recipe.search_config(n), group_ids=[demo], search_filter=temporal_filter(superseded, as_of)
        )
        assert [c.uuid for c in run.candidates] == [e.uuid for e in stock.edges] and run.recipe == name
        assert [c.fused_score for c in run.candidates] == pytest.approx(stock.edge_reranker_scores)


async def test_mmr_loads_each_facts_vector_once_per_query_across_depths(lab: Lab, demo: str) -> None:
    query = "annual recurring revenue and net retention"
    driver = lab.backend.driver(demo)
    vector = await lab.embedder.embed_query(query)
    lists = MethodLists(driver, query, vector, demo, temporal_filter(True, None))
    asked: list[str] = []
    dialect = lists.dialect

    class Counting(dialect):  # type: ignore[misc, valid-type]
        @classmethod
        async def fact_vectors(cls, driver, uuids):  # type: ignore[no-untyped-def]
            asked.extend(uuids)
            return await dialect.fact_vectors(driver, uuids)

    lists.dialect = Counting
    shared = [await search_recipe(lists, RELEVANCE_FIRST_MMR, n) for n in (25, 50, 25)]
    assert asked and len(asked) == len(set(asked))  # no fact's vector loaded twice
    # the same candidates as a first stage that loaded its own vectors, and a time that includes a load
    for n, first in zip((25, 50, 25), shared, strict=True):
        lone = MethodLists(driver, query, vector, demo, temporal_filter(True, None))
        alone = await search_recipe(lone, RELEVANCE_FIRST_MMR, n)
        assert uuids(first) == uuids(alone) and first.fused_scores == alone.fused_scores and uuids(first)
        assert first.stages_ms["fusion"] > 0


async def test_queries_sharing_fact_vectors_read_each_once_and_rank_as_alone(lab: Lab, demo: str) -> None:
    driver, search_filter = lab.backend.driver(demo), temporal_filter(True, None)
    dialect = for_driver(driver)
    asked: list[str] = []

    class Counting(dialect):  # type: ignore[misc, valid-type]
        @classmethod
        async def fact_vectors(cls, driver, uuids):  # type: ignore[no-untyped-def]
            asked.extend(uuids)
            return await dialect.fact_vectors(driver, uuids)

    async def mmr_first_stage(query: str, known: FactVectors) -> tuple[FirstStage, list[str]]:
        asked.clear()
        lists = MethodLists(driver, query, await lab.embedder.embed_query(query), demo, search_filter, known=known)
        lists.dialect = Counting
        return await search_recipe(lists, RELEVANCE_FIRST_MMR, 50), list(asked)

    shared = FactVectors()
    first, first_read = await mmr_first_stage("How many FTEs does the target employ right now?", shared)
    second, second_read = await mmr_first_stage("What was Halcyon's FY2025 revenue?", shared)
    alone, alone_read = await mmr_first_stage("What was Halcyon's FY2025 revenue?", FactVectors())
    assert first.edges and second.edges, "MMR kept nothing: the test proves nothing"
    assert uuids(second) == uuids(alone) and second.fused_scores == alone.fused_scores
    assert set(first_read) & set(alone_read), "the queries share no fact: the test proves nothing"
    assert sorted(second_read) == sorted(set(alone_read) - set(first_read))  # a fact read before is not read again


async def test_node_distance_measures_from_the_best_hits_source_or_a_given_center(lab: Lab, demo: str) -> None:
    driver = lab.backend.driver(demo)
    query, search_filter = "Who is the CEO?", temporal_filter(False, None)
    vector = await lab.embedder.embed_query(query)
    lists = MethodLists(driver, query, vector, demo, search_filter)
    hybrid = await search_recipe(lists, Recipe.preset("graphiti-default"), 10)
    auto = await search_recipe(lists, Recipe.preset("node-distance"), 10)
    assert auto.center == hybrid.edges[0].source_node_uuid  # RRF of BM25 and cosine, as graphiti-default ranks
    other = next(e.target_node_uuid for e in hybrid.edges if e.target_node_uuid != auto.center)
    given = Recipe.parse(f"node-distance@{other}")
    assert given.center == other and given.key == f"node-distance@{other}"
    assert (await search_recipe(lists, given, 10)).center == other
    assert await assert_same_as_graphiti(lab, demo, given) > 0


async def test_a_pasted_custom_config_is_exactly_graphiti_search(lab: Lab, demo: str, tmp_path: Path) -> None:
    config = SearchConfig(
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.bfs],
            reranker=EdgeReranker.rrf,
            bfs_max_depth=2,
        ),
        limit=7,  # a setting's N replaces it
    )
    path = tmp_path / "production.json"
    path.write_text(config.model_dump_json())
    recipe = Recipe.parse(str(path))
    assert recipe.name == "custom" and recipe.key.startswith("custom-") and recipe.methods == ("bm25", "bfs")
    assert recipe.search_config(25).limit == 25
    assert await assert_same_as_graphiti(lab, demo, recipe) > 0

    # an edge config alone is read too; a pasted preset is that preset
    path.write_text(PRESETS["mmr"].edge_config.model_dump_json())  # type: ignore[union-attr]
    assert Recipe.parse(str(path)) == Recipe.preset("mmr")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("hybrid", "Unknown recipe 'hybrid'"),
        ("vector@abc", "Only node-distance takes a center"),
        ('{"edge_config": null}', "has no edge_config"),
        ('{"search_methods": []}', "has no edge_config with search methods"),
        ('{"search_methods": ["bm25"], "reranker": "cross_encoder"}', "not a first-stage fusion"),
        ('{"search_methods": ["sql"]}', "not a graphiti SearchConfig"),
        ("[1, 2", "not a graphiti SearchConfig"),
        ("7", "not a graphiti SearchConfig"),
    ],
)
def test_a_bad_recipe_is_refused_in_one_line(tmp_path: Path, text: str, says: str) -> None:
    if text.startswith(("{", "[", "7")):
        path = tmp_path / "config.json"
        path.write_text(text)
        text = str(path)
    with pytest.raises(InvalidInput, match=says) as refused:
        Recipe.parse(text)
    assert "\n" not in str(refused.value)


def test_a_custom_recipe_key_follows_its_config() -> None:
    base = SearchConfig(edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25], bfs_max_depth=2))
    deeper = SearchConfig(edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25], bfs_max_depth=4))
    assert custom(base).key == custom(base.model_copy(deep=True)).key != custom(deeper).key
    assert json.loads(custom(base).config_json)["limit"] == 10  # stored without the pasted limit's meaning
