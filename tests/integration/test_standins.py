"""The test stand-ins work with the real clients: the loopback OpenAI embeddings server with the `openai`
SDK and graphiti's OpenAIEmbedder, a second password-protected FalkorDB server with the `falkordb` client
and graphiti's FalkorDriver, and Neo4j's own Cypher linter."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import falkordb.asyncio
import openai
import pytest
import redis.exceptions
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

from tests.support import cypher_lint
from tests.support.fakes.openai_server import FakeOpenAIServer, expected_embedding
from tests.support.falkordb_server import FalkorDBServer, probe

KEY = "sk-test-standins"

# --- OpenAI embeddings ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY, retry_after_ms=1) as server:
        yield server


@pytest.fixture
def fake_openai(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    openai_server.reset()
    return openai_server


def _client(server: FakeOpenAIServer, key: str = KEY, max_retries: int = 0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=key, max_retries=max_retries, timeout=10)


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))


async def test_sdk_gets_base64_by_default_and_decodes_it(fake_openai: FakeOpenAIServer) -> None:
    async with _client(fake_openai) as client:
        result = await client.embeddings.create(model="text-embedding-3-small", input=["alpha beta", "gamma"])
    assert [d.index for d in result.data] == [0, 1]
    assert [len(d.embedding) for d in result.data] == [1536, 1536]
    for d, text in zip(result.data, ["alpha beta", "gamma"], strict=True):
        assert d.embedding == pytest.approx(expected_embedding(text, 1536))
    assert result.model == "text-embedding-3-small"
    assert result.usage.prompt_tokens == result.usage.total_tokens == 3
    (request,) = fake_openai.requests_to("/v1/embeddings")
    assert request.body["encoding_format"] == "base64"  # the SDK asks for it when the caller names no format
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_float_format_dimensions_and_models(fake_openai: FakeOpenAIServer) -> None:
    async with _client(fake_openai) as client:
        short = await client.embeddings.create(
            model="text-embedding-3-small", input="one text", dimensions=256, encoding_format="float"
        )
        large = await client.embeddings.create(model="text-embedding-3-large", input="one text")
        with pytest.raises(openai.BadRequestError, match="does not support specifying dimensions"):
            await client.embeddings.create(model="text-embedding-ada-002", input="x", dimensions=8)
        with pytest.raises(openai.NotFoundError, match="does not exist"):
            await client.embeddings.create(model="no-such-model", input="x")
        with pytest.raises(openai.BadRequestError, match="input"):
            await client.embeddings.create(model="text-embedding-3-small", input="")
    (vector,) = [d.embedding for d in short.data]
    assert len(vector) == 256 and math.hypot(*vector) == pytest.approx(1.0, abs=1e-5)
    assert len(large.data[0].embedding) == 3072
    assert fake_openai.requests[0].body["encoding_format"] == "float"


async def test_vectors_are_deterministic_and_share_words(fake_openai: FakeOpenAIServer) -> None:
    async with _client(fake_openai) as client:
        texts = ["Acme raised its revenue guidance", "Acme revenue guidance", "the weather in Oslo"]
        first = await client.embeddings.create(model="text-embedding-3-small", input=texts)
        again = await client.embeddings.create(model="text-embedding-3-small", input=texts[0])
    a, b, c = (d.embedding for d in first.data)
    assert again.data[0].embedding == a
    assert _cosine(a, b) > 0.5 > _cosine(a, c)


async def test_wrong_key_is_refused_like_openai(fake_openai: FakeOpenAIServer) -> None:
    async with _client(fake_openai, key="sk-wrong-key") as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.embeddings.create(model="text-embedding-3-small", input="x")
    assert caught.value.status_code == 401
    assert caught.value.code == "invalid_api_key"
    assert caught.value.body["type"] == "invalid_request_error"
    assert "sk-wrong-key" not in caught.value.message  # the key is shown masked, as OpenAI does
    assert fake_openai.requests[-1].answered == "401"


async def test_scripted_failures_and_sdk_retries(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(["429", "500", "ok"])
    async with _client(fake_openai, max_retries=2) as client:
        result = await client.embeddings.create(model="text-embedding-3-small", input="retried")
    assert len(result.data) == 1
    assert [r.answered for r in fake_openai.requests] == ["429", "500", "ok"]

    fake_openai.script(["429"])
    async with _client(fake_openai) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await client.embeddings.create(model="text-embedding-3-small", input="x")
    assert caught.value.code == "rate_limit_exceeded"

    fake_openai.script(["503", "partial", "malformed"])
    async with _client(fake_openai) as client:
        with pytest.raises(openai.InternalServerError):
            await client.embeddings.create(model="text-embedding-3-small", input="x")
        partial = await client.embeddings.create(model="text-embedding-3-small", input=["a", "b"])
        assert len(partial.data) == 1
        with pytest.raises(ValueError):  # the SDK lets json's JSONDecodeError through unwrapped
            await client.embeddings.create(model="text-embedding-3-small", input="x")
    with pytest.raises(ValueError, match="unknown fault mode"):
        fake_openai.script(["teapot"])


async def test_hang_times_out_and_releases_on_stop() -> None:
    with FakeOpenAIServer(api_key=KEY, hang_s=30) as server:
        server.script(["hang"])
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY, max_retries=0, timeout=0.3)
        with pytest.raises(openai.APITimeoutError):
            await client.embeddings.create(model="text-embedding-3-small", input="x")
        await client.close()


async def test_graphiti_openai_embedder(fake_openai: FakeOpenAIServer) -> None:
    config = OpenAIEmbedderConfig(
        api_key=KEY, base_url=fake_openai.base_url, embedding_model="text-embedding-3-small", embedding_dim=1536
    )
    embedder = OpenAIEmbedder(config)
    vector = await embedder.create(["Acme acquired Beta Corp"])
    assert len(vector) == 1536
    assert vector == pytest.approx(expected_embedding("Acme acquired Beta Corp", 1536))
    batch = await embedder.create_batch(["one", "two", "three"])
    assert [len(v) for v in batch] == [1536] * 3

    # graphiti sends no `dimensions`: it cuts the model's vector to embedding_dim itself
    short = OpenAIEmbedder(
        OpenAIEmbedderConfig(
            api_key=KEY, base_url=fake_openai.base_url, embedding_model="text-embedding-3-large", embedding_dim=1024
        )
    )
    assert len(await short.create(["a fact"])) == 1024
    assert "dimensions" not in fake_openai.requests[-1].body
    await embedder.client.close()
    await short.client.close()


# --- a FalkorDB server on a loopback port, with a password ----------------------------------------------


@pytest.fixture(scope="module")
def falkor() -> Iterator[FalkorDBServer]:
    with FalkorDBServer() as server:
        yield server


async def test_falkordb_client_creates_and_queries_a_graph(falkor: FalkorDBServer) -> None:
    host, port, password = falkor.address
    assert host == "127.0.0.1" and port > 0
    assert falkor.uri == f"falkor://:{password}@127.0.0.1:{port}"
    assert falkor.redis_uri == f"redis://:{password}@127.0.0.1:{port}"
    db = falkordb.asyncio.FalkorDB(host=host, port=port, password=password)
    try:
        graph = db.select_graph("standins")
        await graph.query(
            "CREATE (:Entity {name: 'Acme'})-[:RELATES_TO {fact: 'Acme owns Beta'}]->(:Entity {name: 'Beta'})"
        )
        result = await graph.ro_query("MATCH (a)-[r:RELATES_TO]->(b) RETURN a.name, r.fact, b.name")
        assert result.result_set == [["Acme", "Acme owns Beta", "Beta"]]
        assert "standins" in await db.list_graphs()
    finally:
        await db.aclose()

    by_uri = falkordb.asyncio.FalkorDB.from_url(falkor.uri)
    try:
        result = await by_uri.select_graph("standins").query("MATCH (n:Entity) RETURN count(n)")
        assert result.result_set == [[2]]
    finally:
        await by_uri.aclose()


async def test_falkordb_refuses_a_wrong_or_missing_password(falkor: FalkorDBServer) -> None:
    # the async client probes the server (INFO, synchronously) while it is constructed: refusal comes there
    with pytest.raises(redis.exceptions.AuthenticationError):
        falkordb.asyncio.FalkorDB(host=falkor.host, port=falkor.port, password="wrong-password")
    with pytest.raises(redis.exceptions.AuthenticationError):
        FalkorDriver(host=falkor.host, port=falkor.port, password="wrong-password", database="deal_standins")
    with pytest.raises(redis.exceptions.AuthenticationError):
        falkordb.asyncio.FalkorDB(host=falkor.host, port=falkor.port)


async def test_graphiti_falkor_driver_runs_a_query(falkor: FalkorDBServer) -> None:
    host, port, password = falkor.address
    driver = FalkorDriver(host=host, port=port, password=password, database="deal_standins")
    try:
        records, header, _ = await driver.execute_query("RETURN 1 AS one")
        assert records == [{"one": 1}] and header == ["one"]
    finally:
        await driver.close()


def test_falkordb_server_listens_only_on_tcp_and_stops_cleanly() -> None:
    server = FalkorDBServer(password="p@ss:word/with#signs").start()
    assert server.process is not None and server.dir is not None
    pid, directory, port = server.process.pid, server.dir, server.port
    assert "p@ss" not in " ".join(server.process.args)  # the password is in a 0600 file, not in `ps`
    assert (directory / "redis.conf").stat().st_mode & 0o077 == 0
    assert server.uri == f"falkor://:p%40ss%3Aword%2Fwith%23signs@127.0.0.1:{port}"
    assert not list(directory.glob("*.sock"))
    server.stop()
    server.stop()  # twice is fine
    assert probe("127.0.0.1", port) == "down"
    assert not directory.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.uri


# --- Neo4j's Cypher linter --------------------------------------------------------------------------------


NEO4J_COSINE = """
MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
WHERE e.group_id IN $group_ids
WITH e, vector.similarity.cosine(e.fact_embedding, $search_vector) AS score
WHERE score > $min_score
RETURN e.uuid AS uuid, e.fact AS fact, score
ORDER BY score DESC
LIMIT $limit
"""
NEO4J_FULLTEXT = """
CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {limit: $limit})
YIELD relationship AS rel, score
MATCH (n:Entity)-[e:RELATES_TO {uuid: rel.uuid}]->(m:Entity)
RETURN e.uuid AS uuid, score
"""
STATEMENTS = {
    "cosine": NEO4J_COSINE,
    "fulltext": NEO4J_FULLTEXT,
    "vecf32": "RETURN vecf32([1.0])",
    "falkor_fulltext": "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $q) YIELD relationship RETURN 1",
    "syntax": "MATCH (n:Entity RETURN n",
    "deprecated": "MATCH (n:Entity) RETURN id(n)",
    "apoc": "RETURN apoc.coll.sum([1, 2])",
    "apoc_again": "RETURN apoc.coll.sum([1, 2])",
}


@pytest.fixture(scope="module")
def linter_available() -> None:
    if reason := cypher_lint.unavailable():  # the test setup installs it: missing is a failure, not a skip
        pytest.fail(reason)


@pytest.fixture(scope="module")
def raw_findings(linter_available: None) -> dict[str, list[cypher_lint.Finding]]:
    """One node run lints every statement above (node and the package take about a second to load)."""
    return cypher_lint.run(STATEMENTS)


@pytest.fixture
def findings(raw_findings: dict[str, list[cypher_lint.Finding]]) -> dict[str, list[str]]:
    return cypher_lint.keep(raw_findings)


def test_lint_valid_neo4j_statements_are_clean(
    raw_findings: dict[str, list[cypher_lint.Finding]], findings: dict[str, list[str]]
) -> None:
    assert list(findings) == list(STATEMENTS)
    assert findings["cosine"] == [] and findings["fulltext"] == []
    # what was dropped: the parameters and names the mock schema cannot know
    dropped = {f.message for f in raw_findings["cosine"] + raw_findings["fulltext"]}
    assert "Parameter $group_ids is not defined." in dropped
    assert all(cypher_lint.is_ignored(m) for m in dropped)


def test_lint_reports_unknown_functions_procedures_and_syntax(findings: dict[str, list[str]]) -> None:
    (vecf32,) = findings["vecf32"]
    assert vecf32.startswith("error 1:8: Function vecf32 is not present in the database")
    (procedure,) = findings["falkor_fulltext"]
    assert "Procedure db.idx.fulltext.queryRelationships is not present" in procedure
    assert findings["syntax"][0].startswith("error 1:17: Invalid input 'RETURN': expected a parameter")


def test_lint_keeps_deprecations_unless_errors_only(raw_findings: dict[str, list[cypher_lint.Finding]]) -> None:
    deprecated = cypher_lint.keep(raw_findings)["deprecated"]
    assert deprecated and all(f.startswith("warning 1:25: ") for f in deprecated)
    assert any("Function id is deprecated" in f for f in deprecated)
    errors = cypher_lint.keep(raw_findings, errors_only=True)
    assert errors["deprecated"] == [] and errors["vecf32"] == cypher_lint.keep(raw_findings)["vecf32"]


def test_lint_stock_neo4j_has_no_plugins_unless_asked(findings: dict[str, list[str]]) -> None:
    (apoc,) = findings["apoc"]
    assert "Function apoc.coll.sum is not present" in apoc
    assert findings["apoc_again"] == findings["apoc"]  # linted once, reported under both names
    assert cypher_lint.lint({"apoc": STATEMENTS["apoc"]}, plugins=True) == {"apoc": []}
