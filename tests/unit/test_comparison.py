"""The engine of a judged comparison: RBO, per-side metrics, the verdict line, the low-confidence rule."""

from __future__ import annotations

import math

import pytest

from pipeline.comparison.confidence import agreement, judge
from pipeline.comparison.judged import SideScore, judgments_in, side_score
from pipeline.comparison.overlap import overlap
from pipeline.comparison.rbo import rbo_ext
from pipeline.comparison.verdict import Verdict, side_names, verdict
from pipeline.evaluation.judgments import EvalQuery, EvalSet
from pipeline.retrieval.records import Candidate
from pipeline.retrieval.setting import setting


def test_rbo_of_identical_and_disjoint_lists() -> None:
    assert rbo_ext(list("abcdefghij"), list("abcdefghij")) == pytest.approx(1.0)
    assert rbo_ext(list("abc"), list("xyz")) == 0.0
    assert rbo_ext([], []) == 1.0 and rbo_ext(["a"], []) == 0.0


def test_rbo_known_values() -> None:
    # Even lists, eq. 30 worked by hand: X = (1, 1, 3), A = (1, 1/2, 1);
    # (1-p)/p * (0.9 + 0.81/2 + 0.729) + 1 * 0.729 = 0.226 + 0.729
    assert rbo_ext(list("abc"), list("acb")) == pytest.approx(0.1 / 0.9 * (0.9 + 0.405 + 0.729) + 0.729)
    # Swapping the top two costs more than swapping the last two (RBO is top-weighted).
    assert rbo_ext(list("abcd"), list("bacd")) < rbo_ext(list("abcd"), list("abdc"))
    # Uneven lists, eq. 32 by hand: S = [a], L = [a, b]; s = 1, l = 2, X_1 = X_2 = 1.
    # (1-p)/p * (p + p^2/2 + 1 * (2-1)/(1*2) * p^2) + ((1-1)/2 + 1/1) * p^2 = 0.1 + 0.09 + 0.09 + 0.81
    assert rbo_ext(["a"], ["a", "b"]) == pytest.approx(0.1 / 0.9 * (0.9 + 0.405 + 0.405) + 0.81)
    assert rbo_ext(["a"], ["a", "b"]) == pytest.approx(1.0)  # the short list agrees wholly with the long one's top


def test_rbo_is_symmetric_and_bounded() -> None:
    a, b = list("abcdefg"), list("gfedcbaxyz")
    assert rbo_ext(a, b) == pytest.approx(rbo_ext(b, a))
    assert 0.0 < rbo_ext(a, b) < 1.0
    with pytest.raises(ValueError):
        rbo_ext(a, b, p=1.0)


def test_overlap_counts_jaccard_and_rbo() -> None:
    o = overlap(list("abcd"), list("cdef"))
    assert (o.shared, o.size_a, o.size_b) == (2, 4, 4)
    assert o.jaccard == pytest.approx(2 / 6)
    # X = (0, 0, 1, 2): (1-p)/p * (p^3/3 + p^4/2) + 2/4 * p^4
    assert o.rbo == pytest.approx(0.1 / 0.9 * (0.729 / 3 + 0.6561 / 2) + 0.5 * 0.6561)


GRADES = {"r1": 2, "r2": 1, "r3": 1, "n1": 0}


def test_side_score_uses_the_project_metrics() -> None:
    worse = side_score(GRADES, ["x", "n1", "r2", "y"], 4)
    better = side_score(GRADES, ["r1", "r2", "x", "r3"], 4)
    assert (worse.relevant, better.relevant) == (1, 3)
    assert worse.mrr == pytest.approx(1 / 3) and better.mrr == pytest.approx(1.0)
    assert worse.recall == pytest.approx(1 / 3) and better.recall == pytest.approx(1.0)
    # nDCG@4 of the better list by hand (trec_eval: gain = grade, discount log2(rank + 1)).
    dcg = 2 + 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert better.ndcg == pytest.approx(dcg / ideal, abs=1e-4)
    assert side_score(GRADES, ["r1", "r2", "r3"], 1).relevant == 1  # only the top k counts


def test_side_score_of_nothing_relevant_is_zero() -> None:
    score = side_score(GRADES, ["x", "y"], 2)
    assert (score.ndcg, score.recall, score.mrr, score.relevant) == (0.0, 0.0, 0.0, 0)


RERANKING = ("without reranking", "with local")


def test_verdict_follows_ndcg_when_the_count_points_the_other_way() -> None:
    # issue 26, both sides N=200: "B finds 1 more relevant fact in its top 10 (nDCG@10 0.22 -> 0.21)"
    a, b = SideScore(10, 0.2213, 0.5, 0.25, 2), SideScore(10, 0.2138, 0.75, 0.2, 3)
    said = verdict(a, b, RERANKING)
    assert said.outcome == "worse"
    assert said.line == (
        "Worse with local than without reranking: nDCG@10 0.22 -> 0.21, although it finds 1 more relevant fact "
        "in its top 10 (lower down or of lower grade)."
    )
    back = verdict(b, a, RERANKING)  # fewer relevant facts, higher nDCG: better, and said so
    assert back.outcome == "better" and back.line.startswith("Better with local than without reranking: nDCG@10 0.21")
    assert "although it finds 1 fewer relevant fact in its top 10 (higher up or of higher grade)" in back.line


def test_verdict_lines() -> None:
    a, b = SideScore(10, 0.41, 0.3, 0.5, 1), SideScore(10, 0.63, 0.9, 1.0, 3)
    assert verdict(a, b, RERANKING) == Verdict(
        "better",
        "Better with local than without reranking: nDCG@10 0.41 -> 0.63, and 2 more relevant facts in its top 10.",
    )
    assert verdict(b, a, RERANKING).outcome == "worse"
    same = SideScore(10, 0.41, 0.3, 0.5, 1)
    assert verdict(a, same, RERANKING) == Verdict(
        "no change",
        "No change: nDCG@10 0.41 -> 0.41 (without reranking -> with local); both find 1 relevant fact in their top 10.",
    )
    higher = SideScore(10, 0.55, 0.3, 1.0, 1)
    assert verdict(a, higher, RERANKING).line == (
        "Better with local than without reranking: nDCG@10 0.41 -> 0.55; both find 1 relevant fact in their top 10, "
        "ranked higher or of higher grade with local."
    )
    # the outcome follows nDCG as shown: 0.414 and 0.409 both read 0.41, so no change
    shown_alike = SideScore(10, 0.414, 0.3, 0.5, 1), SideScore(10, 0.409, 0.3, 0.5, 1)
    assert verdict(*shown_alike, RERANKING).outcome == "no change"
    none = SideScore(5, 0.0, 0.0, 0.0, 0)
    nothing = verdict(none, SideScore(10, 0.0, 0.0, 0.0, 0), RERANKING)
    assert nothing.outcome == "no change" and "neither side finds" in nothing.line
    assert "nDCG@k 0.00 -> 0.63" in verdict(none, b, RERANKING).line


def test_sides_are_named_by_what_differs() -> None:
    none, local = setting(reranker="none"), setting(reranker="local")
    assert side_names(none, local) == ("without reranking", "with local")
    assert side_names(setting(reranker="local"), setting(reranker="voyage")) == ("with local", "with voyage")
    assert side_names(setting(candidates=50, reranker="none"), setting(candidates=100, reranker="voyage")) == (
        "N=50 · none",
        "N=100 · voyage",
    )
    assert side_names(setting(candidates=25, top_k=5), setting()) == ("N=25 · k=5", "N=50 · k=10")
    assert side_names(local, local) == ("side A", "side B")
    assert verdict(SideScore(10, 0.1, 0, 0, 1), SideScore(10, 0.3, 0, 0, 1), ("N=25", "N=50")).line.startswith(
        "Better with N=50 than with N=25: nDCG@10 0.10 -> 0.30"
    )


def test_judgments_match_the_query_text_trimmed_and_case_insensitive() -> None:
    es = EvalSet("labelled", "Labelled", "g", (EvalQuery("q1", "What was FY2025 revenue?", "factual"),), {"q1": GRADES})
    assert judgments_in(es, "  what WAS fy2025   revenue? ") == GRADES
    assert judgments_in(es, "What was FY2024 revenue?") is None


def _candidate(uuid: str, bm25: int | None, cosine: int | None) -> Candidate:
    ranks = {"bm25": bm25, "cosine": cosine, "bfs": None}
    return Candidate(uuid, "f", "R", "s", "t", (), None, None, None, 0.1, 1, ranks)


def test_low_confidence_rule() -> None:
    floor = 0.35
    assert judge(0.20, floor, 30, 5).low  # nothing close, whatever the lexical signals
    assert not judge(0.62, floor, 0, 0).low
    assert judge(None, None, 0, 0).low  # uncalibrated embedder: nothing lexical, nothing agreed
    assert not judge(None, None, 3, 0).low
    pool = (_candidate("a", 1, 2), _candidate("b", 11, 1), _candidate("c", None, 3), _candidate("d", 4, None))
    assert agreement(pool) == 1
    assert "cosine 0.20" in judge(0.20, floor, 30, 5).reason
