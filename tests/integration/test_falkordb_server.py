"""A FalkorDB server reached by FALKORDB_URI: the same code path as the embedded server, on a real second
FalkorDB (tests/support/falkordb_server.py: loopback TCP port, password)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from pipeline.deals import deal_counts
from pipeline.errors import BackendUnavailable, InvalidInput
from pipeline.graph.backend import parse_falkordb_uri
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import PROJECT_ROOT
from tests.conftest import make_settings
from tests.support.falkordb_server import FalkorDBServer, falkordb_server, free_port  # noqa: F401
from tests.support.graphiti_deal import build_graphiti_deal
from tests.support.shared_graph import COMPANIES, SHARED_GRAPH, build_shared_graph

STUCK_S = 60.0  # no speed targets here (benchmarks/ has those): only a stuck connect takes a minute
QUERY = "What was Halcyon's revenue and EBITDA?"


@pytest.fixture(scope="module")
async def server_lab(falkordb_server: FalkorDBServer, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Lab]:  # noqa: F811
    """A Lab on the FalkorDB server (its own data directory for the SQLite store), with the demo deal."""
    lab = await Lab.open(make_settings(tmp_path_factory.mktemp("server-lab"), falkordb_uri=falkordb_server.uri))
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir)
    yield lab
    await lab.close()


def _one_line(text: str) -> bool:
    return "\n" not in text.strip()


async def test_a_deal_written_by_graphiti_on_the_server_is_found_and_retrieved(server_lab: Lab) -> None:
    """graphiti's own ingestion (scripted LLM, see tests/support/graphiti_deal.py) writes a deal to the server;
    the tool finds it with no bookkeeping of its own and retrieves from it, citations from source_description."""
    group = "9b2e7d10-acme-server"
    deal = await build_graphiti_deal(server_lab.backend.falkor, server_lab.embedder, group)
    try:
        listed = {d.group_id: d for d in await server_lab.deals()}
        assert group in listed and listed[group].source == "graphiti" and listed[group].embedder_dim == 384
        counts = await deal_counts(server_lab.backend, group)
        assert (counts.episodes, counts.entities, counts.facts) == (
            deal.expected.episodes,
            deal.expected.entities,
            deal.expected.facts,
        )
        assert counts.superseded_facts == deal.expected.superseded
        run = await retrieve(server_lab, "What was Acme Analytics' FY2025 revenue?", group, 10, 3, "local")
        assert any("$5.2M" in r.ranked.candidate.fact for r in run.results)
        assert all(c.document_name for r in run.results for c in r.citations)
    finally:
        await server_lab.backend.delete_graph(group)


async def test_groups_sharing_one_graph_on_the_server_are_found_and_retrieved_apart(server_lab: Lab) -> None:
    """Three groups in graphiti's `default_db` on the server (tests/support/shared_graph.py): each is a deal with
    its own counts, and a search of one returns only its facts."""
    built = await build_shared_graph(server_lab.backend.falkor, server_lab.embedder)
    try:
        listed = {d.group_id for d in await server_lab.deals()}
        assert {c.group_id for c in COMPANIES} <= listed and SHARED_GRAPH not in listed
        for company in COMPANIES:
            counts = await deal_counts(server_lab.backend, company.group_id)
            expected = built[company.group_id].expected
            assert (counts.episodes, counts.entities, counts.facts) == (
                expected.episodes,
                expected.entities,
                expected.facts,
            )
            run = await retrieve(server_lab, "What was the FY2025 revenue?", company.group_id, 10, 3, "none")
            assert run.candidates and all(company.name in c.fact for c in run.candidates)
    finally:
        await server_lab.backend.falkor.select_graph(SHARED_GRAPH).delete()  # type: ignore[union-attr]


# --- the address ------------------------------------------------------------------------------------------------


def test_uri_forms() -> None:
    a = parse_falkordb_uri("falkor://alice:s%40cret@db.example:6380")
    assert (a.host, a.port, a.username, a.password, a.tls) == ("db.example", 6380, "alice", "s@cret", False)
    assert a.location == "falkor://alice@db.example:6380" and "s@cret" not in str(a) + a.location
    b = parse_falkordb_uri("redis://:pw@127.0.0.1")
    assert (b.port, b.username, b.password, b.tls) == (6379, None, "pw", False)
    assert parse_falkordb_uri("rediss://h:1").tls and parse_falkordb_uri("falkors://h:1").tls
    for bad in ("http://h:1", "h:1", "falkor://:pw@h:port", "falkor://:pw@/", "falkor://h:1/graph", "falkor://h:1?x=1"):
        with pytest.raises(InvalidInput) as err:
            parse_falkordb_uri(bad)
        assert "pw" not in str(err.value) and _one_line(str(err.value)), bad


async def test_both_uris_set_is_one_clear_error(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, falkordb_uri="falkor://h:1", neo4j_uri="bolt://h:7687")
    with pytest.raises(InvalidInput, match="Both FALKORDB_URI and NEO4J_URI are set"):
        await Lab.open(settings)


# --- the server -------------------------------------------------------------------------------------------------


async def test_demo_deal_on_the_server_retrieves_with_citations(server_lab: Lab) -> None:
    backend = server_lab.backend
    assert backend.label == "FalkorDB server" and backend.embedded is None
    assert backend.falkor is not None and "demo" in await backend.graph_names()
    assert await backend.health() is None
    assert (await server_lab.deal("demo")).source == "demo"
    counts = await deal_counts(backend, "demo")
    assert counts.facts > 50 and counts.merges > 0
    run = await retrieve(server_lab, QUERY, "demo", 50, 10, "local")
    assert len(run.candidates) == 50 and len(run.results) == 10
    assert all(r.citations for r in run.results)
    assert all(c.document_name for r in run.results for c in r.citations)
    assert any("Halcyon" in r.ranked.candidate.fact for r in run.results)


async def test_same_answers_as_the_embedded_server(server_lab: Lab, tmp_path: Path) -> None:
    """One code path: the server and the embedded FalkorDB give the same candidates for the same deal, both seeded
    afresh (the session's demo deal carries other tests' corrections and merges, and their undos, whose traces
    move graphiti-default's ranking)."""
    embedded_lab = await Lab.open(make_settings(tmp_path / "embedded"))
    try:
        await seed_demo(embedded_lab.backend, embedded_lab.embedder, embedded_lab.settings.resolved_data_dir)
        on_server = await retrieve(server_lab, QUERY, "demo", 50, 10, "none")
        embedded = await retrieve(embedded_lab, QUERY, "demo", 50, 10, "none")
    finally:
        await embedded_lab.close()
        if embedded_lab.backend.embedded is not None:
            embedded_lab.backend.embedded.stop()
    assert on_server.candidates, "nothing found: the test proves nothing"
    assert [c.uuid for c in on_server.candidates] == [c.uuid for c in embedded.candidates]


async def test_wrong_or_missing_password_is_one_line_without_the_password(
    falkordb_server: FalkorDBServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    host, port, password = falkordb_server.address
    for uri in (f"falkor://:not-{password}@{host}:{port}", f"falkor://{host}:{port}"):
        with pytest.raises(BackendUnavailable) as err:
            await Lab.open(make_settings(tmp_path, falkordb_uri=uri))
        message = str(err.value)
        assert message.startswith(f"FalkorDB at {host}:{port}: ") and _one_line(message)
        assert password not in message and "Authentication" not in type(err.value).__name__


async def test_closed_port_and_silent_host_fail_fast(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    start = time.perf_counter()
    with pytest.raises(BackendUnavailable, match=rf"^FalkorDB at 127\.0\.0\.1:{port}: .*refused"):
        await Lab.open(make_settings(tmp_path, falkordb_uri=f"falkor://:pw@127.0.0.1:{port}"))
    assert time.perf_counter() - start < STUCK_S  # refused at once; a minute would mean it kept retrying

    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        silent_port = silent.getsockname()[1]
        start = time.perf_counter()
        with pytest.raises(BackendUnavailable, match="no answer"):
            await Lab.open(
                make_settings(tmp_path, falkordb_uri=f"falkor://127.0.0.1:{silent_port}", connect_timeout_s=0.5)
            )
        assert time.perf_counter() - start < STUCK_S  # the 0.5 s timeouts end it; a silent host never would


async def test_health_recover_and_close_on_a_server_that_stops(tmp_path: Path) -> None:
    with FalkorDBServer() as server:
        host, port, password = server.address
        lab = await Lab.open(make_settings(tmp_path, falkordb_uri=server.uri))
        try:
            assert await lab.recover() is None
            server.stop()
            problem = await lab.backend.health()
            assert problem is not None and problem.startswith(f"FalkorDB server at falkor://{host}:{port}: ")
            assert password not in problem
            with pytest.raises(BackendUnavailable) as err:
                await lab.recover()
            assert str(err.value).startswith(f"FalkorDB at {host}:{port}: ") and password not in str(err.value)
            with FalkorDBServer(password=password, port=port):  # back on the same address
                said = await lab.recover()  # None when the client already reconnected by itself
                assert said is None or said.endswith("reconnected to FalkorDB server")
                assert await lab.backend.health() is None
                assert await lab.backend.graph_names() == []  # a new server (the test server keeps nothing)
        finally:
            await lab.close()
        await lab.close()  # twice is fine


# --- the command line ---------------------------------------------------------------------------------------------


@pytest.fixture
def cli_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("NEO4J_URI", "FALKORDB_URI")}
    yield {**env, "RETRIEVAL_LAB_DATA_DIR": str(tmp_path), "RETRIEVAL_LAB_EMBEDDER": "local"}


def _status(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "status"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_status_on_the_server(falkordb_server: FalkorDBServer, cli_env: dict[str, str]) -> None:  # noqa: F811
    host, port, password = falkordb_server.address
    for uri in (falkordb_server.uri, falkordb_server.redis_uri):
        done = _status({**cli_env, "FALKORDB_URI": uri})
        assert done.returncode == 0, done.stderr
        assert f"backend:  FalkorDB server (falkor://{host}:{port})" in done.stdout
        assert password not in done.stdout + done.stderr


def test_cli_bad_uri_or_password_exits_2_with_one_line(
    falkordb_server: FalkorDBServer,  # noqa: F811
    cli_env: dict[str, str],
) -> None:
    host, port, password = falkordb_server.address
    for uri, says in (
        (f"falkor://:{password}@{host}:notaport", "FALKORDB_URI is not a FalkorDB address"),
        (f"falkor://:{password}x@{host}:{port}", f"FalkorDB at {host}:{port}: "),
    ):
        done = _status({**cli_env, "FALKORDB_URI": uri})
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and done.stderr.startswith(f"error: {says}") and _one_line(done.stderr)
        assert password not in done.stderr
