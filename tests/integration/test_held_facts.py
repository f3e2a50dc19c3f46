"""A deal's facts held in memory (pipeline/retrieval/held_facts.py) on the real embedded FalkorDB: the cosine list is
graphiti's statement's list (the same facts, scores within float32 rounding, the same order except among facts
whose scores tie within it), vectors are the stored ones, a write is seen before the next ranking, and a deal over
the memory budget is searched by the graph. On a deal of its own (never the shared demo), since it writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import date

import pytest
from graphiti_core.edges import EntityEdge

from pipeline.corrections.actions import CorrectionRequest, correct_fact, undo_correction
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.graph.dialects.registry import for_driver
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import parse_time, stable_uuid
from pipeline.lab import Lab
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import NO_FLOOR, MethodLists, search_recipe
from pipeline.retrieval.held_facts import HeldFacts
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.recipes import PRESETS, Recipe
from pipeline.retrieval.retrieve import rank, retrieve
from pipeline.retrieval.setting import Setting
from tests.conftest import make_settings
from tests.integration.test_recipes import RELEVANCE_FIRST_MMR

DEAL = "demo_held"
CASH = stable_uuid(DEAL, "fact", "f216")
TIE = 1e-6  # FalkorDB scores in float32: two facts this close may come in either order
QUERIES = (
    "customer concentration risk",
    "What was Halcyon's FY2025 revenue?",
    "How many FTEs does the target employ right now?",
    "status of the Freightline patent lawsuit",
    "annual recurring revenue and net retention",
    "What is Halcyon's cash balance?",
)
FILTERS = {
    "current": temporal_filter(False, None),
    "all": temporal_filter(True, None),
    "as of": temporal_filter(False, parse_time("2024-09-30")),
}

Hits = Sequence[tuple[EntityEdge, float]]


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    return DEAL


@pytest.fixture(autouse=True)
def holding(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The session's Lab holds nothing (tests/conftest.py): here it holds, as the dashboard does, and lets go."""
    monkeypatch.setattr(lab.settings, "held_facts_mb", 512)
    yield
    for group_id in (DEAL, "demo"):
        lab.facts.release(group_id)


def assert_same_modulo_ties(held: Hits, graph: Hits, what: object) -> None:
    """The same length and scores (within TIE), and in each run of tied scores the same facts; the last run may be
    cut at a different member by the limit."""
    assert len(held) == len(graph), what
    assert [s for _, s in held] == pytest.approx([s for _, s in graph], abs=TIE), what
    start = 0
    while start < len(graph):
        end = start + 1
        while end < len(graph) and graph[end - 1][1] - graph[end][1] <= TIE:
            end += 1
        if end < len(graph):
            assert {e.uuid for e, _ in held[start:end]} == {e.uuid for e, _ in graph[start:end]}, (what, start)
        start = end


async def test_the_held_cosine_list_is_graphitis_modulo_ties(lab: Lab, deal: str) -> None:
    held = await lab.facts.load(deal)
    assert held is not None and len(held.edges) > 100
    driver = lab.backend.driver(deal)
    dialect = for_driver(driver)
    compared = 0
    for query in QUERIES:
        vector = await lab.embedder.embed_query(query)
        for name, search_filter in FILTERS.items():
            for depth, floor in ((20, NO_FLOOR), (100, NO_FLOOR), (400, NO_FLOOR), (100, 0.75)):
                ours = held.similar(vector, search_filter, depth, floor)
                theirs = await dialect.edge_similarity_search(driver, vector, search_filter, [deal], depth, floor)
                assert_same_modulo_ties(ours, theirs, (query, name, depth, floor))
                compared += len(theirs)
                if floor > 0:
                    assert all(score > floor for _, score in ours)
    assert compared > 1_000


async def test_every_recipe_ranks_the_same_from_held_facts_where_no_scores_tie(lab: Lab, deal: str) -> None:
    """Where the graph's cosine list and the held one are equal, so is every recipe's first stage (the held list
    feeds graphiti's fusion exactly as the graph's does)."""
    held = await lab.facts.load(deal)
    driver = lab.backend.driver(deal)
    same = 0
    for query in QUERIES:
        vector = await lab.embedder.embed_query(query)
        for search_filter in FILTERS.values():
            for name in PRESETS:
                graph_lists = MethodLists(driver, query, vector, deal, search_filter)
                held_lists = MethodLists(driver, query, vector, deal, search_filter, held=held)
                if [e.uuid for e in (await graph_lists.cosine(100, NO_FLOOR))[0]] != [
                    e.uuid for e in (await held_lists.cosine(100, NO_FLOOR))[0]
                ]:
                    continue
                ours = await search_recipe(held_lists, Recipe.preset(name), 50)
                theirs = await search_recipe(graph_lists, Recipe.preset(name), 50)
                assert [e.uuid for e in ours.edges] == [e.uuid for e in theirs.edges], (query, name)
                assert list(ours.fused_scores) == pytest.approx(list(theirs.fused_scores)), (query, name)
                same += 1
    assert same >= len(QUERIES) * len(FILTERS) * len(PRESETS) * 0.8  # near-ties are rare on this deal


async def test_held_vectors_are_the_stored_numbers(lab: Lab, deal: str) -> None:
    held = await lab.facts.load(deal)
    assert held is not None
    driver = lab.backend.driver(deal)
    uuids = [e.uuid for e in held.edges[:50]]
    stored = await for_driver(driver).fact_vectors(driver, uuids)
    for uuid in uuids:
        vector = held.vector(uuid)
        assert vector is not None and vector.tolist() == stored[uuid]
    assert held.vector("no-such-fact") is None


async def test_a_ranking_with_held_facts_reads_no_cosine_list_and_no_vector_from_the_graph(
    lab: Lab, deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await lab.facts.load(deal)
    query = "annual recurring revenue and net retention"
    expected = await retrieve(lab, query, deal, 50, 10, "local")
    dialect = for_driver(lab.backend.driver(deal))

    async def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("read from the graph")

    monkeypatch.setattr(dialect, "edge_similarity_search", refuse)
    monkeypatch.setattr(dialect, "fact_vectors", refuse)
    mmr = Setting(RELEVANCE_FIRST_MMR, 50, "local", 10)  # MMR's fusion reads every candidate's vector
    run, mmr_run = await rank(lab, query, deal, [Setting(Recipe.preset("graphiti-default"), 50, "local", 10), mmr])
    assert [r.candidate.uuid for r in run.reranked] == [r.candidate.uuid for r in expected.reranked]
    assert run.rerank_used and mmr_run.rerank_used and len(mmr_run.candidates) > 10


async def test_a_sweep_holds_the_deals_facts_for_all_its_queries(
    lab: Lab, demo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialect = for_driver(lab.backend.driver(demo))

    async def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("read from the graph")

    monkeypatch.setattr(dialect, "edge_similarity_search", refuse)
    monkeypatch.setattr(dialect, "fact_vectors", refuse)
    spec = SweepSpec(demo, candidates=(10, 25), top_ks=(3,), rerankers=("none", "local"), limit_queries=4)
    result = await run_sweep(lab, replace(spec, use_cache=False))
    assert result.stats.pools_retrieved > 0 and all(s.metrics for s in result.settings)


async def test_a_write_is_seen_before_the_next_ranking(lab: Lab, deal: str) -> None:
    """A correction (journalled, from any process) and a write by graphiti itself (an invalidation sets
    `expired_at`) each change the stamp; the next ranking reads the deal's facts again and sees the write."""
    query = "What is Halcyon's cash balance?"
    held = await lab.facts.load(deal)
    assert held is not None and await lab.facts.fresh(deal) is held
    record = await correct_fact(
        lab,
        deal,
        CorrectionRequest(
            fact_uuid=CASH,
            statement="Halcyon's cash balance was $1.45 million at March 31, 2026.",
            channel="qa_response",
            author="Dana Whitfield (CFO, Halcyon)",
            valid_at=date(2026, 4, 2),
            source_text="Q: What is the cash balance now?\nA: $1.45 million at March 31.",
        ),
        actor="Ana",
    )
    assert await lab.facts.fresh(deal) is None  # the held facts are stale: dropped
    run = await rank(lab, query, deal, [Setting(Recipe.preset("vector"), 50, "none", 10)], hooks=RankHooks(hold=True))
    assert record.new_uuid in {r.uuid for r in run[0].results} and CASH not in {c.uuid for c in run[0].candidates}
    reloaded = await lab.facts.load(deal)
    assert reloaded is not None and reloaded is not held and record.new_uuid in reloaded.rows

    await undo_correction(lab, deal, record.id, actor="Ana")
    assert await lab.facts.fresh(deal) is None
    held = await lab.facts.load(deal)
    assert held is not None and record.new_uuid not in held.rows

    # graphiti retiring a fact: no journal entry, only the graph changes
    await lab.backend.query(
        deal, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() SET e.expired_at = '2026-11-29T00:00:00+00:00'", u=CASH
    )
    try:
        assert await lab.facts.fresh(deal) is None
        run = await rank(lab, query, deal, [Setting(Recipe.preset("vector"), 50, "none", 10)])
        assert CASH not in {c.uuid for c in run[0].candidates}
    finally:
        await lab.backend.query(deal, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() SET e.expired_at = null", u=CASH)


async def test_a_deal_over_the_budget_is_searched_by_the_graph(lab: Lab, deal: str) -> None:
    enough = HeldFacts(lab)
    held = await enough.load(deal)
    assert held is not None and 2**20 < held.nbytes < enough.budget_bytes
    for megabytes in (0, 1):  # none held at all; a budget the deal does not fit in
        holder = HeldFacts(_LabWith(lab, held_facts_mb=megabytes))  # type: ignore[arg-type]
        assert await holder.load(deal) is None and await holder.fresh(deal) is None
        holder.prefetch(deal)
        assert await holder.load(deal) is None


class _LabWith:
    """A Lab with other settings (the holder reads only `settings`, `backend` and `store`)."""

    def __init__(self, lab: Lab, **settings: object) -> None:
        self.backend, self.store = lab.backend, lab.store
        self.settings = make_settings(lab.settings.resolved_data_dir, **settings)
