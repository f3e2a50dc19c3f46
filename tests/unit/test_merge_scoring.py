"""Merge candidate scoring on names whose signals can be worked out by hand."""

from __future__ import annotations

import math

import pytest

from pipeline.merges.candidates import EntityRef, blocked_pairs, score_candidates
from pipeline.merges.scoring import (
    DEFAULT_THRESHOLD,
    combine,
    core_name,
    cosine,
    name_match,
    precision_recall,
    score_pair,
    shingle_similarity,
)


def test_name_match_exact_core_and_none() -> None:
    assert name_match("Acme  Logistics", "acme logistics") == 1.0  # graphiti's exact key
    assert name_match("ACME Logistics, LLC", "Acme Logistics") == 0.9  # same core name
    assert name_match("Cascade ColdChain Inc.", "Cascade Cold Chain") == 0.9  # spaces do not count
    assert name_match("Brennan Hollis & Co.", "Brennan Hollis") == 0.9
    assert name_match("Revenue", "Net Revenue") == 0.0
    assert name_match("Co", "Inc") == 0.0  # a legal form alone is not stripped to nothing


def test_core_name() -> None:
    assert core_name("Brennan Hollis & Co.") == "brennanhollis"
    assert core_name("Pinecrest Carriers Ltd.") == "pinecrestcarriers"
    assert core_name("Co Inc") == "co"


def test_shingle_similarity_is_graphitis_trigram_jaccard() -> None:
    # {abc, bcd} vs {abc, bce}: 1 shared of 3
    assert shingle_similarity("abcd", "abce") == pytest.approx(1 / 3)
    # revenue: rev eve ven enu nue (5); netrevenue adds net etr tre (8): 5 / 8
    assert shingle_similarity("Revenue", "Net Revenue") == pytest.approx(5 / 8)
    assert shingle_similarity("Same Name", "same-name") == 1.0


def test_cosine() -> None:
    assert cosine([1.0, 0.0], [0.0, 1.0]) == 0.0
    assert cosine([1.0, 1.0], [1.0, 0.0]) == pytest.approx(1 / math.sqrt(2))
    assert cosine(None, [1.0]) is None
    assert cosine([0.0, 0.0], [1.0, 1.0]) is None
    assert cosine([1.0], [1.0, 2.0]) is None


def test_combine() -> None:
    assert combine(0.0, 0.5, 0.5) == 0.5  # 0.4 * 0.5 + 0.6 * 0.5
    assert combine(0.9, 0.2, 0.1) == 0.9  # a name match decides alone
    assert combine(0.0, 1.0, -0.5) == 0.4  # negative cosine counts as 0
    assert combine(0.0, 1.0, None) == 0.4
    assert combine(0.0, 1.0, 1.0) == 1.0
    assert combine(1.0, 0.0, 0.0) == 1.0


def test_revenue_and_net_revenue_stay_under_the_default_unless_cosine_is_one() -> None:
    # 0.4 * 5/8 + 0.6 * cos = 0.25 + 0.6 * cos
    assert score_pair("Revenue", "Net Revenue", [1.0, 0.0], [0.8, 0.6]).score == pytest.approx(0.25 + 0.6 * 0.8)
    assert score_pair("Revenue", "Net Revenue", [1.0, 0.0], [0.99, math.sqrt(1 - 0.99**2)]).score < DEFAULT_THRESHOLD
    signals = score_pair("ACME Logistics LLC", "Acme Logistics", [1.0, 0.0], [0.0, 1.0])
    assert (signals.name_match, signals.cosine, signals.score) == (0.9, 0.0, 0.9)


def test_precision_recall_by_hand() -> None:
    scored = [(0.9, True), (0.8, False), (0.7, True), (0.2, False)]
    p75, p50, p95 = precision_recall(scored, [0.75, 0.5, 0.95])
    assert (p75.true_positives, p75.false_positives, p75.false_negatives) == (1, 1, 1)
    assert (p75.precision, p75.recall) == (0.5, 0.5)
    assert p50.precision == pytest.approx(2 / 3) and p50.recall == 1.0
    assert p95.precision is None and p95.recall == 0.0  # nothing would merge
    assert precision_recall([(0.5, False)], [0.1])[0].recall is None  # no true duplicates


def _entities(names: list[str], facts: list[int] | None = None) -> list[EntityRef]:
    return [EntityRef(f"u{i}", n, f"k{i}", (facts or [0] * len(names))[i]) for i, n in enumerate(names)]


NAMES = [
    "Northwind Logistics",
    "Northwind Logistics Inc",
    "Pinecrest Carriers",
    "Pinecrest Carriers Ltd.",
    "Revenue",
    "Net Revenue",
    "Denver Lease",
    "Zebra Holdings",
]
VECTORS = [
    [1.0, 0.0, 0.0],
    [0.95, 0.1, 0.0],
    [0.0, 1.0, 0.0],
    [0.1, 0.95, 0.0],
    [0.0, 0.0, 1.0],
    [0.0, 0.3, 0.95],
    [0.5, 0.5, 0.5],
    [-1.0, 0.0, 0.0],
]


def test_candidates_suggest_the_entity_with_more_facts_as_canonical_and_hide_rejected() -> None:
    entities = _entities(NAMES, [1, 5, 3, 0, 0, 0, 0, 0])
    found, scored, hidden, blocked = score_candidates(entities, VECTORS)
    assert scored == 28 and hidden == 0 and not blocked  # 8 choose 2
    top = {(c.canonical.name, c.alias.name): c.signals for c in found}
    northwind = top[("Northwind Logistics Inc", "Northwind Logistics")]  # 5 facts beat 1
    assert northwind.name_match == 0.9 and northwind.score == max(0.9, combine(0, northwind.shingle, northwind.cosine))
    assert top[("Pinecrest Carriers", "Pinecrest Carriers Ltd.")].name_match == 0.9  # 3 facts beat 0
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)
    found2, _, hidden2, _ = score_candidates(entities, VECTORS, {frozenset(("u0", "u1"))})
    assert hidden2 == 1 and {(c.canonical.uuid, c.alias.uuid) for c in found2} == {
        (c.canonical.uuid, c.alias.uuid) for c in found
    } - {("u1", "u0")}


def test_blocking_keeps_the_pairs_all_pairs_finds() -> None:
    entities = _entities(NAMES)
    all_pairs, _, _, _ = score_candidates(entities, VECTORS)
    blocked, scored, _, was_blocked = score_candidates(entities, VECTORS, all_pairs_max=4, neighbours=1)
    assert was_blocked and scored < 28
    assert {(c.canonical.uuid, c.alias.uuid) for c in blocked} == {(c.canonical.uuid, c.alias.uuid) for c in all_pairs}
    pairs = blocked_pairs(NAMES, VECTORS, neighbours=1)
    assert (0, 1) in pairs and (2, 3) in pairs
