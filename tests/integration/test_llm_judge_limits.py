"""The LLM judge against a server that answers absurdly: a usage of 10**30 tokens, a 2 MB answer, failing
requests. Through graphiti's clients and the real openai SDK to the loopback stand-in, as test_llm_judge.py."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.judge.client import ANSWER_MAX_BYTES
from pipeline.judge.grade import JudgePair, grade_pairs
from pipeline.judge.prompt import PROMPT_VERSION
from pipeline.judge.repo import cached_grades
from pipeline.store.db import Store
from tests.integration.test_llm_judge import KEY, MODEL, config_for  # the judge as the settings give it
from tests.support.fakes.openai_server import FakeOpenAIServer

PAIRS = [JudgePair(i, "net debt", f"fact number {i}") for i in range(3)]


@pytest.fixture(scope="module")
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY, retry_after_ms=1) as server:
        yield server


@pytest.fixture
def server(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    openai_server.reset()
    openai_server.judge = lambda query, fact: (2, "Helps.")
    return openai_server


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "lab.sqlite3")


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_an_absurd_token_count_is_unknown_and_every_grade_is_kept(
    server: FakeOpenAIServer, store: Store, api: str
) -> None:
    """10**30 tokens once raised OverflowError writing the cache: answers lost, the run unaudited."""
    server.usage_tokens = 10**30
    report = await grade_pairs(store, config_for(server, api=api), PAIRS)
    assert report.failure is None
    assert [g.grade for g in report.grades] == [2, 2, 2]
    assert report.input_tokens == report.output_tokens == 0 and report.cost_usd == 0
    cached = cached_grades(store, MODEL, PROMPT_VERSION, [(p.query, p.fact) for p in PAIRS])
    assert len(cached) == 3 and all(c.input_tokens == 0 for c in cached.values())


async def test_an_answer_past_the_cap_is_refused_in_one_line_without_retrying(
    server: FakeOpenAIServer, store: Store
) -> None:
    server.judge = lambda query, fact: '{"grade": 2, "reason": "' + "x" * (2 * ANSWER_MAX_BYTES) + '"}'
    report = await grade_pairs(store, config_for(server, concurrency=1, max_attempts=3), PAIRS[:1])
    assert report.grades == ()
    assert report.failure is not None and "larger than 1024 kB" in report.failure and "\n" not in report.failure
    assert report.calls == 1  # the same model would send the same answer again


async def test_failed_attempts_are_one_summary_line_not_one_per_attempt(
    server: FakeOpenAIServer, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    server.judge = lambda query, fact: "not json at all"
    with caplog.at_level(logging.INFO):
        report = await grade_pairs(store, config_for(server, concurrency=1, max_attempts=3), PAIRS[:1])
    assert report.failure is not None and report.calls == 3
    graphiti = [r for r in caplog.records if r.name.startswith("graphiti_core")]
    assert graphiti == [], [r.getMessage() for r in graphiti]
    summary = [r.getMessage() for r in caplog.records if r.name == "pipeline.judge.grade"]
    assert summary == ["LLM judge: 3 of 3 requests failed (3 x an answer that is not JSON)"]
