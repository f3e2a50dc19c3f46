"""Spot-check records (queues, their items, verdicts) and how they are read from / written to rows."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pipeline.errors import InvalidInput
from pipeline.retrieval.records import Citation
from pipeline.spotcheck.sampling import SOURCES, ItemDraft, Priority, Source
from pipeline.text import printable_line

if TYPE_CHECKING:  # pools are queues with a pool row: pipeline/pools builds on this package
    from pipeline.pools.records import Pool

MAX_NAME = 120
DEFAULT_TOP_K = 3
DEFAULT_CANDIDATES = 50
DEFAULT_RERANKER = "local"
DEFAULT_RUNS_LIMIT = 200


def clean_name(text: str, what: str, limit: int = MAX_NAME) -> str:
    """Printable, single-spaced, non-empty, at most `limit` characters."""
    if not isinstance(text, str):
        raise InvalidInput(f"The {what} must be text.")
    cleaned = printable_line(text)
    if not cleaned:
        raise InvalidInput(f"The {what} is empty.")
    if len(cleaned) > limit:
        raise InvalidInput(f"The {what} is {len(cleaned)} characters long; the limit is {limit}.")
    return cleaned


@dataclass(frozen=True)
class QueueSpec:
    """What to build: a named sample of one deal, reproducible from its source, size, seed and priority."""

    name: str
    group_id: str
    source: Source
    size: int
    seed: int
    priority: Priority
    created_by: str
    top_k: int = DEFAULT_TOP_K  # query_set: results kept per query
    candidates: int = DEFAULT_CANDIDATES  # query_set: N, first-stage candidates per query
    reranker: str = DEFAULT_RERANKER  # query_set
    runs_limit: int = DEFAULT_RUNS_LIMIT  # runs: newest stored runs read
    query_limit: int | None = None  # query_set: run only a seeded sample of this many queries (None: all)

    def params(self) -> dict[str, Any]:
        if self.source == "query_set":
            params: dict[str, Any] = {"top_k": self.top_k, "candidates": self.candidates}
            return {**params, "reranker": self.reranker, "query_limit": self.query_limit}
        if self.source == "runs":
            return {"runs_limit": self.runs_limit}
        return {}

    def params_json(self) -> str:
        """The source's parameters as stored with the queue."""
        return json.dumps(self.params(), sort_keys=True)


def stored_params(params: dict[str, Any]) -> dict[str, Any]:
    """A queue's stored parameters under today's names: queues built before N was named `candidates` everywhere
    stored it as `num_candidates` (their rows are never rewritten, so the old key is read here)."""
    if "num_candidates" in params and "candidates" not in params:
        params = {("candidates" if k == "num_candidates" else k): v for k, v in params.items()}
    return params


@dataclass(frozen=True)
class Queue:
    id: int
    name: str
    group_id: str
    source: str
    size: int  # requested size; `item_count` may be smaller when the source had fewer items
    seed: int
    priority: str
    params: dict[str, Any]
    created_by: str
    created_at: str
    item_count: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Queue:
        values = dict(row)
        values["params"] = stored_params(json.loads(values["params"]))
        return cls(**values)

    def label(self, pool: Pool | None = None) -> str:
        """How the dashboard names the queue in its picker (a pool's queue by its pool)."""
        source = pool.label if pool else SOURCES.get(self.source, self.source).lower()
        return f"{self.name} · {source} · {self.item_count} items"


@dataclass(frozen=True)
class QueueItem:
    id: int
    queue_id: int
    position: int  # 1-based
    query_id: str
    query: str
    run_id: int | None
    fact_uuid: str
    fact: str
    rank: int | None
    score: float | None
    superseded: bool
    signals: tuple[str, ...]
    citation: Citation = field(repr=False)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> QueueItem:
        return cls(
            id=row["id"],
            queue_id=row["queue_id"],
            position=row["position"],
            query_id=row["query_id"],
            query=row["query"],
            run_id=row["run_id"],
            fact_uuid=row["fact_uuid"],
            fact=row["fact"],
            rank=row["rank"],
            score=row["score"],
            superseded=bool(row["superseded"]),
            signals=tuple(json.loads(row["signals"])),
            citation=Citation(**json.loads(row["citation"])),
        )

    @staticmethod
    def columns(draft: ItemDraft) -> dict[str, Any]:
        """The `spotcheck_items` row of a sampled draft (queue id and position are added when it is written)."""
        return {
            "query_id": draft.query_id,
            "query": draft.query,
            "run_id": draft.run_id,
            "fact_uuid": draft.fact_uuid,
            "fact": draft.fact,
            "rank": draft.rank,
            "score": draft.score,
            "superseded": int(draft.superseded),
            "signals": json.dumps(list(draft.signals)),
            "episode_uuid": draft.citation.episode_uuid,
            "channel": draft.citation.channel,
            "document_name": draft.citation.document_name,
            "citation": json.dumps(asdict(draft.citation)),
        }


@dataclass(frozen=True)
class VerdictRecord:
    id: int
    item_id: int
    reviewer: str
    verdict: str
    note: str
    created_at: str
    updated_at: str
    revision: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> VerdictRecord:
        return cls(**dict(row))


@dataclass(frozen=True)
class Progress:
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


@dataclass(frozen=True)
class RelevanceRecord:
    """One reviewer's answer to "does the fact answer the query?" (grade 0-3) on one item."""

    id: int
    item_id: int
    reviewer: str
    grade: int
    note: str
    created_at: str
    updated_at: str
    revision: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> RelevanceRecord:
        return cls(**dict(row))


@dataclass(frozen=True)
class AdjudicationRecord:
    """The final answer to one question on one item, recorded where reviewers disagree."""

    id: int
    item_id: int
    question: str  # "relevance" | "support"
    answer: str  # a grade "0"-"3" or a support verdict
    adjudicator: str
    note: str
    created_at: str
    updated_at: str
    revision: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> AdjudicationRecord:
        return cls(**dict(row))


def _grade(value: object) -> int | None:
    return None if value is None or value == "" else int(value)  # type: ignore[call-overload]


@dataclass(frozen=True)
class VerdictRow:
    """One reviewer's answers on one item (relevance and / or support), with the item: one CSV row."""

    queue_id: int
    queue_name: str
    group_id: str
    position: int
    item_id: int
    query_id: str
    query: str
    fact_uuid: str
    fact: str
    rank: int | None
    score: float | None
    episode_uuid: str
    document_name: str
    channel: str
    reviewer: str
    relevance: int | None  # 0-3; None: not answered (always None on a fact sample)
    support: str | None  # a support verdict; None: not answered
    note: str  # the reviewer's notes on the item (relevance, then support when they differ)
    relevance_revision: int | None
    support_revision: int | None
    created_at: str
    updated_at: str
    final_relevance: int | None  # the adjudicated grade, when one is recorded
    final_support: str | None  # the adjudicated support verdict, when one is recorded

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> VerdictRow:
        values = dict(row)
        notes = [n for n in (values.pop("relevance_note"), values.pop("support_note")) if n]
        values["note"] = " · ".join(dict.fromkeys(notes))
        values["final_relevance"] = _grade(values["final_relevance"])
        return cls(**values)
