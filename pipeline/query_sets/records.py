"""Labelled query sets as records: queries, graded judgments keyed by fact uuid, and where the set came from."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

SetSource = Literal["demo", "beir", "import", "verdicts"]
SET_SOURCES: tuple[str, ...] = ("demo", "beir", "import", "verdicts")
OWN_SOURCES: tuple[str, ...] = ("demo", "beir")  # a deal's own set: built with the deal by our loaders
OWN_SET_NAME = "labelled"  # the name our loaders give a deal's own set


@dataclass(frozen=True)
class LabelledQuery:
    id: str
    text: str
    type: str
    split: str = ""  # e.g. TAT-QA's dev / test


@dataclass(frozen=True)
class QuerySet:
    group_id: str
    queries: tuple[LabelledQuery, ...]
    qrels: dict[str, dict[str, int]] = field(repr=False)  # query id -> fact uuid -> grade
    name: str = OWN_SET_NAME
    source: str = "import"
    created_at: str = ""
    created_by: str = ""

    def judged_uuids(self, query_id: str) -> dict[str, int]:
        """{fact uuid: grade} of one query."""
        return dict(self.qrels.get(query_id, {}))

    @property
    def type_mix(self) -> dict[str, int]:
        return dict(Counter(q.type for q in self.queries))

    @property
    def judgments(self) -> int:
        return sum(len(j) for j in self.qrels.values())

    @property
    def unjudged(self) -> tuple[str, ...]:
        """Ids of queries with no judgment at all."""
        return tuple(q.id for q in self.queries if not self.qrels.get(q.id))

    def content_hash(self) -> str:
        """What the set holds (source, queries in order, judgments): equal hashes mean nothing to rewrite. The
        sha256 of `json.dumps({"qrels": ..., "queries": [[id, text, type, split], ...], "source": ...},
        sort_keys=True)`, fed query by query rather than built as one string (a million-query set)."""
        digest = hashlib.sha256()
        qrels = {q: dict(sorted(j.items())) for q, j in sorted(self.qrels.items())}
        digest.update(f'{{"qrels": {json.dumps(qrels, sort_keys=True)}, "queries": ['.encode())
        for i, q in enumerate(self.queries):
            digest.update(((", " if i else "") + json.dumps([q.id, q.text, q.type, q.split])).encode())
        digest.update(f'], "source": {json.dumps(self.source)}}}'.encode())
        return digest.hexdigest()[:16]


@dataclass(frozen=True)
class SetInfo:
    """A stored set without its queries: what lists show."""

    id: int
    group_id: str
    name: str
    source: str
    content_hash: str
    created_at: str
    created_by: str
    queries: int
    judgments: int
    scorable: int = 0  # queries with a judgment of grade >= 1: what a sweep can score (0: it cannot use the set)


@dataclass(frozen=True)
class SaveResult:
    group_id: str
    name: str
    status: Literal["created", "replaced", "unchanged"]
    queries: int
    judgments: int
