"""How much two top-k lists agree: shared count, Jaccard and rank-biased overlap (top-weighted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.comparison.rbo import DEFAULT_P, rbo_ext


@dataclass(frozen=True)
class Overlap:
    shared: int
    jaccard: float  # shared / union
    rbo: float  # rank-biased overlap, p = DEFAULT_P
    size_a: int
    size_b: int


def overlap(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_P) -> Overlap:
    """The overlap of rankings `a` and `b` (fact uuids, best first)."""
    left, right = set(a), set(b)
    union = left | right
    shared = len(left & right)
    return Overlap(shared, shared / len(union) if union else 1.0, rbo_ext(a, b, p), len(a), len(b))
