"""A loopback stand-in for Cohere's v2 rerank API, which cannot be reached from here.

The real `cohere` SDK talks to it unchanged: set `COHERE_BASE_URL` (`Settings.cohere_base_url`) to
`server.base_url` (`http://127.0.0.1:PORT`; the SDK appends `/v2/rerank`). Nothing in the application is
mocked; only the far end of the HTTP connection is ours.

It speaks the public API's shapes as the SDK 7.x sends and reads them:

- `POST /v2/rerank` `{model, query, documents, top_n, max_tokens_per_doc}` -> `{"id", "results": [{"index",
  "relevance_score"}, ...best first, top_n of them], "meta": {"api_version": {"version": "2"},
  "billed_units": {"search_units"}}}`. Scores are the Voyage stand-in's (the share of the query's words found
  in the document). Billing as Cohere documents it: one search unit per query with up to 100 documents, a
  document longer than 500 tokens (with the query) counting as one more document per 500 tokens (a token
  here is a word).
- Errors come back as Cohere does: the status code and `{"message": "..."}`. A wrong or missing
  `Authorization: Bearer <key>` gets 401.

Faults are scripted per request (`server.script(["429", "ok"])`) and every request is recorded
(`server.requests`), as `loopback.py` describes.

    with FakeCohereServer(api_key="co-test") as server:
        settings = Settings(cohere_api_key="co-test", cohere_base_url=server.base_url)
"""

from __future__ import annotations

import json
import math
from typing import Any

from tests.support.fakes.loopback import LoopbackHandler, LoopbackServer, words
from tests.support.fakes.voyage_server import expected_rerank

RERANK_MODELS = frozenset({"rerank-v3.5", "rerank-english-v3.0", "rerank-multilingual-v3.0"})
DOCUMENTS_PER_SEARCH = 100
TOKENS_PER_CHUNK = 500

_ERROR_MESSAGES = {
    400: "invalid request",
    401: "invalid api token",
    404: "not found",
    422: "unprocessable entity",
    429: "You are using a Trial key, which is limited to 10 API calls / minute.",
    500: "internal server error",
    503: "service unavailable",
}


def search_units(query: str, documents: list[str]) -> int:
    """What Cohere bills: documents (split into 500-token chunks, with the query) per 100, rounded up."""
    q = len(words(query))
    chunks = sum(max(1, math.ceil((q + len(words(d))) / TOKENS_PER_CHUNK)) for d in documents)
    return max(1, math.ceil(chunks / DOCUMENTS_PER_SEARCH))


class _BadRequest(ValueError):
    pass


def _rerank(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _BadRequest("invalid request: body must be a JSON object")
    query, documents, model = body.get("query"), body.get("documents"), body.get("model")
    if model not in RERANK_MODELS:
        raise _BadRequest(f"model '{model}' not found, make sure the correct model ID was used")
    if not isinstance(query, str) or not query or not isinstance(documents, list) or not documents:
        raise _BadRequest("invalid request: query must be a non-empty string and documents a non-empty list")
    if not all(isinstance(d, str) for d in documents):
        raise _BadRequest("invalid request: documents must be strings")
    ranked = expected_rerank(query, documents, body.get("top_n"))
    return {
        "id": "loopback-rerank",
        "results": [{"index": i, "relevance_score": s} for i, s in ranked],
        "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": search_units(query, documents)}},
    }


class _Handler(LoopbackHandler):
    paths = frozenset({"/v2/rerank"})
    malformed = b'{"id": "x", "results": [{"index": 0, "relevance_sc'
    list_field = "results"

    def answer(self, body: Any) -> dict[str, Any] | None:
        try:
            return _rerank(body)
        except _BadRequest as exc:
            self._send_error(400, str(exc))
            return None

    def _send_error(self, status: int, message: str | None = None) -> None:
        message = message or _ERROR_MESSAGES.get(status, f"HTTP {status}")
        self._send(status, json.dumps({"message": message}).encode())


class FakeCohereServer(LoopbackServer):
    """The loopback Cohere API. Use as a context manager, or call `start()` / `stop()`."""

    api_name = "Cohere"
    handler = _Handler

    def __init__(self, api_key: str = "co-test", hang_s: float = 30.0) -> None:
        super().__init__(api_key, hang_s)

    @property
    def base_url(self) -> str:
        """What to pass as the SDK's `base_url` (the SDK appends `/v2/rerank`)."""
        return f"http://127.0.0.1:{self.port}"
