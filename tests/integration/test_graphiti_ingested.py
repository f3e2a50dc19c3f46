"""The graphiti-ingested deal fixture has exactly graphiti's shape (tests/support/graphiti_deal.py).

The deal is written by `Graphiti.add_episode` with a scripted LLM, into the session's embedded FalkorDB; these
tests pin what the product will meet on a user's graph: node labels, relationship types and properties are
graphiti's alone, supersession is only graphiti's `invalid_at` / `expired_at`, citations are only the episodes'
`source_description`.
"""

from __future__ import annotations

import re

import pytest
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodicNode
from graphiti_core.prompts.extract_nodes import ExtractedEntities
from graphiti_core.prompts.models import Message
from graphiti_core.prompts.summarize_nodes import Summary

from pipeline.lab import Lab
from tests.support.graphiti_deal import (
    ACME_DEAL,
    GROUP_ID,
    RESTATED_REVENUE,
    GraphitiDeal,
    graphiti_deal,  # noqa: F401 (the session fixture)
)
from tests.support.scripted_llm import ScriptedCall, ScriptedLLM, UnscriptedPrompt

EMBEDDING_DIM = 384  # the local all-MiniLM-L6-v2
GRAPHITI_LABELS = {"Entity", "Episodic", "Community", "Saga"}
GRAPHITI_RELATIONSHIPS = {"MENTIONS", "RELATES_TO", "HAS_MEMBER", "HAS_EPISODE", "NEXT_EPISODE"}
# what graphiti writes for each kind (its models' fields; no custom entity or edge types, so no attributes)
GRAPHITI_KEYS = {
    "Entity": set(EntityNode.model_fields) - {"labels", "attributes"},
    "Episodic": set(EpisodicNode.model_fields) - {"labels"},
    "RELATES_TO": set(EntityEdge.model_fields) - {"attributes"},
    "MENTIONS": set(EpisodicEdge.model_fields),
}


async def _rows(lab: Lab, cypher: str, **params: object) -> list[dict]:
    return await lab.backend.query(GROUP_ID, cypher, **params)


async def _facts(lab: Lab) -> dict[str, dict]:
    rows = await _rows(
        lab,
        """
        MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
        RETURN r.uuid AS uuid, r.fact AS fact, a.uuid AS source, b.uuid AS target, r.valid_at AS valid_at,
               r.invalid_at AS invalid_at, r.expired_at AS expired_at, r.episodes AS episodes,
               r.fact_embedding AS embedding
        """,
    )
    return {row["fact"]: row for row in rows}


async def test_counts_are_as_scripted(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    expected = graphiti_deal.expected
    # the script's own arithmetic, pinned so a change to the deal is a deliberate one
    assert (expected.episodes, expected.entities, expected.facts, expected.superseded, expected.mentions) == (
        12,
        15,
        19,
        2,
        37,
    )
    counts = {r["label"]: r["n"] for r in await _rows(lab, "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n")}
    assert counts == {"Episodic": expected.episodes, "Entity": expected.entities}
    rels = {r["type"]: r["n"] for r in await _rows(lab, "MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS n")}
    assert rels == {"RELATES_TO": expected.facts, "MENTIONS": expected.mentions}


async def test_every_episode_mentions_its_entities(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    rows = await _rows(
        lab,
        "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) RETURN e.name AS episode, collect(n.name) AS entities",
    )
    mentioned = {r["episode"]: set(r["entities"]) for r in rows}
    assert mentioned == {ep.name: set(ep.entities) for ep in ACME_DEAL.episodes}


async def test_episodes_carry_citations_only_in_source_description(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    rows = await _rows(
        lab, "MATCH (e:Episodic) RETURN e.uuid AS uuid, e.name AS name, e.source AS source, e.source_description AS d"
    )
    by_name = {r["name"]: r for r in rows}
    for episode in ACME_DEAL.episodes:
        row = by_name[episode.name]
        assert row["uuid"] == graphiti_deal.episode_uuids[episode.name]
        assert row["source"] == episode.source.value
        assert row["d"] == episode.source_description
    chunk = by_name["audited_financials.pdf p12 c3"]["d"]
    assert re.fullmatch(r"From: (?P<doc>[^|]+?) \| Page (?P<page>\d+) \| Chunk (?P<chunk>\d+)", chunk)
    assert {r["source"] for r in rows} == {"text", "message"}


async def test_contradiction_went_through_graphitis_invalidation(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    facts = await _facts(lab)
    pairs = graphiti_deal.expected.superseded_by
    assert len(pairs) == 2
    for old_text, new_text in pairs.items():
        old, new = facts[old_text], facts[new_text]
        scripted_old, scripted_new = ACME_DEAL.fact(old_text), ACME_DEAL.fact(new_text)
        assert scripted_old is not None and scripted_new is not None
        assert scripted_old[1].invalid_at is None  # the script never ended it: graphiti did
        # graphiti asked its fact-resolution prompt while ingesting the contradicting episode
        resolution = ScriptedCall("dedupe_edges.resolve_edge", "EdgeDuplicate", scripted_new[0].name)
        assert resolution in graphiti_deal.llm.calls
        assert old["invalid_at"] is not None and old["invalid_at"] == new["valid_at"]
        assert old["expired_at"] is not None  # graphiti's wall-clock time of the invalidation
        assert new["invalid_at"] is None and new["expired_at"] is None
        assert (old["source"], old["target"]) == (new["source"], new["target"])
    # every other fact is current
    assert {f for f, row in facts.items() if row["invalid_at"] is not None} == set(pairs)


async def test_duplicate_fact_cites_both_episodes(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    facts = await _facts(lab)
    restated = graphiti_deal.expected.restated
    assert len(restated) == 1
    for text, episode_names in restated.items():
        assert facts[text]["episodes"] == [graphiti_deal.episode_uuids[name] for name in episode_names]


async def test_embeddings_and_summaries(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    facts = await _facts(lab)
    assert {len(row["embedding"]) for row in facts.values()} == {EMBEDDING_DIM}
    entities = await _rows(
        lab, "MATCH (n:Entity) RETURN n.name AS name, n.summary AS summary, n.name_embedding AS embedding"
    )
    assert len(entities) == graphiti_deal.expected.entities
    assert all(row["summary"] and row["summary"].strip() for row in entities)
    assert {len(row["embedding"]) for row in entities} == {EMBEDDING_DIM}
    by_name = {row["name"]: row["summary"] for row in entities}
    # an entity with no fact gets its summary from the (scripted) summary prompt
    assert by_name["Priya Shah"] == ACME_DEAL.episodes[6].summaries["Priya Shah"]
    # near-duplicates that graphiti did not merge: candidates for our merge review
    assert {"Acme Analytics", "Acme Analytics, Inc.", "FY2025 revenue", "FY2026 revenue"} <= set(by_name)


async def test_only_graphitis_labels_types_and_properties(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    nodes = await _rows(lab, "MATCH (n) RETURN DISTINCT labels(n) AS labels, keys(n) AS keys")
    for row in nodes:
        assert set(row["labels"]) <= GRAPHITI_LABELS, row
        (label,) = row["labels"]
        assert set(row["keys"]) <= GRAPHITI_KEYS[label], (label, set(row["keys"]) - GRAPHITI_KEYS[label])
    rels = await _rows(lab, "MATCH ()-[r]->() RETURN DISTINCT type(r) AS type, keys(r) AS keys")
    for row in rels:
        assert row["type"] in GRAPHITI_RELATIONSHIPS, row
        assert set(row["keys"]) <= GRAPHITI_KEYS[row["type"]], (row["type"], set(row["keys"]))
    assert not [k for row in rels for k in row["keys"] if k in {"supersedes", "superseded_by", "citation"}]


async def test_scripted_llm_answered_every_scripted_prompt_and_nothing_else(
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    llm = graphiti_deal.llm
    assert llm.failures == []
    asked = {call.response_model for call in llm.calls}
    assert asked == llm.scripted_models
    prompts = {call.prompt_name for call in llm.calls}
    assert {"extract_nodes.extract_text", "extract_nodes.extract_message", "dedupe_edges.resolve_edge"} <= prompts
    # every episode was answered for by name: the key the script uses
    assert {call.episode for call in llm.calls} == {ep.name for ep in ACME_DEAL.episodes}


async def test_unknown_prompt_fails_loudly() -> None:
    llm = ScriptedLLM(ACME_DEAL)
    messages = [
        Message(role="system", content="summarise"),
        Message(role="user", content=ACME_DEAL.episodes[0].content),
    ]
    with pytest.raises(UnscriptedPrompt, match="response_model Summary"):
        await llm.generate_response(messages, response_model=Summary, prompt_name="summarize_nodes.summarize_pair")
    assert llm.failures and "Summary" in llm.failures[0]
    # a scripted response model for an episode the script does not know fails too
    stranger = [
        Message(role="system", content="extract"),
        Message(role="user", content="<TEXT>\nsomething else\n</TEXT>"),
    ]
    with pytest.raises(UnscriptedPrompt, match=r"ExtractedEntities.*no scripted episode"):
        await llm.generate_response(stranger, response_model=ExtractedEntities)
    assert llm.calls == []


async def test_graphitis_own_search_finds_the_current_revenue_fact(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    current = (await _facts(lab))[RESTATED_REVENUE]
    edges = await graphiti_deal.graphiti.search("FY2025 revenue", group_ids=[GROUP_ID])
    found = {edge.uuid: edge for edge in edges}
    assert current["uuid"] in found
    assert found[current["uuid"]].invalid_at is None


async def test_build_time_is_reported(graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    print(f"graphiti ingested {graphiti_deal.expected.episodes} episodes in {graphiti_deal.seconds:.1f} s")
    assert graphiti_deal.seconds > 0
