"""Voyage `rerank-2.5` / `rerank-2.5-lite`: a hosted cross-encoder, through the official async SDK.

Retries, deadline and failure handling are the hosted rerankers' (hosted.py); the SDK's own retries are
off (`voyage_client` sets `max_retries=0`). Voyage bills per token.
"""

from __future__ import annotations

import socket
from typing import Any

import voyageai.error as voyage_error

from pipeline.embedders.voyage import voyage_client
from pipeline.rerankers.base import RerankOutcome
from pipeline.rerankers.hosted import LAST_FAILURE, REASON_CHARS, HostedReranker, retried
from pipeline.rerankers.specs import SPECS, ExportCode
from pipeline.settings import Settings
from pipeline.text import one_line

__all__ = ["LAST_FAILURE", "VoyageReranker"]

# Voyage truncates each document to the model's context (32K tokens for rerank-2.5) on its side; a huge
# passage is cut here first, far beyond that (8 characters a token), so it is not uploaded whole.
MAX_DOCUMENT_CHARS = 32_000 * 8

_TRANSIENT = (
    voyage_error.RateLimitError,  # 429
    voyage_error.ServerError,  # 500
    voyage_error.ServiceUnavailableError,  # 502, 503, 504
)


def _status(exc: BaseException) -> int | None:
    return getattr(exc, "http_status", None)


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


class VoyageReranker(HostedReranker):
    name = "voyage"
    vendor = SPECS[name].label  # "Voyage", from its spec
    key_env = str(SPECS[name].traits.key_env)
    max_document_chars = MAX_DOCUMENT_CHARS

    def __init__(self, settings: Settings, model: str | None = None) -> None:
        self._settings = settings
        key = settings.voyage_api_key.get_secret_value().strip() if settings.voyage_api_key else ""
        super().__init__(
            model or settings.voyage_rerank_model,
            settings.voyage_timeout_s,
            settings.voyage_max_retries,
            voyage_client(settings) if key else None,
        )

    async def _call(self, query: str, documents: list[str]) -> Any:
        return await self._client.rerank(query, documents, model=self.model, truncation=True)

    def _is_transient(self, exc: BaseException) -> bool:
        if isinstance(exc, _TRANSIENT):
            return True
        status = _status(exc)
        return isinstance(exc, voyage_error.APIError) and status is not None and status >= 500

    def _describe(self, exc: BaseException, attempts: list[BaseException | None]) -> str | None:
        if not isinstance(exc, voyage_error.VoyageError):
            return None
        status = _status(exc)
        after = retried(attempts)
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

    def _results(self, answer: Any) -> list[tuple[Any, Any]]:
        return [(item.index, item.relevance_score) for item in answer.results]

    def _outcome(self, answer: Any, scores: tuple[float, ...]) -> RerankOutcome:
        tokens = answer.total_tokens
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
            raise self._fail("malformed response")
        return RerankOutcome(scores=scores, tokens=tokens, model=self.model)


_EXPORT = '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Voyage's reranker over all N (VOYAGE_API_KEY from the environment)."""
    import voyageai

    client = voyageai.AsyncClient()
    found = await client.rerank(query, [e.fact for e in edges], model=RERANK_MODEL, truncation=True)
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
'''


def export_code(model: str) -> ExportCode:
    """The exported module's `rerank()` (its row's export): the SDK's call with this tool's model and truncation."""
    return ExportCode(_EXPORT.format(model=model))
