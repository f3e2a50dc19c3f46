"""Cohere `rerank-v3.5`: a hosted cross-encoder, through the official `cohere` SDK (its v2 async client).

Retries, deadline and failure handling are the hosted rerankers' (hosted.py); the SDK's own retries are
off (`max_retries=0`). Cohere bills per search: one query with up to 100 documents is one search unit
(longer documents count as several), read from the answer's `meta.billed_units.search_units`.
`COHERE_BASE_URL` (or the SDK's `CO_API_URL`) points the SDK at another host, as the tests do.
"""

from __future__ import annotations

import socket
from typing import Any

import cohere
import httpx
from cohere.core.api_error import ApiError

from pipeline.rerankers.base import RerankOutcome
from pipeline.rerankers.hosted import REASON_CHARS, HostedReranker, retried
from pipeline.rerankers.specs import SPECS, ExportCode
from pipeline.settings import Settings
from pipeline.text import one_line

# Cohere cuts each document to `max_tokens_per_doc` (4,096 by default) on its side; a huge passage is cut
# here first, far beyond that (8 characters a token), so it is not uploaded whole.
MAX_DOCUMENT_CHARS = 4_096 * 8


def _message(exc: ApiError) -> str:
    body = exc.body
    if isinstance(body, dict):
        body = body.get("message") or body.get("detail") or body
    return one_line(str(body), REASON_CHARS)


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and what caused it, outermost first (httpx wraps httpcore, which wraps the socket's error)."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def _unreachable_reason(exc: httpx.TransportError) -> str:
    causes = _causes(exc)
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "connection refused"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "host not found"
    if any(isinstance(c, ConnectionResetError) for c in causes):
        return "connection reset"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "server closed the connection"
    return one_line(str(exc) or type(exc).__name__, REASON_CHARS)


class CohereReranker(HostedReranker):
    name = "cohere"
    vendor = SPECS[name].label  # "Cohere", from its spec
    key_env = str(SPECS[name].traits.key_env)
    max_document_chars = MAX_DOCUMENT_CHARS

    def __init__(self, settings: Settings, model: str | None = None) -> None:
        self._settings = settings
        key = settings.cohere_api_key.get_secret_value().strip() if settings.cohere_api_key else ""
        client = None
        if key:
            client = cohere.AsyncClientV2(
                api_key=key,
                base_url=settings.cohere_base_url or "https://api.cohere.com",
                timeout=settings.cohere_timeout_s,
                max_retries=0,  # retries are ours (tenacity), so that they are bounded and visible
            )
        super().__init__(
            model or settings.cohere_rerank_model, settings.cohere_timeout_s, settings.cohere_max_retries, client
        )

    async def _call(self, query: str, documents: list[str]) -> Any:
        return await self._client.rerank(model=self.model, query=query, documents=documents, top_n=len(documents))

    def _is_transient(self, exc: BaseException) -> bool:
        status = getattr(exc, "status_code", None)
        return isinstance(exc, ApiError) and status is not None and (status == 429 or status >= 500)

    def _describe(self, exc: BaseException, attempts: list[BaseException | None]) -> str | None:
        after = retried(attempts)
        if isinstance(exc, httpx.TimeoutException):
            return f"timed out after {self._settings.cohere_timeout_s:.1f} s{after}"
        if isinstance(exc, httpx.TransportError):
            return f"unreachable ({_unreachable_reason(exc)})"
        if not isinstance(exc, ApiError):
            return None
        status = exc.status_code
        if status == 401 or status == 498:
            return f"invalid API key ({status})"
        if status == 429:
            return f"rate limited (429){after}"
        if status is not None and status >= 500:
            return f"server error {status}{after}"
        if status is not None and 200 <= status < 300:
            return "malformed response"  # the SDK could not read the body
        if status in (400, 422):
            return f"request rejected ({status}): {_message(exc)}"
        if status is not None:
            return f"unexpected response (HTTP {status})"
        return _message(exc)

    def _results(self, answer: Any) -> list[tuple[Any, Any]]:
        return [(item.index, item.relevance_score) for item in answer.results]

    def _outcome(self, answer: Any, scores: tuple[float, ...]) -> RerankOutcome:
        billed = answer.meta.billed_units if answer.meta is not None else None
        units = billed.search_units if billed is not None else None
        if units is None or not isinstance(units, int | float) or isinstance(units, bool) or units < 0:
            raise self._fail("malformed response (no billed search units)")
        return RerankOutcome(scores=scores, model=self.model, searches=round(units))


_EXPORT = '''
RERANK_MODEL = {model!r}


async def rerank(graphiti: Graphiti, query: str, edges: list[EntityEdge]) -> list[EntityEdge]:
    """Cohere's reranker over all N (COHERE_API_KEY / CO_API_KEY from the environment)."""
    import cohere

    client = cohere.AsyncClientV2()
    found = await client.rerank(model=RERANK_MODEL, query=query, documents=[e.fact for e in edges], top_n=len(edges))
    return [edges[r.index] for r in sorted(found.results, key=lambda r: (-r.relevance_score, r.index))]
'''


def export_code(model: str) -> ExportCode:
    """The exported module's `rerank()` (its row's export): the SDK's v2 call with this tool's model."""
    return ExportCode(_EXPORT.format(model=model))
