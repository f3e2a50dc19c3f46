"""A first-stage pool built from (uuid, fact) pairs, for tests of the caches that need no real search."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.retrieval.records import METHODS, Candidate, CandidatePool


def pool_of(uuids: Sequence[str], facts: Sequence[str], ms: float = 0.0) -> CandidatePool:
    candidates = tuple(
        Candidate(u, f, "RELATES_TO", "s", "t", (), None, None, None, 0.0, i, dict.fromkeys(METHODS))
        for i, (u, f) in enumerate(zip(uuids, facts, strict=True), start=1)
    )
    return CandidatePool(candidates, 0.0, {}, ms)
