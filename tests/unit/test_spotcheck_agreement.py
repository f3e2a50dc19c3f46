"""Agreement between spot-check reviewers and Wilson intervals, against hand-computed and published values."""

from __future__ import annotations

import pytest

from pipeline.spotcheck.agreement import agreement, cohen
from pipeline.spotcheck.rates import Rate

GRADES = [0, 1, 2, 3]


def test_quadratic_weighted_kappa_matches_the_hand_computed_value() -> None:
    # observed: (2,3) weighs 1, (0,2) weighs 4 -> 5/5 = 1.0; expected from the marginals A (.4 .2 .2 .2) and
    # B (.2 .2 .2 .4): .4*4.6 + .2*2.0 + .2*1.4 + .2*2.8 = 3.08; kappa_w = 1 - 1.0 / 3.08
    pairs = [(0, 0), (1, 1), (2, 3), (3, 3), (0, 2)]
    assert cohen(pairs, GRADES, weighted=True) == pytest.approx(1 - 1.0 / 3.08)
    # unweighted on the same pairs: po = 3/5, pe = .4*.2 + .2*.2 + .2*.2 + .2*.4 = .24
    assert cohen(pairs, GRADES, weighted=False) == pytest.approx((0.6 - 0.24) / (1 - 0.24))


def test_unweighted_kappa_of_the_textbook_two_by_two_table() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> po .7, pe .5 -> kappa .4
    pairs = [(0, 0)] * 20 + [(0, 1)] * 5 + [(1, 0)] * 10 + [(1, 1)] * 15
    found = agreement({i: {"ana": a, "ben": b} for i, (a, b) in enumerate(pairs)}, "support", [0, 1, 2, 3], {})
    assert found.value == pytest.approx(0.4)
    assert found.statistic == "Cohen's kappa" and found.items == 50


def test_krippendorffs_alpha_on_krippendorffs_own_example() -> None:
    """ "Computing Krippendorff's Alpha-Reliability" (2011): 4 coders, 12 units with missing values, nominal
    alpha = 0.743."""
    coders = {
        "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    }
    answers = {u: {c: v[u] for c, v in coders.items() if v[u] is not None} for u in range(12)}
    found = agreement(answers, "support", [1, 2, 3, 4, 5], {})
    assert found.statistic == "Krippendorff's alpha (nominal)"
    assert found.value == pytest.approx(0.743, abs=5e-4)
    assert found.items == 11  # unit 12 has one answer: nothing to pair
    ordinal = agreement(answers, "relevance", [1, 2, 3, 4, 5], {})
    assert ordinal.statistic == "Krippendorff's alpha (ordinal)" and ordinal.value != found.value


def test_too_little_overlap_is_said_never_a_number() -> None:
    one = agreement({1: {"ana": 2}, 2: {"ana": 3}}, "relevance", GRADES, {"ana": "Ana"})
    assert one.value is None and "two reviewers" in one.text()
    apart = agreement({1: {"ana": 2, "ben": 3}, 2: {"ana": 1}, 3: {"ben": 0}}, "relevance", GRADES, {})
    assert apart.value is None and apart.items == 1 and apart.text().startswith("Not enough overlap")
    same = agreement({1: {"ana": 2, "ben": 2}, 2: {"ana": 2, "ben": 2}}, "relevance", GRADES, {})
    assert same.value is None and "same" in same.text()
    shown = agreement({1: {"ana": 0, "ben": 0}, 2: {"ana": 3, "ben": 2}}, "relevance", GRADES, {"ana": "Ana"})
    assert shown.value is not None and shown.text().startswith("Cohen's kappa (quadratic weights) = ")
    assert "50% answered alike (Ana and ben, 2 shared items)" in shown.text()
    # four of five items alike, all of them 2: kappa reads 0, the share alike says how far they agree
    mostly = agreement({i: {"ana": 2, "ben": 2 if i < 4 else 1} for i in range(5)}, "relevance", GRADES, {})
    assert mostly.value is not None and mostly.alike == pytest.approx(0.8) and "80% answered alike" in mostly.text()


def test_wilson_intervals() -> None:
    # 8 of 10: centre (p + z^2/2n) / (1 + z^2/n) = .7167, half-width .2266 (z = 1.96)
    assert Rate(8, 10).interval == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert Rate(0, 5).interval == pytest.approx((0.0, 0.4345), abs=1e-4)  # never collapses to "0% +- 0"
    assert Rate(5, 5).interval == pytest.approx((0.5655, 1.0), abs=1e-4)
    assert Rate(8, 10).text() == "80% (95% CI 49%-94%, n=10)"
    assert Rate(0, 0).interval is None and Rate(0, 0).text() == "no answers"
