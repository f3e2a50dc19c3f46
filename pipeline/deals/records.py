"""What a deal is to the rest of the code: its bookkeeping row, what the pages show, its counts (and the
group_id rule, re-exported)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields

from pipeline.graph.group_id import GROUP_ID_PATTERN as GROUP_ID_PATTERN
from pipeline.graph.group_id import validate_group_id as validate_group_id

GRAPHITI_SOURCE = "graphiti"  # the source of a deal we did not build


@dataclass(frozen=True)
class DealRecord:
    """Our row for a deal in the store (`deals` table). Only `group_id` is set for a deal we did not build
    (a row exists then only to keep its read-only flag)."""

    group_id: str
    name: str | None = None
    description: str | None = None
    source: str | None = None  # "demo", "beir:<folder name>"
    embedder_model: str | None = None
    embedder_dim: int | None = None
    content_hash: str | None = None  # of our loader's inputs: seeding or importing the same again does nothing
    created_at: str | None = None
    read_only: bool = False

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> DealRecord:
        values = {f.name: row[f.name] for f in fields(cls)}
        return cls(**{**values, "read_only": bool(values["read_only"])})

    @classmethod
    def from_legacy_node(cls, group_id: str, props: dict[str, object]) -> DealRecord:
        """The properties of an old `RetrievalLabDeal` node (what earlier versions wrote into the graph)."""

        def text(name: str) -> str | None:
            value = props.get(name)
            return None if value is None else str(value)

        return cls(
            group_id=group_id,
            name=text("name"),
            description=text("description"),
            source=text("source"),
            embedder_model=text("embedder_model"),
            embedder_dim=_int_or_none(props.get("embedder_dim")),
            content_hash=text("content_hash"),
            created_at=text("created_at"),
        )


@dataclass(frozen=True)
class DealInfo:
    """A deal as discovered in the graph, with our bookkeeping where we have some."""

    group_id: str
    name: str  # our name for it, else the group_id
    description: str
    source: str  # "demo", "beir:<folder>", or "graphiti" for a deal we did not build
    embedder_model: str | None  # what our store recorded; None when we did not build it
    embedder_dim: int | None  # the dimension of the vectors stored in the graph; None when it holds none
    content_hash: str | None
    created_at: str | None
    read_only: bool = False

    @classmethod
    def of(cls, group_id: str, record: DealRecord | None, stored_dim: int | None) -> DealInfo:
        record = record or DealRecord(group_id)
        return cls(
            group_id=group_id,
            name=record.name or group_id,
            description=record.description or "",
            source=record.source or GRAPHITI_SOURCE,
            embedder_model=record.embedder_model,
            embedder_dim=stored_dim if stored_dim is not None else record.embedder_dim,
            content_hash=record.content_hash,
            created_at=record.created_at,
            read_only=record.read_only,
        )

    @property
    def embedder_label(self) -> str:
        """E.g. "local-minilm-l6-v2-int8 (384-d)", "unknown embedder (1536-d)"."""
        model = self.embedder_model or "unknown embedder"
        return f"{model} ({self.embedder_dim}-d)" if self.embedder_dim else f"{model} (no vectors)"


@dataclass(frozen=True)
class DealCounts:
    facts: int
    current_facts: int
    superseded_facts: int
    entities: int
    episodes: int
    merges: int


def _int_or_none(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
