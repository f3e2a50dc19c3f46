"""VoyageReranker and VoyageEmbedder through the real voyageai SDK, against the loopback Voyage stand-in.

Nothing is mocked on our side of the HTTP connection: `Settings.voyage_base_url` points the SDK at
`tests/support/fakes/voyage_server.py`, which answers like the public API and can be scripted to fail.
"""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Iterator

import pytest

from pipeline.embedders.voyage import VoyageEmbedder
from pipeline.rerankers import estimate_cost
from pipeline.rerankers.base import RerankerFailed
from pipeline.rerankers.voyage import VoyageReranker
from pipeline.settings import Settings
from tests.support.backoff import (
    CLOCK_SLACK_S,
    assert_backed_off,
    assert_deadline_capped,
    least_backoff,
    spy_waits,
)
from tests.support.fakes.voyage_server import FakeVoyageServer, expected_embedding

KEY = "vk-loopback-test"
QUERY = "revenue growth in 2023"
PASSAGES = ["The weather was mild", "Revenue growth in 2023 was strong", "growth of revenue"]
# hand-computed: share of the query's 4 words {revenue, growth, in, 2023} found in each passage
EXPECTED_SCORES = (0.0, 1.0, 0.5)
# the fake bills one token per word: query (4) once per passage + the passages (4 + 6 + 3)
EXPECTED_TOKENS = 4 * 3 + 13
# The stand-in answers at once, so a test about statuses and retries gets a request timeout (and so an
# overall deadline, twice it) that no loaded machine can reach: only the scripted answers decide. The
# tests about timing out choose their own, and assert what happened by the message and lower bounds.
ROOMY_TIMEOUT_S = 30.0
HANG_S = 60.0  # a "hang" outlasts every deadline below; teardown releases it at once


@pytest.fixture
def server() -> Iterator[FakeVoyageServer]:
    with FakeVoyageServer(api_key=KEY, hang_s=HANG_S) as fake:
        yield fake


def make_settings(server: FakeVoyageServer | None, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "voyage_api_key": KEY,
        "voyage_base_url": server.base_url if server else None,
        "voyage_timeout_s": ROOMY_TIMEOUT_S,
        "voyage_max_retries": 2,
        "voyage_rerank_model": "rerank-2.5",
    }
    values.update(overrides)
    return Settings(**values)


async def test_scores_come_back_in_input_order_with_tokens(server: FakeVoyageServer) -> None:
    reranker = VoyageReranker(make_settings(server))

    outcome = await reranker.score(QUERY, PASSAGES)

    assert outcome.scores == EXPECTED_SCORES
    assert outcome.tokens == EXPECTED_TOKENS
    assert outcome.model == "rerank-2.5"
    [request] = server.requests
    assert request.path == "/v1/rerank"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "rerank-2.5"
    assert request.body["query"] == QUERY
    assert request.body["documents"] == PASSAGES
    assert request.body["truncation"] is True


async def test_rank_orders_best_first_for_graphiti(server: FakeVoyageServer) -> None:
    ranked = await VoyageReranker(make_settings(server)).rank(QUERY, PASSAGES)

    assert ranked == [(PASSAGES[1], 1.0), (PASSAGES[2], 0.5), (PASSAGES[0], 0.0)]


async def test_label_names_the_model() -> None:
    reranker = VoyageReranker(make_settings(None))

    assert reranker.name == "voyage"
    assert reranker.label == "Voyage rerank-2.5"  # its row's label with its model, as the pickers show it
    assert reranker.description


async def test_429_then_success_retries_once(server: FakeVoyageServer) -> None:
    server.script(["429", "ok"])

    outcome = await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert outcome.scores == EXPECTED_SCORES
    assert [r.answered for r in server.requests] == ["429", "ok"]


async def test_429_storm_fails_after_the_configured_retries(server: FakeVoyageServer) -> None:
    server.script(["429"] * 10)
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: rate limited (429) after 2 retries"
    assert len(server.requests) == 3  # the first try + voyage_max_retries, then no more
    assert_backed_off(server.requests)  # >= 0.2 s before the first retry, >= 0.4 s before the second
    assert time.monotonic() - started >= least_backoff(2) - CLOCK_SLACK_S


@pytest.mark.parametrize("status", ["500", "502", "503"])
async def test_server_errors_are_retried_then_reported(server: FakeVoyageServer, status: str) -> None:
    server.script([status] * 10)

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == f"Voyage rerank-2.5: server error {status} after 2 retries"
    assert len(server.requests) == 3
    assert_backed_off(server.requests)


async def test_503_then_success_recovers(server: FakeVoyageServer) -> None:
    server.script(["503", "500", "ok"])

    outcome = await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert outcome.scores == EXPECTED_SCORES
    assert len(server.requests) == 3
    assert_backed_off(server.requests)


async def test_the_deadline_caps_retries_before_max_retries(
    server: FakeVoyageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a 4 s deadline against 10 retries' 15 s of backoff: it must stop well before max_retries. When quiet:
    # waits of 0.2, 0.4, 0.8, 1.6 s, then the next (2 s) would end past the deadline, so it stops at 5 tries
    waits = spy_waits(monkeypatch)
    server.script(["500"] * 20)
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server, voyage_timeout_s=2.0, voyage_max_retries=10)).score(QUERY, PASSAGES)

    elapsed = time.monotonic() - started
    assert_deadline_capped(str(failure.value), r"Voyage rerank-2\.5", 4.0, server.requests, waits, elapsed)


async def test_a_hanging_server_times_out_without_retry(server: FakeVoyageServer) -> None:
    # the request's own 3 s timeout, not the 6 s overall deadline (nor the 60 s hang), ends it: the message
    # names which; 3 s of margin keeps the deadline out of reach even on a starved machine
    server.script(["hang"])
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server, voyage_timeout_s=3.0)).score(QUERY, PASSAGES)

    elapsed = time.monotonic() - started
    assert str(failure.value) == "Voyage rerank-2.5: timed out after 3.0 s"  # a timeout is not retried
    assert elapsed >= 3.0 - CLOCK_SLACK_S
    assert len(server.requests) == 1


async def test_wait_for_is_the_hard_bound_on_the_whole_call(server: FakeVoyageServer) -> None:
    # five quick 500s use at least 5 s of backoff (0.2 + 0.4 + 0.8 + 1.6 + 2); the sixth try hangs. Its own
    # 4.5 s timeout could end it no sooner than 9.5 s in, so the 9 s overall bound (asyncio.wait_for) cuts it
    # first however slow the machine (slowness only starts that try later). Tenacity lets the fifth wait
    # begin as long as it ends before 9 s, i.e. unless the five quick tries are together 4 s late.
    server.script(["500"] * 5 + ["hang"])
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server, voyage_timeout_s=4.5, voyage_max_retries=10)).score(QUERY, PASSAGES)

    elapsed = time.monotonic() - started
    assert str(failure.value) == "Voyage rerank-2.5: timed out after 9.0 s after 5 retries"
    assert elapsed >= 9.0 - CLOCK_SLACK_S
    assert [r.answered for r in server.requests] == ["500"] * 5 + ["hang"]
    assert_backed_off(server.requests)


async def test_malformed_json_fails_without_retry(server: FakeVoyageServer) -> None:
    server.script(["malformed"])

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: malformed response"
    assert len(server.requests) == 1


async def test_a_passage_missing_from_the_answer_is_malformed(server: FakeVoyageServer) -> None:
    server.script(["partial"])

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: malformed response (1 of 3 passages not scored)"


async def test_wrong_key_is_401_and_not_retried(server: FakeVoyageServer) -> None:
    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server, voyage_api_key="vk-wrong")).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: invalid API key (401)"
    [request] = server.requests
    assert request.headers["Authorization"] == "Bearer vk-wrong"
    assert request.answered == "401"


async def test_no_key_fails_at_once_without_a_request(
    server: FakeVoyageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the SDK would fall back to this variable by itself; the reranker must go by its settings only
    monkeypatch.setenv("VOYAGE_API_KEY", KEY)
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server, voyage_api_key=None)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: no API key set (VOYAGE_API_KEY)"
    assert server.requests == []  # at once: no request, so nothing to wait for
    assert time.monotonic() - started < ROOMY_TIMEOUT_S  # only a stuck call could take this long


async def test_empty_passages_make_no_request(server: FakeVoyageServer) -> None:
    outcome = await VoyageReranker(make_settings(server)).score(QUERY, [])

    assert (outcome.scores, outcome.tokens) == ((), 0)
    assert server.requests == []


async def test_unreachable_host_is_reported_plainly() -> None:
    with socket.socket() as sock:  # a port that was just free: nothing listens on it
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = make_settings(None, voyage_base_url=f"http://127.0.0.1:{port}/v1")
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(settings).score(QUERY, PASSAGES)

    assert str(failure.value) == "Voyage rerank-2.5: unreachable (connection refused)"
    # a refusal is reported, not retried nor waited on: far sooner than the request timeout (only a stuck
    # call could take that long)
    assert time.monotonic() - started < ROOMY_TIMEOUT_S


async def test_the_chosen_model_is_sent(server: FakeVoyageServer) -> None:
    explicit = VoyageReranker(make_settings(server), model="rerank-2.5-lite")
    from_settings = VoyageReranker(make_settings(server, voyage_rerank_model="rerank-2.5-lite"))

    outcome = await explicit.score(QUERY, PASSAGES)
    await from_settings.score(QUERY, PASSAGES)

    assert outcome.model == "rerank-2.5-lite"
    assert explicit.label == "Voyage rerank-2.5-lite"
    assert [r.body["model"] for r in server.requests] == ["rerank-2.5-lite", "rerank-2.5-lite"]


async def test_an_unknown_model_is_rejected_without_retry(server: FakeVoyageServer) -> None:
    with pytest.raises(RerankerFailed) as failure:
        await VoyageReranker(make_settings(server), model="rerank-9").score(QUERY, PASSAGES)

    message = str(failure.value)
    assert message.startswith("Voyage rerank-9: request rejected (400): Model rerank-9 is not supported")
    assert "\n" not in message
    assert len(server.requests) == 1


def test_cost_estimate_uses_the_price_per_million_tokens() -> None:
    settings = make_settings(None)

    assert estimate_cost(EXPECTED_TOKENS, "rerank-2.5", settings) == pytest.approx(25 * 0.05 / 1e6)
    assert estimate_cost(1_000_000, "rerank-2.5-lite", settings) == pytest.approx(0.02)
    assert estimate_cost(0, "rerank-2.5", settings) == 0.0
    assert estimate_cost(1000, "rerank-unknown", settings) is None


async def test_voyage_embedder_sends_input_type_and_gets_1024_d(server: FakeVoyageServer) -> None:
    embedder = VoyageEmbedder(make_settings(server))

    query_vec = await embedder.embed_query("revenue growth")
    doc_vecs = await embedder.embed_documents(["revenue growth", "covenant breach in Q3"])
    graphiti_vec = await embedder.create(["revenue growth"])  # graphiti embeds search queries this way

    assert len(query_vec) == 1024
    assert [len(v) for v in doc_vecs] == [1024, 1024]
    assert query_vec == expected_embedding("revenue growth", "query", 1024)
    assert doc_vecs[0] == expected_embedding("revenue growth", "document", 1024)
    assert doc_vecs[1] == expected_embedding("covenant breach in Q3", "document", 1024)
    assert graphiti_vec == query_vec
    assert query_vec != doc_vecs[0]  # the input type changes the vector...
    cosine = sum(a * b for a, b in zip(query_vec, doc_vecs[0], strict=True))
    assert 0.5 < cosine < 1.0  # ...but the same text stays close
    assert math.isclose(sum(v * v for v in query_vec), 1.0, rel_tol=1e-5)
    bodies = [r.body for r in server.requests_to("/v1/embeddings")]
    assert [(b["model"], b["input_type"], b["input"]) for b in bodies] == [
        ("voyage-finance-2", "query", ["revenue growth"]),
        ("voyage-finance-2", "document", ["revenue growth", "covenant breach in Q3"]),
        ("voyage-finance-2", "query", ["revenue growth"]),
    ]
