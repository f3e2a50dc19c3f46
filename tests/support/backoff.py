"""Backoff proven from a loopback stand-in's request times: lower bounds only, so no machine is too slow.

The hosted rerankers wait 0.2, 0.4, 0.8, 1.6 s and then 2 s (+ a little jitter, or a server's
Retry-After) before each retry. A retry reaches the stand-in only after that wait, so the gap between two
recorded requests can never be shorter; a loaded machine only makes it longer. The waits are spelled out
here, not read from `pipeline.rerankers.hosted`, so that a backoff shrunk there fails these checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest
from tenacity import RetryCallState

from pipeline.rerankers.hosted import HostedReranker
from tests.support.fakes.loopback import RecordedRequest

BACKOFF_S = (0.2, 0.4, 0.8, 1.6)
BACKOFF_CAP_S = 2.0
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
