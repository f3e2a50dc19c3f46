"""Read-only attach, enforced by the database, on a deal graphiti itself wrote (tests/support/graphiti_deal.py).

A second Lab opens the session's embedded FalkorDB with `read_only=True` (RETRIEVAL_LAB_READ_ONLY): every read
works and leaves the graph byte-for-byte as it was; a write sent through the read path is refused by FalkorDB
(GRAPH.RO_QUERY), and our own write paths refuse first, with one line, before anything reaches the database.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from graphiti_core.nodes import EntityNode
from redis.exceptions import ResponseError

from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.errors import ReadOnly
from pipeline.graph.graphiti_compat import ReadOnlyFalkorDriver
from pipeline.ingest.beir import import_beir
from pipeline.ingest.demo.seed import reset_demo, seed_demo
from pipeline.ingest.loading import DealContent, write_deal
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities, undo_merge
from pipeline.merges.candidates import find_candidates
from pipeline.merges.records import list_merges
from pipeline.rerankers import reranker_choices
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import PROJECT_ROOT
from pipeline.temporal.timeline import FactSelection, as_of, search_entities, supersession_report, timeline
from tests.conftest import FIXTURES, make_settings
from tests.support.dump import dump_deal
from tests.support.graphiti_deal import GROUP_ID, GraphitiDeal, graphiti_deal  # noqa: F401

RO_QUERY_REFUSAL = "RO_QUERY is to be executed only on read-only queries"


@pytest.fixture(scope="module")
def acme(graphiti_deal: GraphitiDeal) -> str:  # noqa: F811
    """The graphiti-written deal: found from graphiti's own nodes, nothing of ours in its graph."""
    return GROUP_ID


@pytest.fixture(scope="module")
async def ro_lab(lab: Lab, acme: str) -> AsyncIterator[Lab]:
    """A read-only Lab on the same data directory (and so the same embedded server) as the session's `lab`."""
    ro = await Lab.open(make_settings(lab.settings.data_dir, read_only=True))
    assert ro.backend.embedded is not None and ro.backend.read_only
    yield ro
    await ro.close()


def _one_line(error: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(error.value)
    assert "\n" not in message and message.startswith("Read-only: "), message
    return message


async def test_every_read_leaves_the_graph_unchanged(ro_lab: Lab, acme: str) -> None:
    before = await dump_deal(ro_lab.backend, acme)
    assert len(before["nodes"]) == 12 + 15 and before["relationships"]  # graphiti's episodes and entities only

    assert (await ro_lab.deal(acme)).group_id == acme
    rerankers = [c.name for c in reranker_choices(ro_lab.settings) if c.available]
    assert {"none", "local"} <= set(rerankers)
    for reranker in rerankers:
        run = await retrieve(ro_lab, "What was Acme Analytics' FY2025 revenue?", acme, 20, 5, reranker)
        assert run.results and all(r.citations for r in run.results), reranker
        assert any("5.2M" in r.ranked.candidate.fact for r in run.results), reranker
    superseded = await retrieve(ro_lab, "Harbor Bank revolving credit facility", acme, 20, 5, "local", True)
    assert any(c.superseded for c in superseded.candidates)

    entity = next(e for e in await search_entities(ro_lab, acme, "Harbor") if e.name == "Harbor Bank")
    tl = await timeline(ro_lab, acme, FactSelection("entity", entity.uuid))
    assert any(f.superseded for f in tl.facts)
    answer = await as_of(ro_lab, acme, FactSelection("entity", entity.uuid), datetime(2026, 2, 1, tzinfo=UTC))
    assert answer is not None
    changes, counts = await supersession_report(ro_lab, acme)
    assert len(changes) == 2 and counts is not None
    report = await find_candidates(ro_lab, acme)
    assert report.entities == 15
    assert await list_merges(ro_lab, acme) == []

    assert await dump_deal(ro_lab.backend, acme) == before


async def test_a_write_through_the_read_path_is_refused_by_the_database(ro_lab: Lab, acme: str) -> None:
    before = await dump_deal(ro_lab.backend, acme)
    driver = ro_lab.backend.driver(acme)
    assert isinstance(driver, ReadOnlyFalkorDriver)
    for cypher in (
        "CREATE (:X {group_id: $g})",
        "MATCH (n:Entity) SET n.name = 'changed'",
        "MATCH (n) DETACH DELETE n",
    ):
        with pytest.raises(ResponseError, match=RO_QUERY_REFUSAL):  # FalkorDB's refusal, not a check of ours
            await driver.execute_query(cypher, g=acme)
    with pytest.raises(ResponseError, match=RO_QUERY_REFUSAL):  # graphiti's sessions too
        async with driver.session() as session:
            await session.run("CREATE (:X)")
    entity = EntityNode(name="Intruder", group_id=acme, labels=["Entity"], summary="")
    with pytest.raises(ResponseError, match=RO_QUERY_REFUSAL):  # and graphiti's own models
        await entity.save(driver)
    # and a clone graphiti makes per group (a missing graph: FalkorDB refuses a read-only query that would create it)
    with pytest.raises(ResponseError, match=f"{RO_QUERY_REFUSAL}|Invalid graph operation on empty key"):
        await driver.clone(database=acme + "-other").execute_query("CREATE (:X)")
    with pytest.raises(ReadOnly, match="index creation is off"):  # no index is ever built
        await driver.build_indices_and_constraints()
    assert await dump_deal(ro_lab.backend, acme) == before
    assert acme + "-other" not in await ro_lab.backend.graph_names()


async def test_our_write_paths_refuse_first_with_one_line(ro_lab: Lab, acme: str, tmp_path: Path) -> None:
    before = await dump_deal(ro_lab.backend, acme)
    fact = next(f for f in await ro_lab.backend.cypher.facts(acme) if f["invalid_at"] is None)
    entities = await ro_lab.backend.cypher.entities_with_fact_counts(acme, 2)
    request = CorrectionRequest(fact["uuid"], "A corrected statement.", "qa_response", "Analyst", date(2026, 3, 1))
    data = ro_lab.settings.resolved_data_dir
    attempts = {
        "correction": correct_fact(ro_lab, acme, request, "admin"),
        "undo correction": undo_correction(ro_lab, acme, "0" * 32, "admin"),
        "merge": merge_entities(ro_lab, acme, entities[0]["uuid"], entities[1]["uuid"], "admin"),
        "undo merge": undo_merge(ro_lab, acme, "0" * 32, "admin"),
        "seed-demo": seed_demo(ro_lab.backend, ro_lab.embedder, data, acme),
        "reset-demo": reset_demo(ro_lab, "admin", acme),
        "import-beir": import_beir(ro_lab.backend, ro_lab.embedder, data, FIXTURES / "beir_mini", acme),
        "write_deal": write_deal(ro_lab.backend, acme, DealContent([], [], []), ro_lab.embedder),
        "delete graph": ro_lab.backend.delete_graph(acme),
        "dialect write": ro_lab.backend.cypher.set_supersession(acme, fact["uuid"], None, None, None),
    }
    for what, attempt in attempts.items():
        with pytest.raises(ReadOnly) as error:
            await attempt
        assert "RETRIEVAL_LAB_READ_ONLY" in _one_line(error), what
    assert await dump_deal(ro_lab.backend, acme) == before


async def test_a_read_only_deal_leaves_the_others_writable(lab: Lab, acme: str, demo: str) -> None:
    """The per-deal setting: only the deals in `read_only_groups` are read-only."""
    before = await dump_deal(lab.backend, acme)
    assert not lab.backend.is_read_only(acme)
    lab.backend.read_only_groups.add(acme)
    try:
        assert lab.backend.is_read_only(acme) and not lab.backend.is_read_only(demo)
        assert not lab.backend.is_read_only()  # the backend as a whole is not
        with pytest.raises(ResponseError, match=RO_QUERY_REFUSAL):
            await lab.backend.driver(acme).execute_query("CREATE (:X)")
        with pytest.raises(ReadOnly) as error:
            await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, acme)
        assert f"deal {acme!r}" in _one_line(error) and "the deal's read-only setting" in str(error.value)
        assert not isinstance(lab.backend.driver(demo), ReadOnlyFalkorDriver)
        rows = await lab.backend.query(demo, "MATCH (n:Entity) WITH n LIMIT 1 SET n.rl_probe = 1 RETURN n.uuid AS u")
        assert rows  # another deal is still written
        await lab.backend.query(demo, "MATCH (n:Entity {uuid: $u}) REMOVE n.rl_probe", u=rows[0]["u"])
    finally:
        lab.backend.read_only_groups.discard(acme)
    assert not isinstance(lab.backend.driver(acme), ReadOnlyFalkorDriver)
    assert await dump_deal(lab.backend, acme) == before


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RETRIEVAL_LAB_READ_ONLY": "1"}  # the session's data directory, read-only
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_cli_in_read_only_mode(ro_lab: Lab, acme: str) -> None:
    before = await dump_deal(ro_lab.backend, acme)
    status = _cli("status")
    assert status.returncode == 0, status.stderr
    assert "read-only (RETRIEVAL_LAB_READ_ONLY)" in status.stdout and acme in status.stdout
    deals = _cli("deals", "--json")
    assert deals.returncode == 0, deals.stderr
    rows = json.loads(deals.stdout)["deals"]
    assert rows and all(row["read_only"] for row in rows)  # the whole attachment is read-only: every deal says so
    index = _cli("vector-index", "--group", acme)  # refused for being read-only, not for a missing labelled set
    assert index.returncode == 2 and "RETRIEVAL_LAB_READ_ONLY" in index.stderr, index.stderr
    unknown = _cli("vector-index", "--group", "nosuch")
    assert unknown.returncode == 2 and "nosuch" in unknown.stderr and "labelled" not in unknown.stderr
    query = _cli("query", "Acme Analytics FY2025 revenue", "--group", acme, "--reranker", "local", "--json")
    assert query.returncode == 0, query.stderr
    assert "5.2M" in query.stdout
    seed = _cli("seed-demo", "--group", acme)
    assert seed.returncode == 2 and seed.stdout == ""
    assert seed.stderr.startswith("error: Read-only: ") and "RETRIEVAL_LAB_READ_ONLY" in seed.stderr
    assert seed.stderr.count("\n") == 1
    assert await dump_deal(ro_lab.backend, acme) == before


async def test_neo4j_read_only_driver_without_a_server() -> None:
    """No Neo4j server runs here: what can be checked is that a read-only deal gets graphiti's Neo4jDriver on the
    same connection in read mode, that index creation is refused, and that our writes refuse before the network."""
    from graphiti_core.driver.neo4j_driver import Neo4jDriver
    from neo4j import READ_ACCESS

    from pipeline.graph.backend import GraphBackend
    from pipeline.graph.graphiti_compat import ReadOnlyNeo4jDriver, skip_index_creation

    root = skip_index_creation(Neo4jDriver("bolt://127.0.0.1:1", "neo4j", "pw"))
    backend = GraphBackend(kind="neo4j", location="bolt://127.0.0.1:1", neo4j=root, read_only_groups={"ro"})
    try:
        assert backend.driver("rw") is root
        driver = backend.driver("ro")
        assert (
            isinstance(driver, ReadOnlyNeo4jDriver) and driver.client is root.client and driver is backend.driver("ro")
        )
        async with driver.session() as session:
            assert session._config.default_access_mode == READ_ACCESS
        with pytest.raises(ReadOnly, match="index creation is off"):
            await driver.build_indices_and_constraints()
        with pytest.raises(ReadOnly) as error:
            await backend.cypher.delete_deal("ro")
        assert "the deal's read-only setting" in _one_line(error)
    finally:
        await backend.close()
