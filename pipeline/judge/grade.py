"""Grade (query, fact) pairs with the LLM judge: cache first, then concurrent requests, bounded retries, a
deadline for the whole run, and a one-line failure that keeps what was graded.

- Identical pairs (the same query and fact text) are graded once; every key among them gets the grade. The
  tokens are counted once, on the first of those keys.
- The cache (model, prompt version, texts) answers first: a cached grade costs no request and no tokens.
- The rest go at most `concurrency` at a time. Each request has `timeout_s`; a transient failure (no answer,
  no connection, 408/409/429/5xx, an answer that is not a grade 0-3 with a reason) is retried with
  exponential backoff (or the server's Retry-After), `max_attempts` requests in all per pair.
- Each grade is written to the cache as soon as it comes, so a run cut short resumes where it stopped.
- The first pair that still fails stops the run: no new request starts, the requests in flight finish, and
  the report's `failure` says what failed and how many pairs were graded. The deadline (`deadline_s`) stops
  the run the same way, cancelling the requests in flight.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from graphiti_core.llm_client import LLMClient
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential

from pipeline.judge.client import (
    JudgeConfig,
    ask,
    close_llm,
    counting_tokens,
    describe_failure,
    is_transient,
    make_llm,
    retry_wait_s,
)
from pipeline.judge.prompt import PROMPT_VERSION, JudgeAnswer, judge_messages
from pipeline.judge.repo import cached_grades, save_grade
from pipeline.store.db import Store

logger = logging.getLogger(__name__)

__all__ = ["JudgeGrade", "JudgePair", "JudgeReport", "Progress", "grade_pairs"]

BACKOFF_INITIAL_S = 0.5  # 0.5, 1, 2, 4, 8 s between attempts, or what the server asks for (up to 30 s)
BACKOFF_MAX_S = 8.0

Progress = Callable[[int, int], None]  # (distinct pairs done, distinct pairs in all)
Texts = tuple[str, str]  # (query, fact)


@dataclass(frozen=True)
class JudgePair:
    key: Hashable  # the caller's: comes back on the pair's grade
    query: str
    fact: str


@dataclass(frozen=True)
class JudgeGrade:
    key: Hashable
    grade: int  # 0-3, the spot-check rubric
    reason: str
    cached: bool  # from the cache: no request was made for it in this run
    input_tokens: int  # spent on it in this run (every attempt); 0 when cached or a duplicate of another key
    output_tokens: int


@dataclass(frozen=True)
class JudgeReport:
    model: str
    prompt_version: str
    grades: tuple[JudgeGrade, ...]  # in the order the pairs came; a pair left ungraded has none
    failure: str | None  # one line when the run stopped before grading every pair
    calls: int  # requests sent, retries included
    cached: int  # grades answered from the cache
    input_tokens: int  # every request's, failed ones included
    output_tokens: int
    cost_usd: float
    elapsed_s: float


@dataclass(frozen=True)
class _Graded:
    grade: int
    reason: str
    cached: bool
    input_tokens: int
    output_tokens: int


class _Failed(Exception):
    def __init__(self, reason: str, attempts: int) -> None:
        super().__init__(reason)
        self.reason, self.attempts = reason, attempts


class _Abandoned(Exception):
    """The run stopped while this pair waited to try again."""


class _Wait:
    """Exponential backoff, or the server's Retry-After when it asks for longer."""

    def __init__(self) -> None:
        self._backoff = wait_exponential(multiplier=BACKOFF_INITIAL_S, max=BACKOFF_MAX_S)

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return max(self._backoff(state), retry_wait_s(exc))


@dataclass
class _Run:
    config: JudgeConfig
    store: Store
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # no new request starts once it is set
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failure: _Failed | None = None  # the first pair that still failed
    failed_attempts: Counter[str] = field(default_factory=Counter)  # what each failed request was, for one summary
    timed_out: bool = False

    async def grade_all(
        self,
        llm: LLMClient,
        todo: list[Texts],
        graded: dict[Texts, _Graded],
        total: int,
        progress: Progress | None,
        seconds_left: float,
    ) -> None:
        """Grade the pairs of `todo` into `graded`, `concurrency` at a time, until done, stopped or out of time."""
        semaphore = asyncio.Semaphore(self.config.concurrency)

        async def one(texts: Texts) -> None:
            async with semaphore:
                if self.stop.is_set():
                    return
                result = await self.grade(llm, *texts)
            if result is not None:
                graded[texts] = result
                if progress:
                    progress(len(graded), total)

        tasks = [asyncio.create_task(one(texts)) for texts in todo]
        try:
            async with asyncio.timeout(max(0.0, seconds_left)):
                await asyncio.gather(*tasks)
        except TimeoutError:
            self.timed_out = True
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def grade(self, llm: LLMClient, query: str, fact: str) -> _Graded | None:
        """The pair's grade, written to the cache; None when the run stopped first. A pair that still fails
        after its attempts records the run's failure (the first one) and stops the run."""
        with counting_tokens() as tokens:
            try:
                answer = await self._retrying(llm, query, fact)
            except _Abandoned:
                return None
            except _Failed as failed:
                if self.failure is None:
                    self.failure = failed
                self.stop.set()
                return None
            finally:
                self.input_tokens += tokens.input_tokens
                self.output_tokens += tokens.output_tokens
        save_grade(
            self.store,
            self.config.model,
            PROMPT_VERSION,
            query,
            fact,
            answer.grade,
            answer.reason,
            tokens.input_tokens,
            tokens.output_tokens,
        )
        return _Graded(answer.grade, answer.reason, False, tokens.input_tokens, tokens.output_tokens)

    async def _retrying(self, llm: LLMClient, query: str, fact: str) -> JudgeAnswer:
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_attempts),
            wait=_Wait(),
            retry=retry_if_exception(lambda exc: is_transient(exc) and not self.stop.is_set()),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    if self.stop.is_set():
                        raise _Abandoned
                    attempts += 1
                    self.calls += 1
                    try:
                        async with asyncio.timeout(self.config.timeout_s):
                            return await ask(llm, judge_messages(query, fact))
                    except Exception as exc:
                        self.failed_attempts[describe_failure(exc, self.config)] += 1
                        raise
        except _Abandoned:
            raise
        except Exception as exc:
            raise _Failed(describe_failure(exc, self.config), attempts) from exc
        raise AssertionError("unreachable: tenacity either returns or reraises")  # pragma: no cover

    def log_failed_attempts(self) -> None:
        """One warning for the run's failed requests (retried or not), the most common reasons first."""
        failed = sum(self.failed_attempts.values())
        if failed:
            reasons = "; ".join(f"{n} x {reason}" for reason, n in self.failed_attempts.most_common(3))
            more = len(self.failed_attempts) - 3
            logger.warning(
                "LLM judge: %d of %d requests failed (%s%s)",
                failed,
                self.calls,
                reasons,
                f"; {more} other reasons" if more > 0 else "",
            )

    def failure_line(self, graded: int, total: int) -> str | None:
        """What stopped the run, and how far it got, in one line; None when nothing did."""
        done = f"{graded} of {total} pairs graded" + (" (kept; run again to go on)" if graded else "")
        if self.timed_out:
            return f"The LLM judge stopped at its deadline of {self.config.deadline_s:g} s; {done}."
        if self.failure is not None:
            attempts = self.failure.attempts
            after = f" after {attempts} attempts" if attempts > 1 else ""
            return f"The LLM judge stopped: {self.failure.reason}{after}; {done}."
        return None


async def grade_pairs(
    store: Store,
    config: JudgeConfig,
    pairs: Iterable[JudgePair],
    progress: Progress | None = None,
    llm: LLMClient | None = None,
) -> JudgeReport:
    """Grade every pair (see the module doc). `progress(done, total)` counts distinct pairs: once after the cache
    lookup when it answered any, then after each pair graded. `llm`: a client from `make_llm` (built from
    `config` when None, and closed at the end)."""
    started = time.monotonic()
    pairs = list(pairs)
    distinct = list(dict.fromkeys((pair.query, pair.fact) for pair in pairs))
    total = len(distinct)

    graded: dict[Texts, _Graded] = {
        texts: _Graded(c.grade, c.reason, True, 0, 0)
        for texts, c in cached_grades(store, config.model, PROMPT_VERSION, distinct).items()
    }
    if progress and graded:
        progress(len(graded), total)
    todo = [texts for texts in distinct if texts not in graded]

    run = _Run(config, store)
    if todo:
        client = llm or make_llm(config)
        try:
            await run.grade_all(
                client, todo, graded, total, progress, seconds_left=config.deadline_s - (time.monotonic() - started)
            )
        finally:
            if llm is None:
                await close_llm(client)
            run.log_failed_attempts()

    grades = tuple(_grades(pairs, graded))
    return JudgeReport(
        model=config.model,
        prompt_version=PROMPT_VERSION,
        grades=grades,
        failure=run.failure_line(len(grades), len(pairs)),
        calls=run.calls,
        cached=sum(g.cached for g in grades),
        input_tokens=run.input_tokens,
        output_tokens=run.output_tokens,
        cost_usd=config.cost_usd(run.input_tokens, run.output_tokens),
        elapsed_s=time.monotonic() - started,
    )


def _grades(pairs: list[JudgePair], graded: dict[Texts, _Graded]) -> Iterable[JudgeGrade]:
    """One grade per pair graded, in the pairs' order; a duplicate pair's tokens are on its first key only."""
    seen: set[Texts] = set()
    for pair in pairs:
        texts = (pair.query, pair.fact)
        result = graded.get(texts)
        if result is None:
            continue
        first = texts not in seen
        seen.add(texts)
        yield JudgeGrade(
            pair.key,
            result.grade,
            result.reason,
            result.cached,
            result.input_tokens if first else 0,
            result.output_tokens if first else 0,
        )
