"""The temporal records: a fact as the timeline shows it, supersession links, selections and answers.

A graph row becomes a `FactRow` here (`fact_row`), with its channel and citation line from its episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pipeline.errors import InvalidInput
from pipeline.retrieval.citations import citation_fields
from pipeline.utc import to_utc

if TYPE_CHECKING:
    from pipeline.retrieval.setting import Setting

SelectionKind = Literal["entity", "relation", "query"]
DiffStatus = Literal["unchanged", "superseded", "new"]


@dataclass(frozen=True)
class FactRow:
    uuid: str
    fact: str
    relation: str
    source_uuid: str
    source_name: str
    target_uuid: str
    target_name: str
    episodes: tuple[str, ...]
    valid_at: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    created_at: datetime | None
    supersedes: str | None  # recorded attribute (None for graphiti-written graphs)
    superseded_by: str | None
    channel: str  # channel of the fact's latest episode: document / qa_response / analyst_chat
    citation: str  # one line: document, location, channel, author
    episode_at: datetime | None  # date of the fact's earliest episode

    @property
    def superseded(self) -> bool:
        """Not current: invalidated or expired (the same rule as `Candidate.superseded`)."""
        return self.invalid_at is not None or self.expired_at is not None

    @property
    def starts_at(self) -> datetime | None:
        """Where its bar starts: valid_at, else the date of its earliest episode, else when it was written."""
        return self.valid_at or self.episode_at or self.created_at

    def valid_on(self, when: datetime) -> bool:
        """True on `when` (the same rule as retrieval's as-of filter: unknown valid_at counts as valid)."""
        return (self.valid_at is None or self.valid_at <= when) and (self.invalid_at is None or self.invalid_at > when)


@dataclass(frozen=True)
class Link:
    """`old` was superseded by `new`; `inferred` when no attribute recorded it."""

    old: str
    new: str
    inferred: bool


@dataclass(frozen=True)
class Supersession:
    old: FactRow
    new: FactRow
    inferred: bool

    @property
    def at(self) -> datetime | None:
        return self.old.invalid_at or self.new.valid_at


@dataclass(frozen=True)
class FactSelection:
    kind: SelectionKind
    value: str  # entity uuid, relation name or query text

    def __post_init__(self) -> None:
        if self.kind not in ("entity", "relation", "query"):
            raise InvalidInput(f"Unknown selection {self.kind!r}: pick an entity, a relation or a topic query.")
        if not isinstance(self.value, str) or not self.value.strip():
            raise InvalidInput(f"Pick or type a {self.kind} first.")


@dataclass(frozen=True)
class Timeline:
    selection: FactSelection
    facts: tuple[FactRow, ...]  # chain members next to each other, oldest first
    links: tuple[Link, ...]  # only links between the facts shown


@dataclass(frozen=True)
class DiffRow:
    fact: FactRow
    status: DiffStatus  # superseded: true then, not now; new: true now, not then; unchanged: both
    replaced_by: FactRow | None  # for superseded facts: what replaced it, where known


@dataclass(frozen=True)
class AsOfAnswer:
    when: datetime
    then: tuple[FactRow, ...]  # what was true on `when`
    diff: tuple[DiffRow, ...]

    def count(self, status: DiffStatus) -> int:
        return sum(1 for row in self.diff if row.status == status)


@dataclass(frozen=True)
class EntityMatch:
    uuid: str
    name: str
    facts: int


@dataclass(frozen=True)
class SupersessionCounts:
    facts: int
    current: int
    superseded: int
    links: int
    chains: int
    recorded: int
    inferred: int


@dataclass(frozen=True)
class CandidateShare:
    """Over the deal's labelled queries, first stage with include_superseded=True, no reranker. `setting` is what
    each query ran with (its N is `setting.candidates`); `candidates` counts the candidates all of them found."""

    setting: Setting
    queries: int
    candidates: int
    superseded_candidates: int
    results: int
    superseded_results: int

    @property
    def share(self) -> float:
        return self.superseded_candidates / self.candidates if self.candidates else 0.0

    @property
    def top_k_share(self) -> float:
        return self.superseded_results / self.results if self.results else 0.0


def citation_line(props: dict[str, Any]) -> str:
    """One line: document, page, chunk · channel · author."""
    fields = citation_fields(props)
    where = [fields["document_name"]]
    if fields["page"] is not None:
        where.append(f"p. {fields['page']}")
    if fields["chunk"]:
        where.append(f"chunk {fields['chunk']}")
    line = f"{', '.join(w for w in where if w)} · {fields['channel'].replace('_', ' ')}"
    return f"{line} · {fields['author']}" if fields["author"] else line


def fact_row(row: dict[str, Any], episodes: dict[str, dict[str, Any]]) -> FactRow:
    own = [(u, episodes[u]) for u in row.get("episodes") or () if u in episodes]
    dated = sorted(own, key=lambda pair: to_utc(pair[1].get("valid_at")) or datetime.min.replace(tzinfo=UTC))
    latest = dated[-1][1] if dated else {}
    first_at = to_utc(dated[0][1].get("valid_at")) if dated else None
    return FactRow(
        uuid=row["uuid"],
        fact=row.get("fact") or "",
        relation=row.get("relation") or "",
        source_uuid=row["source_uuid"],
        source_name=row.get("source_name") or "",
        target_uuid=row["target_uuid"],
        target_name=row.get("target_name") or "",
        episodes=tuple(row.get("episodes") or ()),
        valid_at=to_utc(row.get("valid_at")),
        invalid_at=to_utc(row.get("invalid_at")),
        expired_at=to_utc(row.get("expired_at")),
        created_at=to_utc(row.get("created_at")),
        supersedes=row.get("supersedes") or None,
        superseded_by=row.get("superseded_by") or None,
        channel=citation_fields(latest)["channel"] if latest else "document",
        citation=citation_line(latest) if latest else "no source episode",
        episode_at=first_at,
    )


@dataclass(frozen=True)
class NeighbourEntity:
    """An entity as the evidence view draws it: `facts` touch it in the deal, `current` of them are current."""

    uuid: str
    name: str
    facts: int
    current: int


@dataclass(frozen=True)
class CitingEpisode:
    """An episode a fact was extracted from: its citation line, and the sentence of its text nearest the fact."""

    uuid: str
    document: str
    page: Any
    chunk: Any
    channel: str
    citation: str
    valid_at: datetime | None
    snippet: str


@dataclass(frozen=True)
class Neighbourhood:
    """What surrounds a fact (its two entities) or an entity (itself): the facts touching them, current first, at most
    a limit (`left_out` more exist); for a fact, its whole supersession chain oldest first and the episodes citing
    it. `links` are the supersession links between the facts shown."""

    kind: Literal["fact", "entity"]
    fact: FactRow | None
    entities: tuple[NeighbourEntity, ...]  # the focus: the fact's source and target, or the entity
    facts: tuple[FactRow, ...]
    left_out: int
    neighbours: tuple[NeighbourEntity, ...]  # the other ends of the facts shown, most facts shown first
    chain: tuple[FactRow, ...]
    links: tuple[Link, ...]
    citing: tuple[CitingEpisode, ...]

    @property
    def focus(self) -> str:
        return self.fact.uuid if self.fact is not None else self.entities[0].uuid


@dataclass(frozen=True)
class Retirement:
    """A fact a write retired (its `expired_at` set), with the fact that most likely retired it and the evidence.

    `found` says how that fact was found: "recorded" (a correction's link), "episode" (a fact the retiring write
    extracted: graphiti records no link, so the episode written last before the retirement), "dates" (graphiti's date
    rule: same entities, valid_at equal to the retired fact's invalid_at), or "none"."""

    fact: FactRow
    retired_at: datetime | None
    by: FactRow | None
    found: str
    replaceable: bool | None  # the new fact could replace it by graphiti #1729's rule
    similarity: float | None  # the two texts' words in common (Jaccard, 0-1)
    older: bool | None  # the retiring fact is older by valid_at than the one it retired
    batch: int  # facts retired at the same instant, this one included
    signs: tuple[str, ...]  # the warning signs, in words: the more, the more suspicious

    @property
    def suspicion(self) -> int:
        return len(self.signs)


@dataclass(frozen=True)
class InvalidationAudit:
    group_id: str
    facts: int
    retirements: tuple[Retirement, ...]  # the most suspicious first

    @property
    def suspicious(self) -> tuple[Retirement, ...]:
        """Retirements with a warning sign."""
        return tuple(r for r in self.retirements if r.suspicion)
