"""The judge's model: configuration, graphiti's LLM client over the openai SDK, one request per attempt, token
counts, and what a failed request means.

`make_llm` builds graphiti's own client: `OpenAIGenericClient` (chat completions: OpenAI or any compatible server,
vLLM, Ollama) or `OpenAIClient` (OpenAI's Responses API). Each gets an `openai.AsyncOpenAI` with the request
timeout and no retries of its own, whose one method graphiti calls is wrapped to count the tokens each answer
reports (graphiti's chat client drops `usage`).

`ask` sends one request through graphiti's `_generate_response`, the one method every graphiti LLM client
implements (message conversion, response format, fence stripping, JSON parsing), rather than its public
`generate_response`. The public wrapper retries rate limits and unparsable answers itself, 4 attempts with
random 5-120 s waits that ignore the server's Retry-After and our attempt budget, and appends a language
instruction that is not part of our versioned prompt. Going one level down, every attempt is exactly one
request, and `grade.py` owns the whole retry policy (`is_transient`, `retry_wait_s`) within `max_attempts` and
the run's deadline.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
import pydantic
from graphiti_core.llm_client import LLMClient, LLMConfig, OpenAIClient
from graphiti_core.llm_client.errors import EmptyResponseError, RefusalError
from graphiti_core.llm_client.errors import RateLimitError as GraphitiRateLimitError
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from graphiti_core.prompts.models import Message
from pydantic import SecretStr

from pipeline.errors import InvalidInput
from pipeline.judge.prompt import JudgeAnswer
from pipeline.openai_errors import openai_failure
from pipeline.settings import Settings
from pipeline.text import one_line

__all__ = [
    "AnswerTooLarge",
    "BadAnswer",
    "JudgeConfig",
    "TokenUsage",
    "ask",
    "close_llm",
    "counting_tokens",
    "describe_failure",
    "is_transient",
    "judge_config",
    "make_llm",
    "parse_answer",
    "retry_wait_s",
]

Api = Literal["chat", "responses"]
ANSWER_MAX_TOKENS = 300  # a grade and one short sentence; a longer answer is cut, fails to parse, and is retried
REASON_CHARS = 300  # a reason is kept to this many characters
FAILURE_CHARS = 160  # a server's error message, in a one-line failure
# an answer's HTTP body is read up to this: 300 tokens and OpenAI's envelope are a few kB, and a server that sent
# 100 MB once took 1 GB of memory to parse
ANSWER_MAX_BYTES = 1 << 20
# a count of tokens past this for one answer is no count (one server reported 10**30, which no database column
# holds): it is taken as unknown, counted 0
TOKENS_PER_ANSWER_MAX = 10_000_000
NO_KEY = (
    "No LLM judge: set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server such as vLLM or Ollama)."
)


@dataclass(frozen=True, kw_only=True)
class JudgeConfig:
    model: str
    base_url: str | None  # None: OpenAI's own API
    api_key: SecretStr = field(repr=False)
    api: Api
    concurrency: int  # requests in flight at once
    timeout_s: float  # one request
    max_attempts: int  # per pair, the first request included
    deadline_s: float  # a whole run
    price_input_per_m: float  # dollars per million tokens
    price_output_per_m: float

    @property
    def where(self) -> str:
        """The server, as a failure names it."""
        return self.base_url or "the OpenAI API"

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.price_input_per_m + output_tokens * self.price_output_per_m) / 1_000_000


def judge_config(settings: Settings) -> JudgeConfig:
    """The judge's configuration from the settings; no key is InvalidInput naming OPENAI_API_KEY (a server that
    wants no key takes any value)."""
    key = settings.openai_api_key.get_secret_value().strip() if settings.openai_api_key else ""
    if not key:
        raise InvalidInput(NO_KEY)
    return JudgeConfig(
        model=settings.judge_model,
        base_url=settings.openai_base_url or None,
        api_key=SecretStr(key),
        api=settings.judge_api,
        concurrency=settings.judge_concurrency,
        timeout_s=settings.judge_timeout_s,
        max_attempts=settings.judge_max_attempts,
        deadline_s=settings.judge_deadline_s,
        price_input_per_m=settings.judge_price_input,
        price_output_per_m=settings.judge_price_output,
    )


# --- tokens --------------------------------------------------------------------------------------------


@dataclass
class TokenUsage:
    """Tokens the server reported for the answers received while it was being counted into."""

    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, usage: Any) -> None:
        # chat completions say prompt/completion tokens; the Responses API input/output tokens
        self.input_tokens += _count(usage, "prompt_tokens", "input_tokens")
        self.output_tokens += _count(usage, "completion_tokens", "output_tokens")


def _count(usage: Any, *names: str) -> int:
    for name in names:
        value = getattr(usage, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= TOKENS_PER_ANSWER_MAX:
            return value
    return 0  # missing, or not a count (negative, absurd): unknown


# per task: each pair is graded in a task of its own, so concurrent answers are counted to their own pair
_COUNTING: ContextVar[TokenUsage | None] = ContextVar("judge_token_usage", default=None)


@contextmanager
def counting_tokens() -> Iterator[TokenUsage]:
    """Count the tokens of every answer received in this block (in this task) into the TokenUsage yielded."""
    usage = TokenUsage()
    token = _COUNTING.set(usage)
    try:
        yield usage
    finally:
        _COUNTING.reset(token)


def _count_tokens_of(resource: Any, method_name: str) -> None:
    """Wrap `resource.<method_name>` so each answer's `usage` is counted (see `counting_tokens`)."""
    method = getattr(resource, method_name)

    async def counted(*args: Any, **kwargs: Any) -> Any:
        response = await method(*args, **kwargs)
        usage = _COUNTING.get()
        if usage is not None:
            usage.add(getattr(response, "usage", None))
        return response

    setattr(resource, method_name, counted)


# the HTTP library the openai SDK is built on (httpx, or its fork httpx2 in recent SDKs): the transport below must
# be that library's, or the SDK's requests fail its type checks
httpx: Any = importlib.import_module(openai.DefaultAsyncHttpxClient.__mro__[1].__module__.partition(".")[0])


class AnswerTooLarge(Exception):
    """The server's answer was longer than ANSWER_MAX_BYTES; it is not read further."""

    def __init__(self) -> None:
        super().__init__(f"an answer larger than {ANSWER_MAX_BYTES // 1024} kB (not read)")


class _CappedBody(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, limit: int) -> None:
        self._stream, self._limit = stream, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._stream:
            seen += len(chunk)
            if seen > self._limit:
                raise AnswerTooLarge
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class _CappedTransport(httpx.AsyncBaseTransport):
    """httpx's transport, reading no answer past `limit` bytes (httpx itself reads any length into memory)."""

    def __init__(self, limit: int) -> None:
        self._inner, self._limit = httpx.AsyncHTTPTransport(), limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > self._limit:
            await response.aclose()
            raise AnswerTooLarge
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CappedBody(response.stream, self._limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


# graphiti's clients log every failed request ("Error in generating LLM response: ...") before raising it; the
# judge retries and reports failures itself (one summary line per run, see grade.py), so those lines are dropped
# while the judge asks (a context variable: graphiti's other uses still log)
_ASKING: ContextVar[bool] = ContextVar("judge_asking", default=False)
_GRAPHITI_LOGGERS = ("graphiti_core.llm_client.openai_generic_client", "graphiti_core.llm_client.openai_base_client")


class _QuietWhileAsking(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _ASKING.get()


_QUIET = _QuietWhileAsking()


def _quiet_graphiti() -> None:
    for name in _GRAPHITI_LOGGERS:
        logger = logging.getLogger(name)
        if _QUIET not in logger.filters:
            logger.addFilter(_QUIET)


def make_llm(config: JudgeConfig) -> LLMClient:
    """graphiti's client for `config.api`, over an AsyncOpenAI with the request timeout, no SDK retries, answers
    read up to ANSWER_MAX_BYTES, and token counting. The caller closes it (`close_llm`)."""
    key = config.api_key.get_secret_value()
    _quiet_graphiti()
    http = openai.DefaultAsyncHttpxClient(transport=_CappedTransport(ANSWER_MAX_BYTES))
    sdk = openai.AsyncOpenAI(
        api_key=key, base_url=config.base_url, timeout=config.timeout_s, max_retries=0, http_client=http
    )
    llm_config = LLMConfig(
        api_key=key, model=config.model, small_model=config.model, base_url=config.base_url, temperature=0
    )
    if config.api == "responses":
        _count_tokens_of(sdk.responses, "parse")  # what graphiti's OpenAIClient calls for a structured answer
        return OpenAIClient(config=llm_config, client=sdk, max_tokens=ANSWER_MAX_TOKENS)
    _count_tokens_of(sdk.chat.completions, "create")
    return OpenAIGenericClient(config=llm_config, client=sdk, max_tokens=ANSWER_MAX_TOKENS)


async def close_llm(llm: LLMClient) -> None:
    """Close the client's connections (graphiti's clients keep the SDK client as `client`)."""
    sdk = getattr(llm, "client", None)
    if isinstance(sdk, openai.AsyncOpenAI):
        await sdk.close()


# --- one request -----------------------------------------------------------------------------------------


class BadAnswer(ValueError):
    """The model answered, but not with a grade of the rubric and a reason."""


async def ask(llm: LLMClient, messages: list[Message]) -> JudgeAnswer:
    """One request through graphiti's client (see the module doc for why not `generate_response`)."""
    asking = _ASKING.set(True)
    try:
        answer = await llm._generate_response(messages, JudgeAnswer, ANSWER_MAX_TOKENS)
    finally:
        _ASKING.reset(asking)
    if isinstance(answer, tuple):  # graphiti's Responses API client returns (answer, input tokens, output tokens)
        answer = answer[0]
    return parse_answer(answer)


def parse_answer(raw: object) -> JudgeAnswer:
    """The answer as a JudgeAnswer, or BadAnswer saying what is wrong with it (one line)."""
    if not isinstance(raw, dict):
        raise BadAnswer("an answer that is not a JSON object")
    grade = raw.get("grade")
    if isinstance(grade, bool):
        raise BadAnswer(f"grade {grade!r} is not one of 0-3")
    try:
        answer = JudgeAnswer.model_validate(raw)
    except pydantic.ValidationError as exc:
        if "grade" not in raw:
            raise BadAnswer("an answer without a grade") from None
        if any(e["loc"] == ("grade",) for e in exc.errors()):
            raise BadAnswer(f"grade {one_line(repr(grade), 40)} is not one of 0-3") from None
        raise BadAnswer("an answer without a reason") from None
    return answer.model_copy(update={"reason": one_line(answer.reason, REASON_CHARS)})


# --- failures ---------------------------------------------------------------------------------------------

RETRY_STATUSES = frozenset({408, 409, 429})
RETRY_AFTER_MAX_S = 30.0  # a server's Retry-After is honoured up to this


def _status_error(exc: BaseException) -> openai.APIStatusError | None:
    """The SDK's status error behind `exc` (graphiti re-raises a 429 as its own RateLimitError, from it)."""
    for candidate in (exc, exc.__cause__):
        if isinstance(candidate, openai.APIStatusError):
            return candidate
    return None


def too_large(exc: BaseException) -> AnswerTooLarge | None:
    """The AnswerTooLarge behind `exc` (the SDK re-raises a transport's error as its connection error)."""
    cause: BaseException | None = exc
    for _ in range(5):
        if cause is None or isinstance(cause, AnswerTooLarge):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def is_transient(exc: BaseException) -> bool:
    """Worth another request: no answer in time, no connection, 408/409/429/5xx, or an answer that was not a
    grade of the rubric (a model may answer better the next time). A refused key, an unknown model, a
    bad request or an answer past ANSWER_MAX_BYTES would fail the same way again."""
    if too_large(exc) is not None:
        return False
    if isinstance(exc, GraphitiRateLimitError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUSES or exc.status_code >= 500
    return isinstance(
        exc,
        TimeoutError
        | openai.APIConnectionError  # its timeout error too
        | openai.APIResponseValidationError
        | BadAnswer
        | json.JSONDecodeError
        | EmptyResponseError
        | pydantic.ValidationError,
    )


def retry_wait_s(exc: BaseException | None) -> float:
    """What the server asked us to wait before the next request (`retry-after-ms` or `retry-after`), capped."""
    status = _status_error(exc) if exc is not None else None
    if status is None:
        return 0.0
    headers = status.response.headers
    try:
        if headers.get("retry-after-ms"):
            return min(RETRY_AFTER_MAX_S, max(0.0, float(headers["retry-after-ms"]) / 1000))
        if headers.get("retry-after"):
            return min(RETRY_AFTER_MAX_S, max(0.0, float(headers["retry-after"])))
    except ValueError:  # an HTTP date, or junk: our own backoff decides
        pass
    return 0.0


def describe_failure(exc: BaseException, config: JudgeConfig) -> str:
    """A failed request as a few words for a one-line message."""
    big = too_large(exc)
    if big is not None:
        return str(big)
    if isinstance(exc, GraphitiRateLimitError):  # graphiti's client turns the SDK's 429 into its own error
        return "rate limited (429)"
    model_setting = "RETRIEVAL_LAB_JUDGE_MODEL and OPENAI_BASE_URL"
    described = openai_failure(exc, config.where, config.model, model_setting, config.timeout_s, FAILURE_CHARS)
    if described:
        return described
    if isinstance(exc, BadAnswer):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError | openai.APIResponseValidationError):
        return "an answer that is not JSON"
    if isinstance(exc, EmptyResponseError):
        return "an empty answer"
    if isinstance(exc, pydantic.ValidationError):
        return "an answer that is not a grade 0-3 with a reason"
    if isinstance(exc, RefusalError):
        return f"the model refused: {one_line(exc, FAILURE_CHARS)}"
    return f"{type(exc).__name__}: {one_line(exc, FAILURE_CHARS)}"
