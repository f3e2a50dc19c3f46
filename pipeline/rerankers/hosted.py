"""What the hosted cross-encoders (Voyage, Cohere) share: bounded retries, an overall deadline, and a
one-line reason for every failure.

The SDKs' own retries are off; ours are tenacity's: only on what the subclass calls transient (429 and
5xx), at most `max_retries` of them, with a short exponential backoff (a server's Retry-After honoured up
to the same cap), and never past an overall deadline of twice the request timeout, which
`asyncio.wait_for` also enforces. Every failure becomes `RerankerFailed`; the pipeline then keeps
first-stage order. A subclass says how to call its API, what is transient, how to word a failure and
how to read the scores out of an answer.
"""

from __future__ import annotations

import asyncio
import logging
import math
from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
    wait_random,
)

from pipeline.rerankers.base import LabReranker, RerankerFailed, RerankOutcome
from pipeline.text import one_line

log = logging.getLogger(__name__)

# model -> the reason of its last failure in this process (cleared by the next success); the sidebar
# shows a failing service before anyone picks it again
LAST_FAILURE: dict[str, str] = {}

BACKOFF_INITIAL_S = 0.2
BACKOFF_MAX_S = 2.0
BACKOFF_JITTER_S = 0.05
REASON_CHARS = 160  # a failure reason is one line of the page's banner


def retry_after_s(headers: Any) -> float:
    headers = headers or {}
    try:
        return max(0.0, float(headers.get("retry-after") or headers.get("Retry-After") or 0))
    except (TypeError, ValueError, AttributeError):
        return 0.0


class _Wait:
    """Exponential backoff with a little jitter; a server's Retry-After is honoured up to the same cap."""

    def __init__(self) -> None:
        # 0.2, 0.4, 0.8, 1.6, 2 s (+ up to 50 ms); spelled this way it works on tenacity 8.2 and 9.x alike
        self._backoff = wait_exponential(multiplier=BACKOFF_INITIAL_S, max=BACKOFF_MAX_S) + wait_random(
            0, BACKOFF_JITTER_S
        )

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return min(BACKOFF_MAX_S, max(self._backoff(state), retry_after_s(getattr(exc, "headers", None))))


def retried(attempts: Sequence[BaseException | None]) -> str:
    """ " after 2 retries" (nothing when the first request was the only one)."""
    retries = len(attempts) - 1
    if retries <= 0:
        return ""
    return f" after {retries} {'retry' if retries == 1 else 'retries'}"


class HostedReranker(LabReranker):
    model: str
    vendor: str  # "Voyage", "Cohere": names the service in every failure reason
    key_env: str  # the variable that holds the key, named when it is missing

    def __init__(self, model: str, timeout_s: float, max_retries: int, client: Any | None) -> None:
        self.model = model
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._client = client  # None without a key of ours: the SDKs would otherwise read their own variables

    @abstractmethod
    async def _call(self, query: str, documents: list[str]) -> Any:
        """One request to the API."""

    @abstractmethod
    def _is_transient(self, exc: BaseException) -> bool:
        """Worth another try (429, 5xx); everything else (401, 400, timeouts, bad bodies) is not."""

    @abstractmethod
    def _describe(self, exc: BaseException, attempts: list[BaseException | None]) -> str | None:
        """The reason for an SDK error, or None when `exc` is not one of the SDK's (it is re-raised)."""

    @abstractmethod
    def _results(self, answer: Any) -> Iterable[tuple[Any, Any]]:
        """(index, score) of every scored passage in the answer."""

    @abstractmethod
    def _outcome(self, answer: Any, scores: tuple[float, ...]) -> RerankOutcome:
        """The outcome with the answer's billed usage."""

    max_document_chars: int = 0  # a huge passage is cut here first, far beyond the model's own context

    @property
    def _who(self) -> str:
        return f"{self.vendor} {self.model}"

    def _fail(self, reason: str) -> RerankerFailed:
        return RerankerFailed(f"{self._who}: {reason}")

    async def score(
        self, query: str, passages: Sequence[str], vectors: Sequence[Sequence[float]] | None = None
    ) -> RerankOutcome:
        """Score, and remember whether the service answered (the sidebar shows a failing service)."""
        try:
            outcome = await self._score(query, passages)
        except RerankerFailed as exc:
            LAST_FAILURE[self.model] = str(exc)
            raise
        LAST_FAILURE.pop(self.model, None)
        return outcome

    async def _score(self, query: str, passages: Sequence[str]) -> RerankOutcome:
        documents = [p[: self.max_document_chars] for p in passages] if self.max_document_chars else list(passages)
        if not documents:
            return RerankOutcome(scores=(), tokens=0, model=self.model)
        if self._client is None:
            raise self._fail(f"no API key set ({self.key_env})")

        deadline_s = self._timeout_s * 2
        attempts: list[BaseException | None] = []  # one entry per request sent
        try:
            answer = await asyncio.wait_for(self._retrying(query, documents, deadline_s, attempts), deadline_s)
        except TimeoutError:
            raise self._fail(f"timed out after {deadline_s:.1f} s{retried(attempts)}") from None
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
            # the SDKs turn the JSON into objects lazily: a body of the wrong shape fails here
            raise self._fail("malformed response") from exc
        except Exception as exc:
            reason = self._describe(exc, attempts)
            if reason is None:
                raise
            raise self._fail(reason) from exc
        try:
            return self._outcome(answer, self._align(self._results(answer), len(documents)))
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise self._fail("malformed response") from exc

    async def _retrying(
        self, query: str, documents: list[str], deadline_s: float, attempts: list[BaseException | None]
    ) -> Any:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._max_retries + 1) | stop_before_delay(deadline_s),
            wait=_Wait(),
            retry=retry_if_exception(self._is_transient),
            reraise=True,
            before_sleep=self._log_retry,
        )
        async for attempt in retrying:
            with attempt:
                attempts.append(None)
                try:
                    return await self._call(query, documents)
                except Exception as exc:
                    attempts[-1] = exc
                    raise
        raise AssertionError("unreachable: tenacity either returns or reraises")  # pragma: no cover

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.info("%s: retry %d in %.2f s after %s", self._who, state.attempt_number, wait, one_line(exc, 80))

    def _align(self, results: Iterable[tuple[Any, Any]], n: int) -> tuple[float, ...]:
        """Scores back in input order; every passage must have come back exactly once."""
        scores: list[float | None] = [None] * n
        for index, score in results:
            if not isinstance(index, int) or not 0 <= index < n or scores[index] is not None:
                raise self._fail("malformed response")
            if not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score):
                raise self._fail("malformed response")
            scores[index] = float(score)
        if any(s is None for s in scores):
            missing = sum(s is None for s in scores)
            raise self._fail(f"malformed response ({missing} of {n} passages not scored)")
        return tuple(s for s in scores if s is not None)
