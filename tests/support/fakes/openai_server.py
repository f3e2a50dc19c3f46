"""A loopback stand-in for OpenAI's embeddings, chat completions and Responses endpoints (no OpenAI API can be
reached here), reached by the real openai SDK through base_url.

Give the SDK `base_url=server.base_url` (`http://127.0.0.1:PORT/v1`; it appends `/embeddings`): either
`openai.AsyncOpenAI(base_url=..., api_key=...)` or graphiti's `OpenAIEmbedder(OpenAIEmbedderConfig(
api_key=..., base_url=..., embedding_model=..., embedding_dim=...))`. Nothing in the application is mocked;
only the far end of the HTTP connection is ours.

It speaks the public API's shapes as the SDK (3.x) sends and reads them:

- `POST /v1/embeddings` `{model, input: str | list[str] | token ids, dimensions?, encoding_format?, user?}` ->
  `{"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model",
  "usage": {"prompt_tokens", "total_tokens"}}`. Vectors are deterministic hashed bags of words (see
  `expected_embedding`: texts sharing words point the same way), unit length, float32-rounded, in
  `dimensions` or the model's native size (text-embedding-3-small 1536, -3-large 3072, ada-002 1536).
  The SDK asks for `encoding_format="base64"` (little-endian float32) whenever the caller names no format,
  numpy or not, and decodes it itself; both forms are served.
- `POST /v1/chat/completions` `{model, messages, response_format?, temperature?, max_tokens?}` and
  `POST /v1/responses` `{model, input: messages, text?: {format}, ...}` answer the LLM judge's prompt
  (`pipeline/judge/prompt.py`) from a script: `server.judge` is a callable `(query, fact) -> (grade, reason)`
  or a mapping `{(query, fact): (grade, reason)}`, the query and the fact read back out of the prompt's tags
  (`judged_pair`). An answer given as a string is sent as the message content as it is (not JSON, say).
  A prompt without the judge's tags, or a pair the script does not answer, is a 400: a test that sends one
  is wrong. The answers have OpenAI's shapes (`chat.completion`, `response`) with `usage`: one token per word
  of the messages (`prompt_tokens` / `input_tokens`) and of the content (`completion_tokens` /
  `output_tokens`). Every answer sent is kept (`server.answers`).
- Errors come back as OpenAI sends them: the status and `{"error": {"message", "type", "param", "code"}}`.
  A wrong key gets 401 `invalid_api_key`; an unknown model 404 `model_not_found`; a bad body 400.

Faults are scripted per request (`server.script(["429", "ok"])`) and every request is recorded
(`server.requests`), as `loopback.py` describes; a scripted status comes back with OpenAI's error JSON.
The SDK retries 408/409/429/5xx itself (`max_retries`, default 2) after
`retry-after-ms` when the server sends one: set `retry_after_ms` to keep retrying tests fast.

    with FakeOpenAIServer(api_key="sk-test") as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        result = await client.embeddings.create(model="text-embedding-3-small", input=["a fact"])
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from tests.support.fakes.loopback import LoopbackHandler, LoopbackServer, RecordedRequest, words

__all__ = ["EMBED_DIMS", "FakeOpenAIServer", "JudgeScript", "RecordedRequest", "expected_embedding", "judged_pair"]

# what the judge answers a (query, fact): (grade, reason), or a string sent as the content as it is
JudgeAnswer = tuple[int, str] | str
JudgeScript = Callable[[str, str], JudgeAnswer] | Mapping[tuple[str, str], JudgeAnswer]

EMBED_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
SHORTENABLE = frozenset({"text-embedding-3-small", "text-embedding-3-large"})  # accept `dimensions`

# status -> (message, type, code), as OpenAI words them
_ERRORS: dict[int, tuple[str, str, str | None]] = {
    400: ("Invalid request.", "invalid_request_error", None),
    401: ("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    403: ("You are not allowed to sample from this model.", "invalid_request_error", None),
    404: ("Not found.", "invalid_request_error", None),
    429: (
        "Rate limit reached for requests. Please try again in 1ms.",
        "requests",
        "rate_limit_exceeded",
    ),
    500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    502: ("Bad gateway.", "server_error", None),
    503: ("The engine is currently overloaded, please try again later.", "server_error", None),
    504: ("Gateway timeout.", "server_error", None),
}
_DEFAULT = object()  # "the status's usual error code"


def _features(item: str | list[int]) -> list[str]:
    if isinstance(item, str):
        return words(item)
    return [f"__token={t}__" for t in item]


def count_tokens(items: Iterable[str | list[int]]) -> int:
    """The fake's token count: one per word (token ids count one each), at least one per input."""
    return sum(max(1, len(_features(i))) for i in items)


def expected_embedding(text: str | list[int], dim: int) -> list[float]:
    """Hashed bag of words, unit length, float32-rounded: exactly what the server returns for `text`."""
    vec = [0.0] * dim
    features = _features(text) or ["__empty__"]
    for feature in features:
        digest = hashlib.blake2b(feature.encode(), digest_size=8, person=b"fake-openai").digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        vec[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [struct.unpack("<f", struct.pack("<f", v / norm))[0] for v in vec]


class _ApiError(Exception):
    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code


def _inputs(raw: Any) -> list[str | list[int]]:
    """OpenAI's four input forms: a string, a list of strings, one token array, a list of token arrays."""
    if isinstance(raw, str):
        items: list[Any] = [raw]
    elif isinstance(raw, list) and raw and all(isinstance(t, int) for t in raw):
        items = [raw]
    elif isinstance(raw, list) and raw:
        items = raw
    else:
        raise _ApiError(400, "'$.input' is invalid. Please check the API reference.", "input")
    for item in items:
        is_text = isinstance(item, str) and item != ""
        is_tokens = isinstance(item, list) and item and all(isinstance(t, int) for t in item)
        if not (is_text or is_tokens):
            raise _ApiError(400, "'$.input' is invalid. Please check the API reference.", "input")
    if len(items) > 2048:
        raise _ApiError(400, "'$.input' is too long: at most 2048 inputs per request.", "input")
    return items


def _embeddings(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _ApiError(400, "We could not parse the JSON body of your request.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise _ApiError(400, "you must provide a model parameter", "model")
    if model not in EMBED_DIMS:
        raise _ApiError(
            404, f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found"
        )
    items = _inputs(body.get("input"))
    dim = EMBED_DIMS[model]
    if body.get("dimensions") is not None:
        wanted = body["dimensions"]
        if model not in SHORTENABLE:
            raise _ApiError(400, "This model does not support specifying dimensions.", "dimensions")
        if not isinstance(wanted, int) or isinstance(wanted, bool) or not 1 <= wanted <= dim:
            raise _ApiError(400, f"'$.dimensions' must be an integer between 1 and {dim}.", "dimensions")
        dim = wanted
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise _ApiError(400, f"'{encoding}' is not one of ['float', 'base64'] - 'encoding_format'", "encoding_format")
    data = []
    for i, item in enumerate(items):
        vec = expected_embedding(item, dim)
        embedding: Any = vec
        if encoding == "base64":
            embedding = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
        data.append({"object": "embedding", "index": i, "embedding": embedding})
    tokens = count_tokens(items)
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


_TAGGED = {tag: re.compile(rf"<{tag}>\n(.*?)\n</{tag}>", re.DOTALL) for tag in ("query", "fact")}


def judged_pair(prompt: str) -> tuple[str, str]:
    """The (query, fact) the judge's user message carries, unescaped; ValueError when it carries none."""
    texts = []
    for tag, pattern in _TAGGED.items():
        match = pattern.search(prompt)
        if match is None:
            raise ValueError(f"no <{tag}> in the prompt")
        texts.append(html.unescape(match.group(1)))
    return texts[0], texts[1]


def _text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _messages(body: Any, field: str) -> list[dict[str, Any]]:
    if not isinstance(body, dict):
        raise _ApiError(400, "We could not parse the JSON body of your request.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise _ApiError(400, "you must provide a model parameter", "model")
    messages = body.get(field)
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise _ApiError(400, f"'$.{field}' is invalid. Please check the API reference.", field)
    return messages


class _Handler(LoopbackHandler):
    paths = frozenset({"/v1/embeddings", "/v1/chat/completions", "/v1/responses"})
    malformed = b'{"object": "list", "data": [{"object": "embedding", "index": 0, "embedd'

    def answer(self, body: Any) -> dict[str, Any] | None:
        try:
            if self.path == "/v1/chat/completions":
                payload = self._chat(body)
            elif self.path == "/v1/responses":
                payload = self._response(body)
            else:
                payload = _embeddings(body)
        except _ApiError as exc:
            self._send_error(exc.status, exc.message, param=exc.param, code=exc.code or _DEFAULT)
            return None
        override = self.fake.usage_tokens
        if override is not None and self.path != "/v1/embeddings":
            payload["usage"] = {k: override if k.endswith("tokens") else v for k, v in payload["usage"].items()}
        self.fake._keep_answer(self.path, payload)
        return payload

    def _judge(self, messages: list[dict[str, Any]]) -> tuple[str, int]:
        """The scripted content for the judge's prompt, and the prompt's token count."""
        texts = [_text_of(m.get("content")) for m in messages]
        user = next((t for m, t in zip(messages, texts, strict=True) if m.get("role") == "user"), "")
        try:
            pair = judged_pair(user)
        except ValueError as exc:
            raise _ApiError(400, f"The stand-in answers only the LLM judge's prompt: {exc}.") from None
        script = self.fake.judge
        try:
            answer = script(*pair) if callable(script) else script[pair]  # type: ignore[index]
        except (KeyError, TypeError):
            raise _ApiError(400, f"The stand-in's script does not answer the pair {pair!r}.") from None
        content = answer if isinstance(answer, str) else json.dumps({"grade": answer[0], "reason": answer[1]})
        return content, max(1, sum(len(words(t)) for t in texts))

    def _chat(self, body: Any) -> dict[str, Any]:
        content, prompt_tokens = self._judge(_messages(body, "messages"))
        completion_tokens = max(1, len(words(content)))
        return {
            "id": f"chatcmpl-{self.fake._next_request_id()}",
            "object": "chat.completion",
            "created": 1_760_000_000,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _response(self, body: Any) -> dict[str, Any]:
        content, input_tokens = self._judge(_messages(body, "input"))
        output_tokens = max(1, len(words(content)))
        return {
            "id": f"resp_{self.fake._next_request_id()}",
            "object": "response",
            "created_at": 1_760_000_000,
            "status": "completed",
            "model": body["model"],
            "output": [
                {
                    "type": "message",
                    "id": f"msg_{self.fake._next_request_id()}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": content, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "temperature": body.get("temperature"),
            "text": body.get("text") or {"format": {"type": "text"}},
            "error": None,
            "incomplete_details": None,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input_tokens + output_tokens,
            },
        }

    def refuse_key(self, authorization: str) -> None:
        if not authorization.startswith("Bearer ") or authorization == "Bearer ":
            message = "You didn't provide an API key. You need to provide your API key in an Authorization header."
            self._send_error(401, message, code=None)
        else:
            shown = authorization.removeprefix("Bearer ")[:8] + "*****"
            message = f"Incorrect API key provided: {shown}. You can find your API key in your account settings."
            self._send_error(401, message, code="invalid_api_key")

    def not_found(self) -> None:
        self._send_error(404, f"Invalid URL ({self.command} {self.path})")

    @property
    def fake(self) -> FakeOpenAIServer:
        return cast("FakeOpenAIServer", self.server.fake)

    def headers_for_every_answer(self) -> dict[str, str]:
        return {"x-request-id": self.fake._next_request_id()}

    def _send_error(
        self, status: int, message: str | None = None, *, param: str | None = None, code: object = _DEFAULT
    ) -> None:
        default_message, kind, default_code = _ERRORS.get(status, (f"HTTP {status}", "server_error", None))
        code = default_code if code is _DEFAULT else code
        error = {"message": message or default_message, "type": kind, "param": param, "code": code}
        extra = {}
        if self.fake.retry_after_ms is not None and (status == 429 or status >= 500):
            extra["retry-after-ms"] = str(self.fake.retry_after_ms)
        self._send(status, json.dumps({"error": error}).encode(), extra)


class FakeOpenAIServer(LoopbackServer):
    """The loopback OpenAI API (embeddings, the judge's chat completions and responses). Use as a context
    manager, or call `start()` / `stop()`.

    `base_url` is what to pass as the SDK's `base_url` (the SDK appends `/embeddings`, `/chat/completions`, ...).
    """

    api_name = "OpenAI"
    handler = _Handler

    def __init__(
        self,
        api_key: str = "sk-test",
        hang_s: float = 30.0,
        retry_after_ms: int | None = None,
        judge: JudgeScript | None = None,
    ) -> None:
        super().__init__(api_key, hang_s)
        self.retry_after_ms = retry_after_ms  # sent with 429 and 5xx answers when set
        self.judge: JudgeScript = judge if judge is not None else {}
        self.usage_tokens: int | None = None  # when set, every judge answer reports this many tokens of each kind
        self._request_ids = itertools.count(1)
        self._answers: list[tuple[str, dict[str, Any]]] = []

    def reset(self) -> None:
        """Also forget the answers sent (the judge's script stays)."""
        super().reset()
        with self._lock:
            self._answers.clear()
            self.usage_tokens = None

    @property
    def answers(self) -> list[tuple[str, dict[str, Any]]]:
        """(path, body) of every 200 answer sent by the API's own logic, in order."""
        with self._lock:
            return list(self._answers)

    def _keep_answer(self, path: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self._answers.append((path, payload))

    def _next_request_id(self) -> str:
        with self._lock:
            return f"req_fake{next(self._request_ids):06d}"
