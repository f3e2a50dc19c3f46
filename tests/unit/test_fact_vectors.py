"""The sweep's shared store of facts' stored vectors: exact doubles, facts without one remembered, bounded."""

from __future__ import annotations

import numpy as np

from pipeline.retrieval.first_stage import FactVectors


def test_vectors_are_the_graphs_doubles_and_a_missing_one_is_remembered() -> None:
    known = FactVectors()
    known.put("a", [0.1, 0.2, 1 / 3], 2.0)
    known.put("b", None, 1.5)
    vector, ms = known.get("a")  # type: ignore[misc]
    assert vector is not None and vector.tolist() == [0.1, 0.2, 1 / 3] and ms == 2.0
    assert known.get("b") == (None, 1.5)
    assert known.get("c") is None


def test_the_least_recently_used_go_first_when_over_budget() -> None:
    dim = 16
    known = FactVectors(budget_bytes=3 * dim * 8)  # room for three
    for name in "abc":
        known.put(name, [1.0] * dim, 1.0)
    assert known.get("a") is not None  # used: "b" is now the oldest
    known.put("d", [2.0] * dim, 1.0)
    assert known.get("b") is None
    assert all(known.get(name) is not None for name in "acd")
    known.put("a", list(np.arange(dim, dtype=float)), 3.0)  # replaced, not counted twice
    known.put("e", [3.0] * dim, 1.0)
    assert known.get("c") is None and known.get("a")[1] == 3.0  # type: ignore[index]
    known.clear()
    assert known.get("a") is None
