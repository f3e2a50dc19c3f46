"""Candidate duplicates in a deal: which entity pairs to score, and the pairs that look like one entity.

Candidates leave out entities that are already aliases (a merged alias cannot be merged again) and pairs
an admin rejected. Up to `ALL_PAIRS_MAX` entities every pair is scored; above it pairs are blocked: same
core name, a shared MinHash LSH band (graphiti's `_minhash_signature` / `_lsh_bands`), or among each
entity's nearest names by cosine — and at most `MAX_ENTITIES` entities are scanned.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.graph import graphiti_compat as graphiti
from pipeline.merges import repo
from pipeline.merges.records import read_merge_records
from pipeline.merges.scoring import (
    NAME_CACHE,
    PairSignals,
    core_name,
    name_match,
    name_shingles,
    shingle_similarity,
    signals,
)

if TYPE_CHECKING:
    from pipeline.lab import Lab

MIN_CANDIDATE_SCORE = 0.5  # pairs under this are not listed
MAX_CANDIDATES = 200
ALL_PAIRS_MAX = 600  # entities; ~180k pairs
MAX_ENTITIES = 10_000
NEIGHBOURS = 10  # nearest names by cosine per entity, when blocking
MAX_BUCKET = 50  # an LSH bucket bigger than this is a common fragment, not a duplicate signal


@dataclass(frozen=True)
class EntityRef:
    uuid: str
    name: str
    key: str  # rl_key ('' for entities graphiti wrote itself)
    facts: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> EntityRef:
        return cls(row["uuid"], row.get("name") or "", row.get("key") or "", int(row.get("facts") or 0))


@dataclass(frozen=True)
class CandidatePair:
    canonical: EntityRef  # suggested: the one with more facts (then the longer name)
    alias: EntityRef
    signals: PairSignals

    @property
    def score(self) -> float:
        return self.signals.score

    def auto_merges_at(self, threshold: float) -> bool:
        return self.signals.score >= threshold


@dataclass(frozen=True)
class CandidateReport:
    candidates: tuple[CandidatePair, ...]  # best first, score >= MIN_CANDIDATE_SCORE, at most MAX_CANDIDATES
    entities: int  # in the deal
    scanned: int  # entities whose pairs were scored (aliases left out, capped at MAX_ENTITIES)
    aliases_left_out: int
    pairs_scored: int
    rejected_hidden: int
    blocked: bool  # True when pairs were blocked instead of all-pairs
    capped: bool


def _canonical_first(a: EntityRef, b: EntityRef) -> tuple[EntityRef, EntityRef]:
    return (a, b) if (a.facts, len(a.name), b.uuid) >= (b.facts, len(b.name), a.uuid) else (b, a)


def _unit_matrix(vectors: Sequence[Sequence[float] | None]) -> np.ndarray | None:
    dims = {len(v) for v in vectors if v}
    if len(dims) != 1:
        return None
    dim = dims.pop()
    matrix = np.array([v if v else [0.0] * dim for v in vectors], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


@lru_cache(maxsize=NAME_CACHE)
def name_bands(name: str) -> tuple[tuple[int, ...], ...]:
    """Graphiti's MinHash LSH bands of a name: most of the time of scoring a big deal, and a name's bands never
    change, so a rescore after an admin action (a new deal state) reuses them."""
    return tuple(graphiti.lsh_bands(graphiti.minhash_signature(name_shingles(name))))


def blocked_pairs(
    names: Sequence[str], vectors: Sequence[Sequence[float] | None], neighbours: int = NEIGHBOURS
) -> set[tuple[int, int]]:
    """Index pairs worth scoring in a big deal: same core name, shared LSH band, or near in name embedding."""
    pairs: set[tuple[int, int]] = set()
    buckets: defaultdict[Any, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        buckets[("core", core_name(name))].append(i)
        for band_index, band in enumerate(name_bands(name)):
            buckets[(band_index, band)].append(i)
    for members in buckets.values():
        if 1 < len(members) <= MAX_BUCKET:
            pairs.update(combinations(sorted(members), 2))
    unit = _unit_matrix(vectors)
    if unit is not None and len(names) > 1:
        k = min(neighbours, len(names) - 1)
        for start in range(0, len(names), 1024):
            sims = unit[start : start + 1024] @ unit.T
            for row, i in enumerate(range(start, min(start + 1024, len(names)))):
                sims[row, i] = -2.0
                for j in np.argpartition(-sims[row], k - 1)[:k]:
                    pairs.add((min(i, int(j)), max(i, int(j))))
    return pairs


def score_candidates(
    entities: Sequence[EntityRef],
    vectors: Sequence[Sequence[float] | None],
    rejected: Collection[frozenset[str]] = (),
    all_pairs_max: int = ALL_PAIRS_MAX,
    min_score: float = MIN_CANDIDATE_SCORE,
    neighbours: int = NEIGHBOURS,
) -> tuple[list[CandidatePair], int, int, bool]:
    """(candidates best first, pairs scored, rejected pairs hidden, blocked?) for these entities."""
    names = [e.name for e in entities]
    blocked = len(entities) > all_pairs_max
    index_pairs: Iterable[tuple[int, int]] = (
        sorted(blocked_pairs(names, vectors, neighbours)) if blocked else combinations(range(len(entities)), 2)
    )
    unit = _unit_matrix(vectors)
    found, scored, hidden = [], 0, 0
    for i, j in index_pairs:
        scored += 1
        cos = float(unit[i] @ unit[j]) if unit is not None and vectors[i] and vectors[j] else None
        pair = signals(name_match(names[i], names[j]), shingle_similarity(names[i], names[j]), cos)
        if pair.score < min_score:
            continue
        if frozenset((entities[i].uuid, entities[j].uuid)) in rejected:
            hidden += 1
            continue
        canonical, alias = _canonical_first(entities[i], entities[j])
        found.append(CandidatePair(canonical, alias, pair))
    found.sort(key=lambda c: (-c.score, c.canonical.name, c.alias.name))
    return found, scored, hidden, blocked


async def count_entities(lab: Lab, group_id: str) -> int:
    return await lab.backend.cypher.count_entities(group_id)


async def list_entities(lab: Lab, group_id: str) -> list[EntityRef]:
    """Every entity of the deal (up to MAX_ENTITIES), by name."""
    rows = await lab.backend.cypher.entities_with_fact_counts(group_id, MAX_ENTITIES)
    return sorted((EntityRef.from_row(r) for r in rows), key=lambda e: (e.name.lower(), e.uuid))


async def find_candidates(
    lab: Lab, group_id: str, min_score: float = MIN_CANDIDATE_SCORE, limit: int = MAX_CANDIDATES
) -> CandidateReport:
    """Pairs that look like the same entity, best first (already-merged aliases and rejected pairs left out)."""
    await lab.deal(group_id)
    total = await count_entities(lab, group_id)
    aliases = {r.alias_uuid for r in await read_merge_records(lab.backend, group_id)}
    rows = await lab.backend.cypher.entities_with_fact_counts(group_id, MAX_ENTITIES + len(aliases))
    rows = [r for r in rows if r["uuid"] not in aliases]
    capped = len(rows) > MAX_ENTITIES or total - len(aliases) > len(rows)
    rows = rows[:MAX_ENTITIES]
    found, scored, hidden, blocked = score_candidates(
        [EntityRef.from_row(r) for r in rows],
        [r.get("vector") for r in rows],
        repo.rejected_pair_set(lab.store, group_id),
        min_score=min_score,
    )
    return CandidateReport(
        candidates=tuple(found[:limit]),
        entities=total,
        scanned=len(rows),
        aliases_left_out=len(aliases),
        pairs_scored=scored,
        rejected_hidden=hidden,
        blocked=blocked,
        capped=capped,
    )


async def shared_neighbours(lab: Lab, group_id: str, pairs: Sequence[CandidatePair]) -> dict[tuple[str, str], int]:
    """(canonical uuid, alias uuid) -> how many entities a fact links to both: two names of one company share
    its people, products and figures, two neighbours in meaning ("Revenue", "Net Revenue") share few."""
    uuids = sorted({e.uuid for p in pairs for e in (p.canonical, p.alias)})
    linked = await lab.backend.cypher.entity_neighbours(group_id, uuids) if uuids else {}
    return {
        (p.canonical.uuid, p.alias.uuid): len(
            (linked.get(p.canonical.uuid, set()) & linked.get(p.alias.uuid, set())) - {p.canonical.uuid, p.alias.uuid}
        )
        for p in pairs
    }
