"""The Scores rank-change chart stays readable at any N: the top rows on both sides drawn, the rest counted."""

from __future__ import annotations

import random
import statistics

from dashboard.scores.rank_chart import MAX_ROWS, rank_changes, rank_moves
from pipeline.retrieval.records import Candidate, RankedCandidate


def ranked(first_stage_order: list[int], reranked_order: list[int]) -> list[RankedCandidate]:
    """Candidates named by their first-stage rank (fact "fact 7" was 7th), placed in `reranked_order`."""
    assert sorted(first_stage_order) == sorted(reranked_order)
    return [
        RankedCandidate(
            Candidate(f"u{before}", f"fact {before}", "R", "s", "t", (), None, None, None, 1 / before, before, {}),
            rank=after,
            rerank_score=1 / after,
            rerank_score_norm=None,
        )
        for after, before in enumerate(reranked_order, start=1)
    ]


def shuffled(n: int, seed: int) -> list[RankedCandidate]:
    order = list(range(1, n + 1))
    random.Random(seed).shuffle(order)
    return ranked(list(range(1, n + 1)), order)


def test_at_n_200_only_the_top_rows_are_drawn_in_a_few_traces() -> None:
    candidates = shuffled(200, seed=18)
    fig = rank_changes(candidates, top_k=10)
    lines = [t for t in fig.data if t.showlegend is not False]
    assert 1 <= len(lines) <= 3 and len(fig.data) <= 4  # up, down, unchanged (+ the right axis' anchor)
    drawn = {tuple(c) for t in lines for c in t.customdata if c is not None}
    drawn_before = {int(d[1]) for d in drawn}
    drawn_after = {int(d[2]) for d in drawn}
    top = {c.candidate.first_stage_rank for c in candidates if c.rank <= 10} | set(range(1, 11))
    assert drawn_before == top  # every fact in the top 10 on either side, and no other
    assert all(b <= 10 or a <= 10 for _, b, a in drawn)
    assert set(range(1, 11)) <= drawn_after
    for axis in (fig.layout.yaxis, fig.layout.yaxis2):
        assert len(axis.ticktext) <= 2 * 10 + 1  # the top rows, a gap row, the ones from further down
        assert all(len(label) < 50 for label in axis.ticktext)


def test_the_note_counts_and_measures_the_moves_it_does_not_draw() -> None:
    candidates = shuffled(200, seed=7)
    moves = rank_moves(candidates, top_k=5)
    assert moves.rows == 10  # a small k still shows the first 10 rows
    others = [c for c in candidates if c.rank > 10 and c.candidate.first_stage_rank > 10]
    assert len(moves.others) == len(others) and len(moves.shown) + len(others) == 200
    moved = [abs(c.candidate.first_stage_rank - c.rank) for c in others if c.candidate.first_stage_rank != c.rank]
    expected = f"{len(others)} more candidates stay below the top 10 on both sides: {len(moved)} moved, by a median "
    assert moves.note == expected + f"of {statistics.median(moved):g} places (at most {max(moved)})."
    assert moves.note in rank_changes(candidates, top_k=5).layout.title.subtitle.text


def test_rows_follow_k_up_to_the_deepest_cut_and_mark_it() -> None:
    candidates = shuffled(200, seed=1)
    assert rank_moves(candidates, top_k=25).rows == MAX_ROWS
    fig = rank_changes(candidates, top_k=3)
    cut = [shape.y0 for shape in fig.layout.shapes]
    assert 3.5 in cut  # the cut at k, drawn inside the 10 rows
    assert any("cut at k = 3" in a.text for a in fig.layout.annotations)


def test_a_small_unchanged_run_draws_everything_and_says_so() -> None:
    candidates = ranked([1, 2, 3, 4], [1, 2, 3, 4])
    moves = rank_moves(candidates, top_k=10)
    assert moves.rows == 4 and len(moves.shown) == 4 and moves.note == "Every candidate is drawn (4)."
    fig = rank_changes(candidates, top_k=10)
    assert [t.name for t in fig.data if t.showlegend is not False] == ["unchanged"]


def test_others_that_kept_their_rank_are_said_to_have_not_moved() -> None:
    order = [2, 1, *range(3, 31)]  # only the first two swap
    moves = rank_moves(ranked(list(range(1, 31)), order), top_k=10)
    assert moves.note == "20 more candidates stay below the top 10 on both sides: none of them moved."
