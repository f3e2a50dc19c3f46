"""`RETRIEVAL_LAB_EMBEDDER=voyage[:MODEL[:DIM]]`: the Voyage embedder built from Settings, through the real
voyageai SDK, against `tests/support/fakes/voyage_server.py` (a loopback server that speaks Voyage's public
API, reached through `base_url`; no Voyage API can be reached here). Queries go with input_type "query",
stored texts with "document"; failures are one line."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from pipeline.embedders import make_embedder
from pipeline.embedders.voyage import VoyageEmbedder
from pipeline.errors import EmbedderUnavailable
from pipeline.settings import Settings
from tests.support.fakes.voyage_server import FakeVoyageServer, expected_embedding

KEY = "vk-test-embedder"
HANG_S = 120.0  # a "hang" lasts far past STUCK_S (teardown releases it at once)
STUCK_S = 60.0  # no bound on speed: only a call that never timed out takes this long


@pytest.fixture
def server() -> Iterator[FakeVoyageServer]:
    with FakeVoyageServer(api_key=KEY, hang_s=HANG_S) as fake:
        yield fake


def voyage_settings(server: FakeVoyageServer, embedder: str = "voyage", **overrides: object) -> Settings:
    values: dict[str, object] = {
        "embedder": embedder,
        "voyage_api_key": KEY,
        "voyage_base_url": server.base_url,
        "voyage_timeout_s": STUCK_S / 2,  # roomy: the stand-in answers at once; only the hang test waits
    }
    values.update(overrides)
    return Settings(**values)


@pytest.mark.parametrize("setting", ["voyage", "auto"])  # `auto` with a Voyage key is voyage-finance-2
async def test_queries_go_as_query_and_documents_as_document(server: FakeVoyageServer, setting: str) -> None:
    embedder = make_embedder(voyage_settings(server, setting))
    assert isinstance(embedder, VoyageEmbedder)
    assert embedder.info.describe() == "voyage:voyage-finance-2 (1024-d)"

    query = await embedder.embed_query("covenant breach")
    docs = await embedder.create_batch(["covenant breach in Q3", "new CFO"])  # how graphiti's bulk save embeds
    graphiti_query = await embedder.create(["covenant breach"])  # how graphiti embeds a search query

    assert query == expected_embedding("covenant breach", "query", 1024)
    assert docs == [expected_embedding(t, "document", 1024) for t in ["covenant breach in Q3", "new CFO"]]
    assert graphiti_query == query
    sent = [(r.body["model"], r.body["input_type"]) for r in server.requests_to("/v1/embeddings")]
    assert sent == [("voyage-finance-2", "query"), ("voyage-finance-2", "document"), ("voyage-finance-2", "query")]


async def test_another_voyage_model_and_a_dim_suffix(server: FakeVoyageServer) -> None:
    embedder = make_embedder(voyage_settings(server, "voyage:voyage-3.5:256"))
    assert embedder.info.describe() == "voyage:voyage-3.5 (256-d)"

    query = await embedder.embed_query("net debt")
    (doc,) = await embedder.embed_documents(["net debt fell"])

    # the first 256 components, as graphiti's VoyageAIEmbedder keeps `embedding[:embedding_dim]`
    assert query == expected_embedding("net debt", "query", 1024)[:256]
    assert doc == expected_embedding("net debt fell", "document", 1024)[:256]
    assert {r.body["model"] for r in server.requests} == {"voyage-3.5"}
    assert all(r.body.get("output_dimension") is None for r in server.requests)


async def test_no_key_and_a_wrong_key_are_one_line(server: FakeVoyageServer) -> None:
    no_key = make_embedder(voyage_settings(server, voyage_api_key=None))
    with pytest.raises(EmbedderUnavailable, match=r"^The embedder voyage:voyage-finance-2 \(1024-d\) needs an API key"):
        await no_key.embed_query("revenue")
    assert server.requests == []

    wrong = make_embedder(voyage_settings(server, voyage_api_key="vk-wrong"))
    with pytest.raises(EmbedderUnavailable) as error:
        await wrong.embed_documents(["revenue"])
    assert str(error.value) == (
        "Embedder voyage:voyage-finance-2 (1024-d): Voyage refused the API key (401): check VOYAGE_API_KEY."
    )


async def test_a_silent_voyage_is_a_timeout_not_a_hang(server: FakeVoyageServer) -> None:
    server.script(["hang"])
    embedder = make_embedder(voyage_settings(server, voyage_timeout_s=0.5))
    started = time.monotonic()
    with pytest.raises(EmbedderUnavailable, match=r"no answer from Voyage within 0.5 s|cannot reach Voyage"):
        await embedder.embed_query("revenue")
    elapsed = time.monotonic() - started
    assert 0.5 - 0.05 <= elapsed < STUCK_S  # the 0.5 s timeout ended it, not the stand-in letting go

    server.script(["partial"])
    with pytest.raises(EmbedderUnavailable, match=r"returned 1 vectors for 2 texts"):
        await embedder.embed_documents(["a", "b"])
