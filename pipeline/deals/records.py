"""What a deal is to the rest of the code: its bookkeeping row, what the pages show, its counts (and the
group_id rule, re-exported)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields

from pipeline.graph.group_id import GROUP_ID_PATTERN as GROUP_ID_PATTERN
from pipeline.graph.group_id import validate_group_id as validate_group_id
from pipeline.processes import owner_alive

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
    import_done: int | None = None  # while a loader writes the deal (or after it was killed): facts written
    import_total: int | None = None  # ... of all; None when the deal is complete
    import_owner: str | None = None  # the process writing it (pipeline.processes)

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
    import_note: str | None = None  # an import in progress or interrupted (`import_note`); None when complete

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
            import_note=import_note(record),
        )

    @property
    def embedder_label(self) -> str:
        """E.g. "local-minilm-l6-v2-int8 (384-d)", "unknown embedder (1536-d)"."""
        model = self.embedder_model or "unknown embedder"
        return f"{model} ({self.embedder_dim}-d)" if self.embedder_dim else f"{model} (no vectors)"


def import_note(record: DealRecord) -> str | None:
    """What a deal's row says of an import not completed: in progress while its process lives, else interrupted
    ("import interrupted at 1,000 of 3,190 facts — re-run the same command"); None for a complete deal."""
    if record.import_total is None:
        return None
    done, total = record.import_done or 0, record.import_total
    if record.import_owner and owner_alive(record.import_owner):
        return f"import in progress: {done:,} of {total:,} facts written"
    return f"import interrupted at {done:,} of {total:,} facts — re-run the same command"


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
