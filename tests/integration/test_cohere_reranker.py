"""CohereReranker through the real `cohere` SDK, against the loopback Cohere stand-in.

Nothing is mocked on our side of the HTTP connection: `Settings.cohere_base_url` (COHERE_BASE_URL) points
the SDK at `tests/support/fakes/cohere_server.py`, which answers like Cohere's public v2 rerank API and can
be scripted to fail. The retrieval and CLI tests run the whole pipeline on the demo deal with it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.history.latency import load_costs
from pipeline.history.repo import load_run, save_run
from pipeline.lab import Lab
from pipeline.rerankers import estimate_cost, make_reranker, reranker_choices
from pipeline.rerankers.base import RerankerFailed
from pipeline.rerankers.cohere import MAX_DOCUMENT_CHARS, CohereReranker
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import Settings, get_settings
from tests.support.backoff import (
    CLOCK_SLACK_S,
    assert_backed_off,
    assert_deadline_capped,
    least_backoff,
    spy_waits,
)
from tests.support.fakes.cohere_server import FakeCohereServer

KEY = "co-loopback-test"
QUERY = "revenue growth in 2023"
PASSAGES = ["The weather was mild", "Revenue growth in 2023 was strong", "growth of revenue"]
# hand-computed: share of the query's 4 words {revenue, growth, in, 2023} found in each passage
EXPECTED_SCORES = (0.0, 1.0, 0.5)
# The stand-in answers at once, so a test about statuses and retries gets a request timeout (and so an
# overall deadline, twice it) that no loaded machine can reach: only the scripted answers decide. The
# tests about timing out choose their own, and assert what happened by the message and lower bounds.
ROOMY_TIMEOUT_S = 30.0
HANG_S = 60.0  # a "hang" outlasts every deadline below; teardown releases it at once


@pytest.fixture
def server() -> Iterator[FakeCohereServer]:
    with FakeCohereServer(api_key=KEY, hang_s=HANG_S) as fake:
        yield fake


def make_settings(server: FakeCohereServer | None, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "cohere_api_key": KEY,
        "cohere_base_url": server.base_url if server else None,
        "cohere_timeout_s": ROOMY_TIMEOUT_S,
        "cohere_max_retries": 2,
    }
    values.update(overrides)
    return Settings(**values)


async def test_scores_come_back_in_input_order_with_search_units(server: FakeCohereServer) -> None:
    reranker = CohereReranker(make_settings(server))

    outcome = await reranker.score(QUERY, PASSAGES)

    assert outcome.scores == EXPECTED_SCORES
    assert (outcome.searches, outcome.tokens, outcome.model) == (1, 0, "rerank-v3.5")
    [request] = server.requests
    assert request.path == "/v2/rerank"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.body == {"model": "rerank-v3.5", "query": QUERY, "documents": PASSAGES, "top_n": 3}


async def test_more_than_100_documents_bill_two_searches(server: FakeCohereServer) -> None:
    passages = [f"revenue line {i}" for i in range(150)]

    outcome = await CohereReranker(make_settings(server)).score(QUERY, passages)

    assert outcome.searches == 2
    assert len(outcome.scores) == 150
    assert estimate_cost(0, "rerank-v3.5", make_settings(None), outcome.searches) == pytest.approx(0.004)


async def test_a_huge_passage_is_cut_before_upload(server: FakeCohereServer) -> None:
    huge = "revenue " * (MAX_DOCUMENT_CHARS // 4)

    await CohereReranker(make_settings(server)).score(QUERY, [huge, "growth"])

    sent = server.requests[0].body["documents"]
    assert len(sent[0]) == MAX_DOCUMENT_CHARS and sent[1] == "growth"


async def test_429_then_success_retries_once(server: FakeCohereServer) -> None:
    server.script(["429", "ok"])

    outcome = await CohereReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert outcome.scores == EXPECTED_SCORES
    assert [r.answered for r in server.requests] == ["429", "ok"]


async def test_429_storm_fails_after_the_configured_retries(server: FakeCohereServer) -> None:
    server.script(["429"] * 10)
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Cohere rerank-v3.5: rate limited (429) after 2 retries"
    assert len(server.requests) == 3  # the first try + cohere_max_retries, then no more
    assert_backed_off(server.requests)  # >= 0.2 s before the first retry, >= 0.4 s before the second
    assert time.monotonic() - started >= least_backoff(2) - CLOCK_SLACK_S


@pytest.mark.parametrize("status", ["500", "503"])
async def test_server_errors_are_retried_then_reported(server: FakeCohereServer, status: str) -> None:
    server.script([status] * 10)

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == f"Cohere rerank-v3.5: server error {status} after 2 retries"
    assert len(server.requests) == 3
    assert_backed_off(server.requests)


async def test_the_deadline_caps_retries_before_max_retries(
    server: FakeCohereServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a 4 s deadline against 10 retries' 15 s of backoff: it must stop well before max_retries. When quiet:
    # waits of 0.2, 0.4, 0.8, 1.6 s, then the next (2 s) would end past the deadline, so it stops at 5 tries
    waits = spy_waits(monkeypatch)
    server.script(["500"] * 20)
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server, cohere_timeout_s=2.0, cohere_max_retries=10)).score(QUERY, PASSAGES)

    elapsed = time.monotonic() - started
    assert_deadline_capped(str(failure.value), r"Cohere rerank-v3\.5", 4.0, server.requests, waits, elapsed)


async def test_a_hanging_server_times_out_without_retry(server: FakeCohereServer) -> None:
    # the request's own 3 s timeout, not the 6 s overall deadline (nor the 60 s hang), ends it: the message
    # names which; 3 s of margin keeps the deadline out of reach even on a starved machine
    server.script(["hang"])
    started = time.monotonic()

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server, cohere_timeout_s=3.0)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Cohere rerank-v3.5: timed out after 3.0 s"  # a timeout is not retried
    assert time.monotonic() - started >= 3.0 - CLOCK_SLACK_S
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("malformed", "malformed response"),
        ("partial", "malformed response (1 of 3 passages not scored)"),
        ("400", "request rejected (400): invalid request"),
    ],
)
async def test_bad_answers_fail_without_retry(server: FakeCohereServer, mode: str, reason: str) -> None:
    server.script([mode])

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server)).score(QUERY, PASSAGES)

    assert str(failure.value) == f"Cohere rerank-v3.5: {reason}"
    assert len(server.requests) == 1


async def test_wrong_key_is_401_and_not_retried(server: FakeCohereServer) -> None:
    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server, cohere_api_key="co-wrong")).score(QUERY, PASSAGES)

    assert str(failure.value) == "Cohere rerank-v3.5: invalid API key (401)"
    [request] = server.requests
    assert request.headers["Authorization"] == "Bearer co-wrong"


async def test_no_key_fails_at_once_without_a_request(
    server: FakeCohereServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the SDK would fall back to CO_API_KEY by itself; the reranker must go by its settings only
    monkeypatch.setenv("CO_API_KEY", KEY)

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server, cohere_api_key=None)).score(QUERY, PASSAGES)

    assert str(failure.value) == "Cohere rerank-v3.5: no API key set (COHERE_API_KEY)"
    assert server.requests == []


async def test_unreachable_host_is_reported_plainly() -> None:
    with socket.socket() as sock:  # a port that was just free: nothing listens on it
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(None, cohere_base_url=f"http://127.0.0.1:{port}")).score(QUERY, PASSAGES)

    assert str(failure.value) == "Cohere rerank-v3.5: unreachable (connection refused)"


async def test_the_chosen_model_is_sent_and_an_unknown_one_rejected(server: FakeCohereServer) -> None:
    outcome = await CohereReranker(make_settings(server, cohere_rerank_model="rerank-english-v3.0")).score(
        QUERY, PASSAGES
    )
    with pytest.raises(RerankerFailed) as failure:
        await CohereReranker(make_settings(server), model="rerank-9").score(QUERY, PASSAGES)

    assert outcome.model == "rerank-english-v3.0"
    assert str(failure.value).startswith("Cohere rerank-9: request rejected (400): model 'rerank-9' not found")


def test_the_choice_needs_a_key_and_says_which() -> None:
    without = {c.name: c for c in reranker_choices(make_settings(None, cohere_api_key=None))}["cohere"]
    keyed = {c.name: c for c in reranker_choices(make_settings(None))}["cohere"]

    assert (without.available, without.note) == (False, "no API key (set COHERE_API_KEY)")
    assert (keyed.available, keyed.label) == (True, "Cohere rerank-v3.5")
    assert isinstance(make_reranker("cohere", make_settings(None)), CohereReranker)


def test_cost_is_per_1000_searches() -> None:
    settings = make_settings(None)

    assert estimate_cost(0, "rerank-v3.5", settings, searches=1) == pytest.approx(0.002)
    assert estimate_cost(0, "rerank-v3.5", settings, searches=1000) == pytest.approx(2.0)
    assert estimate_cost(1000, "rerank-2.5", settings) == pytest.approx(0.00005)  # Voyage: per token still


async def test_retrieval_reranks_with_cohere_records_cost_and_falls_back(
    lab: Lab, demo: str, server: FakeCohereServer, tmp_path: Path
) -> None:
    # its own data dir: the run recorded here stays out of the session's history
    cohere_lab = Lab(settings=make_settings(server, data_dir=tmp_path), backend=lab.backend, embedder=lab.embedder)
    query = "What was Halcyon's FY2025 revenue?"

    run = await retrieve(cohere_lab, query, demo, 20, 3, "cohere")
    server.script(["503"] * 10)
    fallback = await retrieve(cohere_lab, query, demo, 20, 3, "cohere")

    assert run.rerank_used and run.fallback_reason is None
    assert run.reranker_model == "rerank-v3.5" and len(run.results) == 3
    assert (run.timings.rerank_searches, run.timings.rerank_cost_usd) == (1, pytest.approx(0.002))
    sent = server.requests[0].body
    assert sent["query"] == query and len(sent["documents"]) == 20
    best = max(range(20), key=lambda i: run.reranked[i].score or 0.0)
    assert run.results[0].uuid == run.reranked[best].candidate.uuid
    assert not fallback.rerank_used
    assert fallback.fallback_reason == "Cohere rerank-v3.5: server error 503 after 2 retries"
    assert [r.uuid for r in fallback.results] == [c.uuid for c in fallback.candidates[:3]]

    run_id = save_run(cohere_lab.store, run, "cli")
    row = next(
        r for r in load_costs(cohere_lab.store, {}, None, {"rerank-v3.5": 2.0}) if r.reranker.startswith("cohere")
    )
    assert row.searches_per_query == 1.0 and row.usd_per_1000 == pytest.approx(2.0)
    stored = load_run(cohere_lab.store, run_id).run
    assert (stored.timings.rerank_searches, stored.timings.rerank_cost_usd) == (1, pytest.approx(0.002))


async def test_cli_eval_sweeps_none_local_and_cohere(
    demo: str, server: FakeCohereServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COHERE_API_KEY", KEY)
    monkeypatch.setenv("COHERE_BASE_URL", server.base_url)
    get_settings.cache_clear()
    command = ["eval", "--group", demo, "--candidates", "10", "--top-k", "3", "--reranker", "none,local,cohere"]
    try:
        code = await asyncio.to_thread(main, [*command, "--limit-queries", "5", "--no-save", "--json"])
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()

    out = capsys.readouterr()
    assert code == 0, out.err
    rows = {row["setting"]: row for row in json.loads(out.out)["rows"]}
    assert {
        "graphiti-default none N=10 k=3",
        "graphiti-default local N=10 k=3",
        "graphiti-default cohere N=10 k=3",
    } <= set(rows)
    # billed per search: one search a query (10 candidates), $2 per 1,000 searches
    assert rows["graphiti-default cohere N=10 k=3"]["cost_usd"] == pytest.approx(5 * 0.002)
    assert rows["graphiti-default local N=10 k=3"]["cost_usd"] == 0.0
    cohere_calls = server.requests_to("/v2/rerank")
    assert len(cohere_calls) == 5  # one per query: N=10 is one pool, scored once
    assert all(len(r.body["documents"]) <= 10 for r in cohere_calls)
