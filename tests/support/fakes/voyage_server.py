"""A loopback stand-in for the Voyage AI REST API, which cannot be reached from here.

The real `voyageai` SDK talks to it unchanged: give the client `base_url=server.base_url`
(`http://127.0.0.1:PORT/v1`; the SDK appends `/rerank` and `/embeddings` to it). Nothing in the
application is mocked; only the far end of the HTTP connection is ours.

It speaks the public API's shapes as the SDK 0.5.0 sends and reads them:

- `POST /v1/rerank` `{query, documents, model, top_k, truncation}` -> `{"object": "list",
  "data": [{"index", "relevance_score"}, ...best first, top_k of them], "model", "usage": {"total_tokens"}}`.
  Scores are deterministic: the share of the query's words found in the document (see `rerank_score`).
- `POST /v1/embeddings` `{input, model, input_type, encoding_format, output_dimension, ...}` ->
  `{"object": "list", "data": [{"object": "embedding", "embedding", "index"}], "model", "usage"}`.
  Vectors are deterministic hashed bags of words (see `expected_embedding`), unit length, in the model's
  dimension (1024 for voyage-finance-2); `input_type` changes them. The SDK asks for
  `encoding_format="base64"` (little-endian float32) unless told otherwise; both forms are served.
- Errors come back as Voyage does: the status code and `{"detail": "..."}`. A wrong or missing
  `Authorization: Bearer <key>` gets 401.

Faults are scripted per request (`server.script(["429", "ok"])`) and every request is recorded
(`server.requests`), as `loopback.py` describes; a scripted status comes back with Voyage's `{"detail": ...}`.

    with FakeVoyageServer(api_key="vk-test") as server:
        settings = Settings(voyage_api_key="vk-test", voyage_base_url=server.base_url)
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
from collections.abc import Iterable
from typing import Any

from tests.support.fakes.loopback import LoopbackHandler, LoopbackServer, words

RERANK_MODELS = frozenset(
    {
        "rerank-2.5",
        "rerank-2.5-lite",
        "rerank-2",
        "rerank-2-lite",
        "rerank-1",
        "rerank-lite-1",
    }
)
EMBED_DIMS = {
    "voyage-finance-2": 1024,
    "voyage-law-2": 1024,
    "voyage-3.5": 1024,
    "voyage-3.5-lite": 1024,
    "voyage-3-large": 1024,
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "voyage-code-3": 1024,
}
INPUT_TYPES = (None, "query", "document")

_ERROR_DETAILS = {
    400: "Invalid request.",
    401: "Provided API key is invalid.",
    403: "Forbidden.",
    404: "Not Found",
    422: "Unprocessable request.",
    429: "You have exceeded your rate limit. Please slow down your requests.",
    500: "Internal server error.",
    502: "Bad gateway.",
    503: "Service is temporarily unavailable.",
    504: "Gateway timeout.",
}


def count_tokens(texts: Iterable[str]) -> int:
    """The fake's token count: one token per word (at least one per text)."""
    return sum(max(1, len(words(t))) for t in texts)


def rerank_score(query: str, document: str) -> float:
    """Share of the query's distinct words that occur in the document, in [0, 1], rounded to 6 places."""
    q = set(words(query))
    if not q:
        return 0.0
    return round(len(q & set(words(document))) / len(q), 6)


def expected_rerank(query: str, documents: list[str], top_k: int | None = None) -> list[tuple[int, float]]:
    """(index, score) best first, ties by index: exactly what the server returns."""
    scored = [(i, rerank_score(query, d)) for i, d in enumerate(documents)]
    scored.sort(key=lambda p: (-p[1], p[0]))
    return scored[:top_k] if top_k else scored


def expected_embedding(text: str, input_type: str | None, dim: int) -> list[float]:
    """Hashed bag of words plus one input-type feature, unit length (float32-rounded, as served)."""
    vec = [0.0] * dim
    features = [*words(text), f"__input_type={input_type}__"]
    for feature in features:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        sign = 1.0 if digest[4] & 1 else -1.0
        vec[bucket] += sign
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [struct.unpack("<f", struct.pack("<f", v / norm))[0] for v in vec]


class _BadRequest(ValueError):
    pass


def _rerank(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _BadRequest("Request body must be a JSON object.")
    query, documents, model = body.get("query"), body.get("documents"), body.get("model")
    if model not in RERANK_MODELS:
        raise _BadRequest(f"Model {model} is not supported. Supported models are {sorted(RERANK_MODELS)}.")
    if not isinstance(query, str) or not isinstance(documents, list) or not documents:
        raise _BadRequest("query must be a string and documents a non-empty list of strings.")
    if not all(isinstance(d, str) for d in documents):
        raise _BadRequest("documents must be strings.")
    top_k = body.get("top_k")
    ranked = expected_rerank(query, documents, top_k)
    return {
        "object": "list",
        "data": [{"index": i, "relevance_score": s} for i, s in ranked],
        "model": model,
        "usage": {"total_tokens": count_tokens([query]) * len(documents) + count_tokens(documents)},
    }


def _embeddings(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _BadRequest("Request body must be a JSON object.")
    texts, model = body.get("input"), body.get("model")
    if isinstance(texts, str):
        texts = [texts]
    if model not in EMBED_DIMS:
        raise _BadRequest(f"Model {model} is not supported. Supported models are {sorted(EMBED_DIMS)}.")
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise _BadRequest("input must be a string or a non-empty list of strings.")
    input_type = body.get("input_type")
    if input_type not in INPUT_TYPES:
        raise _BadRequest(f"input_type must be one of {INPUT_TYPES}.")
    dim = body.get("output_dimension") or EMBED_DIMS[model]
    encoding = body.get("encoding_format")
    data = []
    for i, text in enumerate(texts):
        vec = expected_embedding(text, input_type, dim)
        embedding: Any = vec
        if encoding == "base64":
            embedding = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
        data.append({"object": "embedding", "embedding": embedding, "index": i})
    return {"object": "list", "data": data, "model": model, "usage": {"total_tokens": count_tokens(texts)}}


class _Handler(LoopbackHandler):
    paths = frozenset({"/v1/rerank", "/v1/embeddings"})
    malformed = b'{"object": "list", "data": [{"index": 0, "relevance_sc'

    def answer(self, body: Any) -> dict[str, Any] | None:
        try:
            return _rerank(body) if self.path == "/v1/rerank" else _embeddings(body)
        except _BadRequest as exc:
            self._send_error(400, str(exc))
            return None

    def _send_error(self, status: int, detail: str | None = None) -> None:
        detail = detail or _ERROR_DETAILS.get(status, f"HTTP {status}")
        self._send(status, json.dumps({"detail": detail}).encode())


class FakeVoyageServer(LoopbackServer):
    """The loopback Voyage API. Use as a context manager, or call `start()` / `stop()`.

    `base_url` is what to pass as the SDK's `base_url` (the SDK appends `/rerank`, `/embeddings`).
    """

    api_name = "Voyage"
    handler = _Handler

    def __init__(self, api_key: str = "vk-test", hang_s: float = 30.0) -> None:
        super().__init__(api_key, hang_s)
