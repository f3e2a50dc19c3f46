"""Backoff proven from a loopback stand-in's request times: lower bounds only, so no machine is too slow.

The hosted rerankers wait 0.2, 0.4, 0.8, 1.6 s and then 2 s (+ a little jitter, or a server's
Retry-After) before each retry. A retry reaches the stand-in only after that wait, so the gap between two
recorded requests can never be shorter; a loaded machine only makes it longer. The waits are spelled out
here, not read from `pipeline.rerankers.hosted`, so that a backoff shrunk there fails these checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

import pytest
from tenacity import RetryCallState

from pipeline.rerankers.hosted import HostedReranker
from tests.support.fakes.loopback import RecordedRequest

BACKOFF_S = (0.2, 0.4, 0.8, 1.6)
BACKOFF_CAP_S = 2.0
JITTER_S = 0.05  # the most the backoff adds to each wait
CLOCK_SLACK_S = 0.005  # asyncio may wake a timer a hair early; both ends read time.monotonic()


def backoff_before(retry: int) -> float:
    """The least wait before retry number `retry` (1 = the first retry)."""
    return BACKOFF_S[retry - 1] if retry <= len(BACKOFF_S) else BACKOFF_CAP_S


def least_backoff(retries: int) -> float:
    """The least total wait before `retries` retries."""
    return sum(backoff_before(r) for r in range(1, retries + 1))


def assert_backed_off(requests: Sequence[RecordedRequest]) -> None:
    """Each retry reached the stand-in no sooner than its backoff after the request before it."""
    gaps = [later.at - earlier.at for earlier, later in pairwise(requests)]
    for retry, gap in enumerate(gaps, start=1):
        assert gap >= backoff_before(retry) - CLOCK_SLACK_S, (
            f"retry {retry} came {gap:.3f} s after the request before it; the backoff is {backoff_before(retry)} s"
        )


def spy_waits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float]]:
    """Every backoff wait a hosted reranker begins, as tenacity decided it: (seconds since the first try
    began, the wait), from the very numbers its deadline check (`stop_before_delay`) used: no clock is read.

    It listens in on the reranker's before-sleep hook (`HostedReranker._log_retry`), which it still calls.
    """
    waits: list[tuple[float, float]] = []
    log_retry = HostedReranker._log_retry

    def spy(self: HostedReranker, state: RetryCallState) -> None:
        waits.append((state.seconds_since_start or 0.0, state.upcoming_sleep))
        log_retry(self, state)

    monkeypatch.setattr(HostedReranker, "_log_retry", spy)
    return waits


def assert_deadline_capped(
    message: str,
    service: str,
    deadline_s: float,
    requests: Sequence[RecordedRequest],
    waits: Sequence[tuple[float, float]],
    elapsed: float,
) -> None:
    """A scripted run of server errors was ended by the overall deadline, not by max_retries. When quiet it
    stops before a wait that would end past the deadline, with the last server error; a starved machine may
    have the deadline cut a request (or the wait before it) instead. Each way is checked by what it says and
    by lower bounds only, and no way may begin a wait that would end past the deadline.

    `service` is how the failure names the model (a regex, e.g. `Cohere rerank-v3\\.5`)."""
    sent = len(requests)
    assert 2 <= sent <= 10, sent  # it retried, and the deadline stopped it before max_retries did
    assert_backed_off(requests)
    said = re.fullmatch(
        rf"{service}: (server error 500|timed out after {deadline_s:.1f} s) after (\d+) retr(?:y|ies)", message
    )
    assert said, message
    retries = int(said.group(2))
    if said.group(1) == "server error 500":
        assert retries == len(waits) == sent - 1  # a wait before every retry
        least = deadline_s - min(BACKOFF_CAP_S, backoff_before(retries + 1) + JITTER_S) - CLOCK_SLACK_S
        assert elapsed >= least
    else:
        assert retries in (sent - 1, sent) and len(waits) in (sent - 1, sent)
        assert elapsed >= deadline_s - CLOCK_SLACK_S
    assert all(since + wait < deadline_s for since, wait in waits), waits  # tenacity's own numbers: no clock
