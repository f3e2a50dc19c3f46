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

Faults are scripted per request: `server.script(["429", "ok"])` answers the next request with 429, the
one after normally; once the script is used up every request is answered normally. Modes:
`ok`, `hang` (answer nothing for `hang_s`; teardown releases it at once), `malformed` (200 with a body
that is not JSON), `partial` (a normal answer with its last `data` item dropped), or any HTTP status as
a string (`"429"`, `"500"`, `"503"`, `"400"`, ...): the status with a Voyage-style `{"detail": ...}`.
Every request is recorded (`server.requests`: path, parsed body, headers) whatever it was answered.

    with FakeVoyageServer(api_key="vk-test") as server:
        settings = Settings(voyage_api_key="vk-test", voyage_base_url=server.base_url)
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

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
FAULT_MODES = ("ok", "hang", "malformed", "partial")

_WORD = re.compile(r"\w+")

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


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


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


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any  # parsed JSON, or the raw text when it was not JSON
    headers: dict[str, str] = field(default_factory=dict)
    answered: str = "ok"  # the mode or status it was answered with


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers at teardown

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k: v for k, v in self.headers.items()}

        if self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            fake._record(self.command, self.path, body, headers, "401")
            self._send_error(401)
            return
        if self.command != "POST" or self.path not in ("/v1/rerank", "/v1/embeddings"):
            fake._record(self.command, self.path, body, headers, "404")
            self._send_error(404)
            return

        mode = fake._next_mode()
        fake._record(self.command, self.path, body, headers, mode)
        if mode == "hang":
            fake._closing.wait(fake.hang_s)
            return  # the client has given up (or we are shutting down): close without an answer
        if mode == "malformed":
            self._send(200, b'{"object": "list", "data": [{"index": 0, "relevance_sc')
            return
        if mode not in ("ok", "partial"):
            self._send_error(int(mode))
            return
        try:
            payload = _rerank(body) if self.path == "/v1/rerank" else _embeddings(body)
        except _BadRequest as exc:
            self._send_error(400, str(exc))
            return
        if mode == "partial":
            payload["data"] = payload["data"][:-1]
        self._send(200, json.dumps(payload).encode())

    def _send_error(self, status: int, detail: str | None = None) -> None:
        detail = detail or _ERROR_DETAILS.get(status, f"HTTP {status}")
        self._send(status, json.dumps({"detail": detail}).encode())

    def _send(self, status: int, payload: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client went away first
            pass


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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeVoyageServer


class FakeVoyageServer:
    """The loopback Voyage API. Use as a context manager, or call `start()` / `stop()`."""

    def __init__(self, api_key: str = "vk-test", hang_s: float = 30.0) -> None:
        self.api_key = api_key
        self.hang_s = hang_s
        self._lock = threading.Lock()
        self._script: deque[str] = deque()
        self._requests: list[RecordedRequest] = []
        self._closing = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> FakeVoyageServer:
        self._closing.clear()
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-voyage", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # releases hanging handlers at once
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeVoyageServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake Voyage server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """What to pass as the SDK's `base_url` (the SDK appends `/rerank`, `/embeddings`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting and inspection
    def script(self, modes: Iterable[str]) -> None:
        """Answer the next requests with these modes, in order; then normally."""
        modes = [str(m) for m in modes]
        for m in modes:
            if m not in FAULT_MODES and not (m.isdigit() and 100 <= int(m) <= 599):
                raise ValueError(f"unknown fault mode {m!r}: use {FAULT_MODES} or an HTTP status")
        with self._lock:
            self._script.extend(modes)

    def reset(self) -> None:
        """Forget recorded requests and any script left."""
        with self._lock:
            self._script.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def _next_mode(self) -> str:
        with self._lock:
            return self._script.popleft() if self._script else "ok"

    def _record(self, method: str, path: str, body: Any, headers: dict[str, str], answered: str) -> None:
        with self._lock:
            self._requests.append(RecordedRequest(method, path, body, headers, answered))
