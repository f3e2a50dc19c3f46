"""What a caller ranking many queries plugs into `rank()`: caches, a cancel, timers, shared vectors.

A page ranks one query at a time and keeps its pools and scores in the session; a sweep ranks every judged query
of a deal and keeps them in the store (`pipeline/evaluation/cache.py`). Both plug into the same two hooks, so a
ranking is computed the same way whichever cache serves its parts:

- `PoolCache`: a query's first-stage pool per (recipe, N, first stage), asked before searching and told of each
  pool searched;
- `ScoreCache`: reranker scores per (reranker, model, query, fact), asked before a reranker call (a reranker whose
  score of a fact ignores the other candidates is sent only the facts it has not scored) and told of each call,
  and of each failure (a page keeps a failed run as shown rather than calling the failing service on every rerun).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pipeline.rerankers.base import LabReranker
from pipeline.retrieval.first_stage import FactVectors, FirstStage, MethodLists
from pipeline.retrieval.held_facts import HeldDeal
from pipeline.retrieval.records import CandidatePool
from pipeline.retrieval.setting import Setting
from pipeline.timing import Phases

ScoreRow = tuple[float, float, float]  # (score, ms share, tokens share) of one fact


@dataclass(frozen=True)
class ScoreCall:
    """One reranker call on a query: the facts sent (with their texts), their scores, its time and tokens."""

    reranker: str
    model: str
    query: str
    uuids: Sequence[str]
    facts: Sequence[str]
    scores: Sequence[float]
    ms: float
    tokens: int

    def rows(self) -> dict[str, ScoreRow]:
        """uuid -> its row: its score, and its share of the call's time and tokens (each fact sent an equal one)."""
        n = max(len(self.uuids), 1)
        return {u: (float(s), self.ms / n, self.tokens / n) for u, s in zip(self.uuids, self.scores, strict=True)}


class PoolCache(Protocol):
    """Pools of one deal under one date filter (the cache is made for them)."""

    def get(self, setting: Setting, query: str) -> CandidatePool | None: ...

    def put(self, setting: Setting, query: str, pool: CandidatePool) -> None: ...


class ScoreCache(Protocol):
    def lookup(
        self, reranker: str, model: str, query: str, uuids: Sequence[str], facts: Sequence[str]
    ) -> dict[str, ScoreRow]:
        """uuid -> its row, for the facts scored before with their current text."""
        ...

    def put(self, call: ScoreCall) -> None:
        """One call's scores, with their shares of its time and tokens (`ScoreCall.rows`)."""
        ...

    def failure(self, reranker: str, model: str, query: str, uuids: Sequence[str]) -> tuple[str, float] | None:
        """(why, ms) when this reranker failed on this pool and the failure is kept (not called again meanwhile)."""
        ...

    def put_failure(self, reranker: str, model: str, query: str, uuids: Sequence[str], why: str, ms: float) -> None: ...


def never() -> None:
    """The checkpoint of a ranking nobody cancels."""


@dataclass
class RankHooks:
    pools: PoolCache | None = None
    scores: ScoreCache | None = None
    # rerankers built once for many queries (name -> reranker, None for "none"); built per call when absent
    rankers: Mapping[str, LabReranker | None] | None = None
    # facts' stored vectors, shared by the queries of a sweep (read once per fact)
    vectors: FactVectors = field(default_factory=FactVectors)
    # the deal's facts, held for all the queries of a sweep (read once); None: what the process holds, if current
    held: HeldDeal | None = None
    # start holding the deal's facts for the queries to come, when they are not held (a long-lived process)
    hold: bool = False
    # called before every first-stage search and reranker call: raises to stop the query in flight (a cancel)
    checkpoint: Callable[[], None] = never
    phases: Phases = field(default_factory=Phases)
    cite: bool = True  # False: results carry no citations (a sweep scores rankings, not cited answers)
    # told of each pool searched, with the first stage before its cut at N and the query's method lists, from which
    # it may ask for more (the loss X-ray, pipeline/why: where each relevant fact was lost)
    trace: Callable[[Setting, FirstStage, MethodLists], Awaitable[None]] | None = None
    deal_checked: bool = False  # the caller checked the deal once for all its queries (a sweep)
