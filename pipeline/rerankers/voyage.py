"""Voyage `rerank-2.5` / `rerank-2.5-lite`: a hosted cross-encoder, through the official async SDK.

The SDK's own retries are off (`voyage_client` sets `max_retries=0`); ours are tenacity's: only on 429
and 5xx, at most `settings.voyage_max_retries` of them, with a short exponential backoff, and never
past an overall deadline of twice the request timeout, which `asyncio.wait_for` also enforces. Every
failure becomes `RerankerFailed` with a one-line reason; the pipeline then keeps first-stage order.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
from collections.abc import Sequence
from typing import Any

import voyageai.error as voyage_error
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
    wait_random,
)

from pipeline.embedders.voyage import voyage_client
from pipeline.rerankers.base import LabReranker, RerankerFailed, RerankOutcome
from pipeline.settings import Settings
from pipeline.text import one_line

log = logging.getLogger(__name__)

# model -> the reason of its last failure in this process (cleared by the next success)
# Voyage truncates each document to the model's context (32K tokens for rerank-2.5) on its side; a huge
# passage is cut here first, far beyond that (8 characters a token), so it is not uploaded whole.
MAX_DOCUMENT_CHARS = 32_000 * 8
LAST_FAILURE: dict[str, str] = {}

BACKOFF_INITIAL_S = 0.2
BACKOFF_MAX_S = 2.0
BACKOFF_JITTER_S = 0.05
REASON_CHARS = 160  # a failure reason is one line of the page's banner


_TRANSIENT = (
    voyage_error.RateLimitError,  # 429
    voyage_error.ServerError,  # 500
    voyage_error.ServiceUnavailableError,  # 502, 503, 504
)


def _status(exc: BaseException) -> int | None:
    return getattr(exc, "http_status", None)


def _is_transient(exc: BaseException) -> bool:
    """429 and 5xx are worth another try; everything else (401, 400, timeouts, bad bodies) is not."""
    if isinstance(exc, _TRANSIENT):
        return True
    status = _status(exc)
    return isinstance(exc, voyage_error.APIError) and status is not None and status >= 500


def _retry_after_s(exc: BaseException | None) -> float:
    headers = getattr(exc, "headers", None) or {}
    try:
        return max(0.0, float(headers.get("retry-after") or headers.get("Retry-After") or 0))
    except (TypeError, ValueError):
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
        return min(BACKOFF_MAX_S, max(self._backoff(state), _retry_after_s(exc)))


def _unreachable_reason(exc: BaseException) -> str:
    cause: BaseException | None = exc.__cause__
    os_error = getattr(cause, "os_error", None) or cause
    if isinstance(os_error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(os_error, socket.gaierror):
        return "host not found"
    if isinstance(os_error, ConnectionResetError):
        return "connection reset"
    if cause is not None and type(cause).__name__ == "ServerDisconnectedError":
        return "server closed the connection"
    if isinstance(os_error, OSError) and os_error.strerror:
        return os_error.strerror.lower()
    return type(cause).__name__ if cause is not None else "connection failed"


class VoyageReranker(LabReranker):
    name = "voyage"
    label = "Voyage rerank (cross-encoder, API)"
    description = (
        "Voyage AI's hosted cross-encoder reads the query and each candidate together and scores their "
        "relevance; it needs VOYAGE_API_KEY, sends the candidates to Voyage and is billed per token."
    )

    def __init__(self, settings: Settings, model: str | None = None) -> None:
        self._settings = settings
        self.model = model or settings.rerank_model
        self.label = f"Voyage {self.model} (cross-encoder, API)"
        # Without a key of ours no client is built: the SDK would otherwise pick up VOYAGE_API_KEY itself.
        key = settings.voyage_api_key.get_secret_value().strip() if settings.voyage_api_key else ""
        self._client = voyage_client(settings) if key else None

    @property
    def _who(self) -> str:
        return f"Voyage {self.model}"

    def _fail(self, reason: str) -> RerankerFailed:
        return RerankerFailed(f"{self._who}: {reason}")

    async def score(
        self, query: str, passages: Sequence[str], vectors: Sequence[Sequence[float]] | None = None
    ) -> RerankOutcome:
        """Score, and remember whether Voyage answered (the sidebar shows a failing service before reuse)."""
        try:
            outcome = await self._score(query, passages)
        except RerankerFailed as exc:
            LAST_FAILURE[self.model] = str(exc)
            raise
        LAST_FAILURE.pop(self.model, None)
        return outcome

    async def _score(self, query: str, passages: Sequence[str]) -> RerankOutcome:
        documents = [p[:MAX_DOCUMENT_CHARS] for p in passages]
        if not documents:
            return RerankOutcome(scores=(), tokens=0, model=self.model)
        if self._client is None:
            raise self._fail("no API key set (VOYAGE_API_KEY)")

        deadline_s = self._settings.voyage_timeout_s * 2
        attempts: list[BaseException | None] = []  # one entry per request sent
        try:
            result = await asyncio.wait_for(self._rerank(query, documents, deadline_s, attempts), deadline_s)
        except TimeoutError:
            raise self._fail(f"timed out after {deadline_s:.1f} s{self._retried(attempts)}") from None
        except voyage_error.VoyageError as exc:
            raise self._fail(self._describe(exc, attempts)) from exc
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
            # the SDK turns the JSON into objects lazily: a body of the wrong shape fails here
            raise self._fail("malformed response") from exc
        scores = self._align(result, len(documents))
        return RerankOutcome(scores=scores, tokens=self._tokens(result), model=self.model)

    async def _rerank(
        self, query: str, documents: list[str], deadline_s: float, attempts: list[BaseException | None]
    ) -> Any:
        assert self._client is not None
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._settings.voyage_max_retries + 1) | stop_before_delay(deadline_s),
            wait=_Wait(),
            retry=retry_if_exception(_is_transient),
            reraise=True,
            before_sleep=self._log_retry,
        )
        async for attempt in retrying:
            with attempt:
                attempts.append(None)
                try:
                    return await self._client.rerank(query, documents, model=self.model, truncation=True)
                except Exception as exc:
                    attempts[-1] = exc
                    raise
        raise AssertionError("unreachable: tenacity either returns or reraises")  # pragma: no cover

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.info("%s: retry %d in %.2f s after %s", self._who, state.attempt_number, wait, one_line(exc, 80))

    @staticmethod
    def _retried(attempts: list[BaseException | None]) -> str:
        retries = len(attempts) - 1
        if retries <= 0:
            return ""
        return f" after {retries} {'retry' if retries == 1 else 'retries'}"

    def _describe(self, exc: voyage_error.VoyageError, attempts: list[BaseException | None]) -> str:
        status = _status(exc)
        after = self._retried(attempts)
        if isinstance(exc, voyage_error.AuthenticationError):
            return "invalid API key (401)" if status == 401 else "no API key set (VOYAGE_API_KEY)"
        if isinstance(exc, voyage_error.RateLimitError):
            return f"rate limited (429){after}"
        if isinstance(exc, voyage_error.ServerError | voyage_error.ServiceUnavailableError):
            return f"server error {status or 500}{after}"
        if isinstance(exc, voyage_error.Timeout):
            return f"timed out after {self._settings.voyage_timeout_s:.1f} s{after}"
        if isinstance(exc, voyage_error.APIConnectionError):
            return f"unreachable ({_unreachable_reason(exc)})"
        if isinstance(exc, voyage_error.InvalidRequestError | voyage_error.MalformedRequestError):
            return f"request rejected ({status}): {one_line(str(exc.user_message), REASON_CHARS)}"
        if isinstance(exc, voyage_error.APIError) and status is not None and status >= 500:
            return f"server error {status}{after}"
        if isinstance(exc, voyage_error.APIError) and status is not None and 200 <= status < 300:
            return "malformed response"
        if status is not None:
            return f"unexpected response (HTTP {status})"
        return one_line(exc.user_message or type(exc).__name__, REASON_CHARS)

    def _align(self, result: Any, n: int) -> tuple[float, ...]:
        """Scores back in input order; every passage must have come back exactly once."""
        scores: list[float | None] = [None] * n
        for item in result.results:
            index, score = item.index, item.relevance_score
            if not isinstance(index, int) or not 0 <= index < n or scores[index] is not None:
                raise self._fail("malformed response")
            if not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score):
                raise self._fail("malformed response")
            scores[index] = float(score)
        if any(s is None for s in scores):
            missing = sum(s is None for s in scores)
            raise self._fail(f"malformed response ({missing} of {n} passages not scored)")
        return tuple(s for s in scores if s is not None)

    def _tokens(self, result: Any) -> int:
        tokens = result.total_tokens
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
            raise self._fail("malformed response")
        return tokens
