"""One wording for a failed request to an OpenAI-compatible server, shared by the embedder and the LLM judge."""

from __future__ import annotations

import openai

from pipeline.text import one_line


def openai_failure(
    exc: BaseException, where: str, model: str, model_setting: str, timeout_s: float, limit: int, after: str = ""
) -> str | None:
    """`exc` as a few words naming the setting to check, or None when it is not the SDK's error. `where` names
    the server, `after` says how often it was retried ("" or " (after 2 retries)")."""
    if isinstance(exc, openai.AuthenticationError):
        return f"{where} refused the API key ({exc.status_code}): check OPENAI_API_KEY"
    if isinstance(exc, openai.NotFoundError):
        return f"{where} has no model {model!r} (404): check {model_setting}"
    if isinstance(exc, openai.RateLimitError):
        return f"rate limited (429){after}"
    if isinstance(exc, TimeoutError | openai.APITimeoutError):  # the SDK's, or a caller's own deadline
        return f"no answer from {where} within {timeout_s:g} s{after}"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach {where}{after}: check OPENAI_BASE_URL and the network"
    if isinstance(exc, openai.APIStatusError):
        message = exc.body.get("message") if isinstance(exc.body, dict) else exc.message
        return f"{where} answered {exc.status_code}: {one_line(message, limit)}"
    return None
