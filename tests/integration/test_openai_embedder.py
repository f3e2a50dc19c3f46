"""`RETRIEVAL_LAB_EMBEDDER=openai:MODEL[:DIM]`: our embedder over graphiti's own `OpenAIEmbedder`, built from
Settings (OPENAI_API_KEY, OPENAI_BASE_URL), talking to `tests/support/fakes/openai_server.FakeOpenAIServer`.

No OpenAI API can be reached here: the fake is a loopback HTTP server that speaks OpenAI's embeddings
endpoint, and the real openai SDK reaches it through `base_url`, exactly as it would reach an
OpenAI-compatible server. Nothing in the application is mocked. The fake's vectors are deterministic
(`expected_embedding`), so the assertions are exact.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphiti_core.edges import EntityEdge

from pipeline.embedders import make_embedder
from pipeline.embedders.openai import OpenAIEmbedder
from pipeline.errors import EmbedderUnavailable, RetrievalLabError
from pipeline.ingest.beir import import_beir
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import Settings
from tests.support.fakes.openai_server import FakeOpenAIServer, expected_embedding

KEY = "sk-test-embedder"
MODEL = "text-embedding-3-small"
HANG_S = 120.0  # a "hang" lasts far past STUCK_S (teardown releases it at once)
STUCK_S = 60.0  # no bound on speed: only a call that never timed out takes this long


@pytest.fixture(scope="module")
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY, hang_s=HANG_S, retry_after_ms=1) as server:
        yield server


@pytest.fixture
def fake(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    openai_server.reset()
    return openai_server


def openai_settings(server: FakeOpenAIServer, embedder: str = f"openai:{MODEL}", **overrides: object) -> Settings:
    values: dict[str, object] = {
        "embedder": embedder,
        "openai_api_key": KEY,
        "openai_base_url": server.base_url,
        "openai_timeout_s": STUCK_S / 2,  # roomy: the stand-in answers at once; only the hang test waits
        "openai_max_retries": 0,
    }
    values.update(overrides)
    return Settings(**values)


def _bodies(server: FakeOpenAIServer) -> list[dict[str, object]]:
    return [r.body for r in server.requests_to("/v1/embeddings")]


async def test_text_embedding_3_small_gives_1536_d_for_queries_and_batches(fake: FakeOpenAIServer) -> None:
    embedder = make_embedder(openai_settings(fake))
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.info.describe() == "openai:text-embedding-3-small (1536-d)"

    query = await embedder.embed_query("revenue growth in 2025")
    docs = await embedder.embed_documents(["Acme revenue grew 12%", "the CFO resigned", ""])
    graphiti_query = await embedder.create(["revenue growth in 2025"])  # how graphiti embeds a search query
    graphiti_batch = await embedder.create_batch(["Acme revenue grew 12%"])

    assert len(query) == 1536 and [len(v) for v in docs] == [1536, 1536, 1536]
    assert query == pytest.approx(expected_embedding("revenue growth in 2025", 1536))
    assert docs[0] == pytest.approx(expected_embedding("Acme revenue grew 12%", 1536))
    assert docs[1] == pytest.approx(expected_embedding("the CFO resigned", 1536))
    assert graphiti_query == query and graphiti_batch == docs[:1]
    bodies = _bodies(fake)
    assert [b["model"] for b in bodies] == [MODEL] * 4
    assert [b["input"] for b in bodies] == [
        ["revenue growth in 2025"],
        ["Acme revenue grew 12%", "the CFO resigned", " "],  # the API refuses "": a blank text is sent as " "
        ["revenue growth in 2025"],
        ["Acme revenue grew 12%"],
    ]
    # graphiti's OpenAIEmbedder asks for the full vector and cuts it itself: no `dimensions` is sent
    assert all(b.get("dimensions") is None for b in bodies)
    assert {r.headers["authorization"] for r in fake.requests} == {f"Bearer {KEY}"}


async def test_a_dim_suffix_keeps_that_many_components(fake: FakeOpenAIServer) -> None:
    embedder = make_embedder(openai_settings(fake, f"openai:{MODEL}:512"))
    assert embedder.info.describe() == "openai:text-embedding-3-small (512-d)"

    query = await embedder.embed_query("net debt")
    docs = await embedder.embed_documents(["net debt rose", "headcount fell"])

    assert len(query) == 512 and [len(v) for v in docs] == [512, 512]
    # the first 512 components of the model's own vector, as graphiti's OpenAIEmbedder gives them
    assert query == pytest.approx(expected_embedding("net debt", 1536)[:512])
    assert docs[1] == pytest.approx(expected_embedding("headcount fell", 1536)[:512])
    assert [b["model"] for b in _bodies(fake)] == [MODEL, MODEL]


async def test_large_batches_go_in_several_requests_and_keep_their_order(fake: FakeOpenAIServer) -> None:
    embedder = make_embedder(openai_settings(fake, f"openai:{MODEL}:8"))
    texts = [f"fact number {i}" for i in range(600)]

    vectors = await embedder.embed_documents(texts)

    assert [len(b["input"]) for b in _bodies(fake)] == [256, 256, 88]  # type: ignore[arg-type]
    assert vectors[599] == pytest.approx(expected_embedding("fact number 599", 1536)[:8])
    assert vectors[0] == pytest.approx(expected_embedding("fact number 0", 1536)[:8])


async def test_a_wrong_key_is_one_line_naming_the_variable(fake: FakeOpenAIServer) -> None:
    embedder = make_embedder(openai_settings(fake, openai_api_key="sk-wrong-key"))
    with pytest.raises(EmbedderUnavailable) as error:
        await embedder.embed_query("revenue")
    message = str(error.value)
    assert message == (
        f"Embedder openai:text-embedding-3-small (1536-d): {fake.base_url} refused the API key (401): "
        "check OPENAI_API_KEY."
    )
    assert [r.answered for r in fake.requests] == ["401"]


async def test_no_key_is_one_line_at_first_use_not_at_start(fake: FakeOpenAIServer) -> None:
    embedder = make_embedder(openai_settings(fake, openai_api_key=None))  # building it asks nothing
    with pytest.raises(EmbedderUnavailable, match=r"needs an API key: set OPENAI_API_KEY") as error:
        await embedder.embed_documents(["revenue"])
    assert "\n" not in str(error.value)
    assert fake.requests == []  # nothing was sent


async def test_an_unknown_model_dimension_mismatch_and_server_errors_are_one_line(fake: FakeOpenAIServer) -> None:
    unknown = make_embedder(openai_settings(fake, "openai:my-embedder:768"))
    with pytest.raises(EmbedderUnavailable, match=r"has no model 'my-embedder' \(404\): check RETRIEVAL_LAB_EMBEDDER"):
        await unknown.embed_query("revenue")

    fake.script(["503"])
    with pytest.raises(EmbedderUnavailable, match=r"answered 503: The engine is currently overloaded"):
        await make_embedder(openai_settings(fake)).embed_query("revenue")

    fake.script(["partial"])
    with pytest.raises(EmbedderUnavailable, match=r"returned 1 vectors for 2 texts"):
        await make_embedder(openai_settings(fake)).embed_documents(["a", "b"])

    fake.script(["malformed"])
    with pytest.raises(EmbedderUnavailable, match=r"\(1536-d\): malformed response from http://127\.0\.0\.1:"):
        await make_embedder(openai_settings(fake)).embed_query("revenue")


async def test_a_silent_server_is_a_timeout_in_seconds_not_a_hang(fake: FakeOpenAIServer) -> None:
    fake.script(["hang"])
    embedder = make_embedder(openai_settings(fake, openai_timeout_s=0.5))
    started = time.monotonic()
    with pytest.raises(EmbedderUnavailable, match=r"no answer from .* within 0.5 s"):
        await embedder.embed_query("revenue")
    elapsed = time.monotonic() - started
    assert 0.5 - 0.05 <= elapsed < STUCK_S  # the 0.5 s timeout ended it, not the stand-in letting go


async def test_sdk_retries_are_bounded_and_a_retried_request_succeeds(fake: FakeOpenAIServer) -> None:
    fake.script(["429", "500"])
    embedder = make_embedder(openai_settings(fake, openai_max_retries=2))
    assert await embedder.embed_query("cash") == pytest.approx(expected_embedding("cash", 1536))
    assert [r.answered for r in fake.requests] == ["429", "500", "ok"]


def _corpus(folder: Path) -> None:
    folder.mkdir(parents=True)
    passages = {
        "p1": "Acme Corp reported revenue of $120M for fiscal 2025, up 12% from 2024.",
        "p2": "Acme's CFO Jane Doe resigned in March 2025.",
        "p3": "Acme signed a five-year supply contract with Globex.",
        "p4": "Net debt at Acme fell to $40M after the refinancing.",
    }
    with (folder / "corpus.jsonl").open("w") as out:
        for pid, text in passages.items():
            out.write(json.dumps({"_id": pid, "text": text, "doc_name": "acme-10k.pdf", "page": 3}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "Acme revenue 2025"}) + "\n")
    (folder / "qrels.tsv").write_text("q1\tp1\t1\n")


async def test_a_deal_built_and_queried_with_the_openai_embedder(
    lab: Lab, fake: FakeOpenAIServer, tmp_path: Path
) -> None:
    """End to end: the loader (`write_deal`, through the BEIR import) embeds with OpenAI, the vectors land in
    the real embedded FalkorDB as 1536-d, and `retrieve()` embeds the query the same way and finds the
    passage that shares its words."""
    settings = openai_settings(fake, data_dir=lab.settings.data_dir)
    openai_lab = Lab(settings=settings, backend=lab.backend, embedder=make_embedder(settings))
    group = "openai_embedded_deal"
    _corpus(tmp_path / "acme")

    await import_beir(lab.backend, openai_lab.embedder, settings.resolved_data_dir, tmp_path / "acme", group)
    loaded = len(fake.requests)
    run = await retrieve(openai_lab, "Acme revenue 2025", group, candidates=4, top_k=2)

    assert loaded >= 2 and all(r.answered == "ok" for r in fake.requests)
    assert {b["model"] for b in _bodies(fake)} == {MODEL}
    (query_request,) = fake.requests[loaded:]  # one request for the query, nothing more
    assert query_request.body["input"] == ["Acme revenue 2025"]
    assert run.results, "no results"
    top = run.results[0].ranked.candidate
    assert "revenue of $120M" in top.fact
    assert top.method_ranks["cosine"] == 1  # the vector search ranked it first, on the OpenAI vectors
    edge = await EntityEdge.get_by_uuid(lab.backend.driver(group), top.uuid)
    await edge.load_fact_embedding(lab.backend.driver(group))
    assert edge.fact_embedding == pytest.approx(expected_embedding(top.fact, 1536))  # stored as OpenAI made it
    # the local embedder (the session's own) is refused on this deal, in one line naming the setting
    with pytest.raises(RetrievalLabError, match="RETRIEVAL_LAB_EMBEDDER") as refused:
        await retrieve(lab, "Acme revenue 2025", group, candidates=4, top_k=2)
    assert "\n" not in str(refused.value)
