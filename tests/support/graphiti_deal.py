"""A deal graph written by graphiti's own ingestion (`Graphiti.add_episode`), offline.

Our users' graphs are built by graphiti, not by our loaders; this fixture builds one the same way, with
`ScriptedLLM` in graphiti's LLM slot, so the product can be tested on exactly graphiti's shape: `Episodic` and
`Entity` nodes, `MENTIONS` and `RELATES_TO` edges, entity summaries and name embeddings, fact embeddings,
`episodes` lists on facts, citations only in each episode's `source_description`, and supersession recorded
only as graphiti records it (`invalid_at` / `expired_at` on the older fact).

The deal: twelve episodes about "Acme Analytics" (CIM and audited-accounts chunks, a management presentation,
Q&A answers, deal-team chat). Two facts are contradicted through graphiti's own invalidation step (FY2025
revenue $4.9M in the CIM, restated to $5.2M in a Q&A answer; the Harbor Bank revolver, $3.0M, upsized to
$4.0M in a chat message); one fact is restated in other words and resolved as a duplicate (its `episodes`
list then cites two episodes); "Acme Analytics" and "Acme Analytics, Inc." stay two entities (graphiti's
deterministic dedup does not merge them, the script's resolution answer keeps them apart), as do
"FY2025 revenue" and "FY2026 revenue".

Use `await build_graphiti_deal(falkor_client, embedder, group_id)`, or the session fixture `graphiti_deal`
(import it into a test module or a conftest: `from tests.support.graphiti_deal import graphiti_deal`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from falkordb.asyncio import FalkorDB
from graphiti_core import Graphiti
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.nodes import EpisodeType

from pipeline.graph.graphiti_compat import skip_index_creation
from tests.support.scripted_llm import Script, ScriptedEpisode, ScriptedFact, ScriptedLLM

GROUP_ID = "3f1c9a52-acme"  # UUID-like, as real users' group ids are
GROUP_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


# --- the deal -------------------------------------------------------------------------------------------

CIM_REVENUE = "Acme Analytics reported FY2025 revenue of $4.9M, up 32% year over year"
RESTATED_REVENUE = "Acme Analytics's FY2025 revenue is $5.2M, restated after the audit from the preliminary $4.9M"
REVOLVER = "Harbor Bank provides Acme Analytics with a $3.0M revolving credit facility maturing in 2028"
UPSIZED_REVOLVER = "Harbor Bank upsized the revolving credit facility of Acme Analytics to $4.0M on February 26, 2026"
ARR = (
    "Acme Insight Cloud, the flagship product of Acme Analytics, reached annual recurring revenue of $6.1M "
    "at December 31, 2025"
)

ACME_DEAL = Script(
    episodes=(
        ScriptedEpisode(
            name="cim.pdf p3",
            source=EpisodeType.text,
            source_description="From: cim.pdf | Page 3",
            reference_time=_t("2026-01-12T09:00:00Z"),
            content=(
                "Acme Analytics is a Boston-based provider of supply-chain analytics software. Daniel Okafor "
                "founded the company in 2016 and serves as Chief Executive Officer. Maria Chen is the Chief "
                "Financial Officer of Acme Analytics."
            ),
            entities=("Acme Analytics", "Boston", "Daniel Okafor", "Maria Chen"),
            facts=(
                ScriptedFact(
                    "Acme Analytics",
                    "Boston",
                    "HEADQUARTERED_IN",
                    "Acme Analytics is a supply-chain analytics software provider headquartered in Boston",
                    valid_at="2026-01-12T09:00:00Z",
                ),
                ScriptedFact(
                    "Daniel Okafor",
                    "Acme Analytics",
                    "FOUNDED",
                    "Daniel Okafor founded Acme Analytics in 2016",
                    valid_at="2016-01-01T00:00:00Z",
                ),
                ScriptedFact(  # no date in the extraction answer: graphiti asks its fact-dating prompt
                    "Daniel Okafor",
                    "Acme Analytics",
                    "IS_CEO_OF",
                    "Daniel Okafor is the Chief Executive Officer of Acme Analytics",
                    valid_at=None,
                    dated_at="2026-01-12T09:00:00Z",
                ),
                ScriptedFact(
                    "Maria Chen",
                    "Acme Analytics",
                    "IS_CFO_OF",
                    "Maria Chen is the Chief Financial Officer of Acme Analytics",
                    valid_at="2026-01-12T09:00:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="cim.pdf p5",
            source=EpisodeType.text,
            source_description="From: cim.pdf | Page 5",
            reference_time=_t("2026-01-12T09:05:00Z"),
            content=(
                "Acme Analytics reported FY2025 revenue of $4.9M, up 32% year over year. Its flagship product, "
                "Acme Insight Cloud, reached annual recurring revenue of $6.1M at December 31, 2025."
            ),
            entities=("Acme Analytics", "FY2025 revenue", "Acme Insight Cloud"),
            facts=(
                ScriptedFact(
                    "Acme Analytics", "FY2025 revenue", "REPORTED_REVENUE", CIM_REVENUE, valid_at="2026-01-12T09:05:00Z"
                ),
                ScriptedFact(
                    "Acme Analytics", "Acme Insight Cloud", "OFFERS_PRODUCT", ARR, valid_at="2025-12-31T00:00:00Z"
                ),
            ),
        ),
        ScriptedEpisode(
            name="cim.pdf p9",
            source=EpisodeType.text,
            source_description="From: cim.pdf | Page 9",
            reference_time=_t("2026-01-12T09:10:00Z"),
            content=(
                "Acme Analytics employs 48 full-time staff, most of them at its Boston headquarters. Harbor Bank "
                "provides Acme Analytics with a $3.0M revolving credit facility maturing in 2028."
            ),
            entities=("Acme Analytics", "Boston", "Harbor Bank"),
            facts=(
                ScriptedFact(
                    "Acme Analytics",
                    "Boston",
                    "EMPLOYS_STAFF_IN",
                    "Acme Analytics employs 48 full-time staff, most of them at its Boston headquarters",
                    valid_at="2026-01-12T09:10:00Z",
                ),
                ScriptedFact(
                    "Harbor Bank",
                    "Acme Analytics",
                    "PROVIDES_CREDIT_FACILITY_TO",
                    REVOLVER,
                    valid_at="2026-01-12T09:10:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="audited_financials.pdf p12 c3",
            source=EpisodeType.text,
            source_description="From: audited_financials.pdf | Page 12 | Chunk 3",
            reference_time=_t("2026-02-20T14:00:00Z"),
            content=(
                "Acme Analytics, Inc. - Notes to the audited financial statements for the year ended December 31, "
                "2025. Revenue recognised in FY2025 was $5.2M. Whitfield & Partners LLP audited the statements "
                "and issued an unqualified opinion."
            ),
            # the legal entity: graphiti offers "Acme Analytics" as a candidate, the script keeps them apart
            entities=("Acme Analytics, Inc.", "FY2025 revenue", "Whitfield & Partners LLP"),
            facts=(
                ScriptedFact(
                    "Acme Analytics, Inc.",
                    "FY2025 revenue",
                    "RECOGNISED_REVENUE",
                    "Acme Analytics, Inc. recognised FY2025 revenue of $5.2M in its audited financial statements",
                    valid_at="2026-02-20T14:00:00Z",
                ),
                ScriptedFact(
                    "Whitfield & Partners LLP",
                    "Acme Analytics, Inc.",
                    "AUDITED",
                    "Whitfield & Partners LLP audited the FY2025 financial statements of Acme Analytics, Inc. "
                    "and issued an unqualified opinion",
                    valid_at="2026-02-20T14:00:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="audited_financials.pdf p14 c1",
            source=EpisodeType.text,
            source_description="From: audited_financials.pdf | Page 14 | Chunk 1",
            reference_time=_t("2026-02-20T14:05:00Z"),
            content=(
                "Note 9, Borrowings: at December 31, 2025 Acme Analytics, Inc. had drawn $1.2M under its revolving "
                "credit facility with Harbor Bank."
            ),
            entities=("Acme Analytics, Inc.", "Harbor Bank"),
            facts=(
                ScriptedFact(
                    "Acme Analytics, Inc.",
                    "Harbor Bank",
                    "HAS_DRAWN_FROM",
                    "Acme Analytics, Inc. had drawn $1.2M under its revolving credit facility with Harbor Bank "
                    "at December 31, 2025",
                    valid_at="2025-12-31T00:00:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="Q&A 14",
            source=EpisodeType.text,
            source_description="Q&A answer | Question 14 | Answered by Maria Chen",
            reference_time=_t("2026-03-02T16:00:00Z"),
            content=(
                "Q: The CIM shows FY2025 revenue of $4.9M but the audited accounts show $5.2M. Which is right?\n"
                "A: Acme Analytics's FY2025 revenue is $5.2M. The $4.9M in the CIM was a preliminary figure, "
                "restated after the audit. - Maria Chen, CFO"
            ),
            entities=("Acme Analytics", "FY2025 revenue", "Maria Chen"),
            facts=(
                ScriptedFact(
                    "Acme Analytics",
                    "FY2025 revenue",
                    "REPORTED_REVENUE",
                    RESTATED_REVENUE,
                    valid_at="2026-03-02T16:00:00Z",
                    contradicts=(CIM_REVENUE,),
                ),
            ),
        ),
        ScriptedEpisode(
            name="Deal team chat 2026-03-05",
            source=EpisodeType.message,
            source_description="Chat | #acme-deal | Priya Shah",
            reference_time=_t("2026-03-05T11:30:00Z"),
            content=(
                "Priya Shah: Maria Chen confirmed on today's call that Harbor Bank upsized the Acme Analytics "
                "revolving credit facility to $4.0M on February 26, 2026."
            ),
            entities=("Priya Shah", "Maria Chen", "Harbor Bank", "Acme Analytics"),
            facts=(
                ScriptedFact(
                    "Harbor Bank",
                    "Acme Analytics",
                    "PROVIDES_CREDIT_FACILITY_TO",
                    UPSIZED_REVOLVER,
                    valid_at="2026-02-26T00:00:00Z",
                    contradicts=(REVOLVER,),
                ),
            ),
            # a new entity with no fact of its own: graphiti asks its summary prompt
            summaries={
                "Priya Shah": "Priya Shah works on the Acme Analytics deal team and relayed on March 5, 2026 that "
                "Harbor Bank upsized the Acme Analytics revolving credit facility to $4.0M.",
            },
        ),
        ScriptedEpisode(
            name="management_presentation.pdf p7",
            source=EpisodeType.text,
            source_description="From: management_presentation.pdf | Page 7",
            reference_time=_t("2026-03-09T10:00:00Z"),
            content=(
                "Acme Insight Cloud serves 140 enterprise customers. Northwind Logistics is its largest account, "
                "at 9% of FY2025 revenue."
            ),
            entities=("Acme Insight Cloud", "Northwind Logistics"),
            facts=(
                ScriptedFact(
                    "Northwind Logistics",
                    "Acme Insight Cloud",
                    "IS_CUSTOMER_OF",
                    "Northwind Logistics is the largest customer of Acme Insight Cloud, at 9% of FY2025 revenue",
                    valid_at="2026-03-09T10:00:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="Q&A 18",
            source=EpisodeType.text,
            source_description="Q&A answer | Question 18 | Answered by Maria Chen",
            reference_time=_t("2026-03-11T15:00:00Z"),
            content=(
                "Q: Please confirm the ARR of Acme Insight Cloud at year end.\n"
                "A: Acme Analytics confirms that Acme Insight Cloud ended 2025 with $6.1M of annual recurring "
                "revenue, as stated in the CIM."
            ),
            entities=("Acme Analytics", "Acme Insight Cloud"),
            facts=(
                ScriptedFact(  # same fact in other words: resolved as a duplicate, which then cites both episodes
                    "Acme Analytics",
                    "Acme Insight Cloud",
                    "OFFERS_PRODUCT",
                    "Acme Insight Cloud, the product of Acme Analytics, ended 2025 with $6.1M of annual recurring "
                    "revenue",
                    valid_at="2025-12-31T00:00:00Z",
                    duplicate_of=(ARR,),
                ),
            ),
        ),
        ScriptedEpisode(
            name="cim.pdf p11",
            source=EpisodeType.text,
            source_description="From: cim.pdf | Page 11",
            reference_time=_t("2026-03-16T09:00:00Z"),
            content=(
                "Acme Analytics management targets FY2026 revenue of $6.5M, driven by the expansion of Acme Insight "
                "Cloud into Europe."
            ),
            entities=("Acme Analytics", "FY2026 revenue", "Acme Insight Cloud", "Europe"),
            facts=(
                ScriptedFact(
                    "Acme Analytics",
                    "FY2026 revenue",
                    "TARGETS_REVENUE",
                    "Acme Analytics management targets FY2026 revenue of $6.5M",
                    valid_at="2026-03-16T09:00:00Z",
                ),
                ScriptedFact(
                    "Acme Insight Cloud",
                    "Europe",
                    "EXPANDING_INTO",
                    "Acme Insight Cloud is expanding into Europe, driving the FY2026 revenue target of $6.5M",
                    valid_at="2026-03-16T09:00:00Z",
                ),
            ),
        ),
        ScriptedEpisode(
            name="Deal team chat 2026-03-18",
            source=EpisodeType.message,
            source_description="Chat | #acme-deal | Tom Reyes",
            reference_time=_t("2026-03-18T17:45:00Z"),
            content=(
                "Tom Reyes: Harbor Bank wants a covenant waiver before closing, and Maria Chen is drafting the request."
            ),
            entities=("Tom Reyes", "Harbor Bank", "Maria Chen"),
            facts=(
                ScriptedFact(
                    "Maria Chen",
                    "Harbor Bank",
                    "DRAFTING_WAIVER_REQUEST_FOR",
                    "Maria Chen is drafting a covenant waiver request for Harbor Bank before closing",
                    valid_at="2026-03-18T17:45:00Z",
                ),
            ),
            summaries={
                "Tom Reyes": "Tom Reyes works on the Acme Analytics deal team and reported on March 18, 2026 that "
                "Harbor Bank wants a covenant waiver before closing.",
            },
        ),
        ScriptedEpisode(
            name="Q&A 27",
            source=EpisodeType.text,
            source_description="Q&A answer | Question 27 | Answered by Daniel Okafor",
            reference_time=_t("2026-03-20T12:00:00Z"),
            content=(
                "Q: Who leads the European launch?\n"
                "A: Daniel Okafor leads the launch of Acme Insight Cloud in Europe, starting with a London office "
                "in Q3 2026."
            ),
            entities=("Daniel Okafor", "Acme Insight Cloud", "Europe", "London"),
            facts=(
                ScriptedFact(
                    "Daniel Okafor",
                    "Acme Insight Cloud",
                    "LEADS_LAUNCH_OF",
                    "Daniel Okafor leads the European launch of Acme Insight Cloud",
                    valid_at=None,
                    dated_at="2026-03-20T12:00:00Z",
                ),
                ScriptedFact(
                    "Acme Insight Cloud",
                    "London",
                    "OPENING_OFFICE_IN",
                    "Acme Insight Cloud will open a London office in Q3 2026 as its first European location",
                    valid_at="2026-03-20T12:00:00Z",
                ),
            ),
        ),
    )
)


# --- what the script should produce -----------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectedShape:
    """Counts the script implies, for tests to compare with the graph graphiti wrote."""

    episodes: int
    entities: int
    facts: int  # RELATES_TO edges: every scripted fact except those resolved as duplicates
    superseded: int  # facts some later fact contradicts
    mentions: int  # MENTIONS edges: one per (episode, entity it names)
    superseded_by: dict[str, str]  # old fact text -> the fact text that contradicted it
    restated: dict[str, list[str]]  # fact text -> names of the episodes it cites (duplicates append theirs)


def expected_shape(script: Script) -> ExpectedShape:
    entities: set[str] = set()
    superseded_by: dict[str, str] = {}
    restated: dict[str, list[str]] = {}
    facts = mentions = 0
    for episode in script.episodes:
        names = {episode.duplicates.get(name, name) for name in episode.entities}
        entities |= names
        mentions += len(names)
        for fact in episode.facts:
            for old in fact.contradicts:
                superseded_by[old] = fact.fact
            if fact.duplicate_of:
                for old in fact.duplicate_of:
                    restated[old].append(episode.name)
            else:
                facts += 1
                restated[fact.fact] = [episode.name]
    return ExpectedShape(
        episodes=len(script.episodes),
        entities=len(entities),
        facts=facts,
        superseded=len(superseded_by),
        mentions=mentions,
        superseded_by=superseded_by,
        restated={k: v for k, v in restated.items() if len(v) > 1},
    )


# --- the build ----------------------------------------------------------------------------------------------


class WordOverlapCrossEncoder(CrossEncoderClient):
    """Not a cross-encoder: ranks passages by the share of the query's words they contain. graphiti needs a
    client in this slot (it would build an OpenAI reranker otherwise); ingestion and `Graphiti.search` with
    graphiti's default recipe never call it."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        words = set(query.lower().split())

        def score(passage: str) -> float:
            return len(words & set(passage.lower().split())) / len(words) if words else 0.0

        return sorted(((p, score(p)) for p in passages), key=lambda item: item[1], reverse=True)


@dataclass
class GraphitiDeal:
    group_id: str
    graphiti: Graphiti
    llm: ScriptedLLM
    script: Script
    expected: ExpectedShape
    episode_uuids: dict[str, str]  # episode name -> graphiti's uuid
    seconds: float  # time spent in add_episode, all episodes


def _driver(driver_or_falkor: FalkorDB | GraphDriver, group_id: str) -> GraphDriver:
    if isinstance(driver_or_falkor, FalkorDB):
        # in FalkorDB the group_id is the graph's name; indexes are built explicitly below
        return skip_index_creation(FalkorDriver(falkor_db=driver_or_falkor, database=group_id))
    if isinstance(driver_or_falkor, FalkorDriver):
        return driver_or_falkor.clone(database=group_id)
    return driver_or_falkor  # Neo4j: one database, group_id is a property


async def build_graphiti_deal(
    driver_or_falkor: FalkorDB | GraphDriver,
    embedder: EmbedderClient,
    group_id: str = GROUP_ID,
    script: Script = ACME_DEAL,
) -> GraphitiDeal:
    """Ingest the scripted deal through `Graphiti.add_episode`, one episode at a time, into an empty group."""
    if not GROUP_ID_PATTERN.match(group_id):
        raise ValueError(f"group_id {group_id!r} must match {GROUP_ID_PATTERN.pattern}")
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    driver = _driver(driver_or_falkor, group_id)
    llm = ScriptedLLM(script)
    graphiti = Graphiti(graph_driver=driver, llm_client=llm, embedder=embedder, cross_encoder=WordOverlapCrossEncoder())
    await graphiti.build_indices_and_constraints()
    records, _, _ = await driver.execute_query(
        "MATCH (n) WHERE n.group_id = $group_id RETURN count(n) AS n", group_id=group_id
    )
    if records and records[0]["n"]:
        raise ValueError(f"group {group_id!r} already holds {records[0]['n']} nodes; build into an empty one")

    episode_uuids: dict[str, str] = {}
    start = time.perf_counter()
    for episode in script.episodes:
        result = await graphiti.add_episode(
            name=episode.name,
            episode_body=episode.content,
            source_description=episode.source_description,
            reference_time=episode.reference_time,
            source=episode.source,
            group_id=group_id,
        )
        episode_uuids[episode.name] = result.episode.uuid
    seconds = time.perf_counter() - start
    return GraphitiDeal(
        group_id=group_id,
        graphiti=graphiti,
        llm=llm,
        script=script,
        expected=expected_shape(script),
        episode_uuids=episode_uuids,
        seconds=seconds,
    )


@pytest.fixture(scope="session")
async def graphiti_deal(lab: Any) -> AsyncIterator[GraphitiDeal]:
    """The scripted deal, ingested by graphiti once per session into the session's embedded FalkorDB.

    Do not close `deal.graphiti`: its driver shares the session's FalkorDB client."""
    if GROUP_ID in await lab.backend.graph_names():
        await lab.backend.delete_graph(GROUP_ID)
    deal = await build_graphiti_deal(lab.backend.falkor, lab.embedder, GROUP_ID)
    yield deal
