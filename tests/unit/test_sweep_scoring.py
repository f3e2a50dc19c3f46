"""A sweep's scoring on hand-made rankings: @k metrics of what each setting hands on, its context size in tokens,
the stale-fact rate, and p-values on the metric asked for (no graph needed: `score_settings` folds rankings)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from pipeline.evaluation import metrics as m
from pipeline.evaluation.judgments import EvalQuery, EvalSet
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep_scores import SettingRankings, score_settings
from pipeline.retrieval.recipes import DEFAULT_RECIPE as R

# q1: a (grade 2) and b (grade 1) relevant; q2: c relevant
QRELS = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
FACTS = {"a": "alpha beta", "b": "gamma", "c": "one two three four", "x": "noise", "y": "more noise here"}


def acc(rankings: dict[str, list[str]]) -> SettingRankings:
    return SettingRankings(rankings=rankings, latency=dict.fromkeys(rankings, 10.0))


def scored(stale: dict | None = None):
    spec = SweepSpec("g", candidates=(50,), top_ks=(1, 2), rerankers=("none",)).validate()
    chosen = EvalSet("labelled", "labelled", "g", (EvalQuery("q1", "Q1", "factual"), EvalQuery("q2", "Q2", "x")), QRELS)
    slots = {(R, "none", 50): acc({"q1": ["x", "a", "b"], "q2": ["c", "y"]})}
    lab = SimpleNamespace(settings=None)
    return score_settings(lab, spec, chosen, slots, FACTS, stale)  # type: ignore[arg-type]


def test_at_k_metrics_tokens_and_stale_rate_per_setting() -> None:
    # the stale flags of the unfiltered top: q1's 1st fact would be superseded, q2's 2nd
    stale = {(R, "none", 50): {"q1": (True, False, False), "q2": (False, True)}}
    settings, rows = scored(stale)
    by_key = {s.key: s for s in settings}
    assert set(by_key) == {
        f"{R} none N=50 k=1",
        f"{R} none N=50 k=2",
        f"{R} none N=50 k=10",
    }  # the baseline beside the grid
    row = {(r.setting.key, r.query_id): r.metrics for r in rows}
    k1, k2 = row[(f"{R} none N=50 k=1", "q1")], row[(f"{R} none N=50 k=2", "q1")]
    # q1 top 1 is x (not relevant): nDCG@1 = recall@1 = P@1 = hit@1 = 0
    assert (k1["ndcg@k"], k1["recall@k"], k1["precision@k"], k1["hit@k"]) == (0.0, 0.0, 0.0, 0.0)
    # q1 top 2 is x, a: DCG = 2/log2(3); IDCG = 2 + 1/log2(3)
    assert k2["ndcg@k"] == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert (k2["recall@k"], k2["precision@k"], k2["hit@k"]) == (0.5, 0.5, 1.0)
    # @10 metrics do not depend on k
    assert k1["ndcg@10"] == k2["ndcg@10"]
    # tokens of the facts handed on: the tokenizer's own counts of "noise" (k=1) and "noise" + "alpha beta" (k=2)
    noise, alpha = m.token_counts(["noise", "alpha beta"])
    assert (k1["tokens@k"], k2["tokens@k"]) == (noise, noise + alpha)
    # stale: q1's top 1 is all stale, its top 2 half; q2's top 1 none, its top 2 half
    assert (k1["stale@k"], k2["stale@k"]) == (1.0, 0.5)
    assert row[(f"{R} none N=50 k=2", "q2")]["stale@k"] == 0.5
    assert by_key[f"{R} none N=50 k=1"].metrics["stale@k"] == pytest.approx(0.5)  # mean of 1.0 and 0.0
    assert by_key[f"{R} none N=50 k=2"].metrics["tokens@k"] == pytest.approx(
        (noise + alpha + sum(m.token_counts(["one two three four", "more noise here"]))) / 2
    )


def test_no_stale_rate_unless_measured() -> None:
    settings, rows = scored(None)
    assert all("stale@k" not in s.metrics for s in settings)
    assert all("stale@k" not in r.metrics and "tokens@k" in r.metrics for r in rows)


def test_token_counts_grow_with_the_text() -> None:
    short, long = m.token_counts(["revenue", "revenue was $5.2M in FY2025, audited by the board"])
    assert 1 <= short < long
    assert m.token_counts([]) == []


def test_as_of_is_validated_and_normalised() -> None:
    from pipeline.errors import InvalidInput

    assert SweepSpec("g", as_of="2025-06-30T12:00:00+00:00").validate().as_of == "2025-06-30"
    for bad in ("2025-13-01", "yesterday", "1800-01-01"):
        with pytest.raises(InvalidInput):
            SweepSpec("g", as_of=bad).validate()
    with pytest.raises(InvalidInput):
        SweepSpec("g", as_of="2025-06-30", include_superseded=True).validate()


def test_progress_of_two_passes_counts_both() -> None:
    from pipeline.evaluation.sweep import _share

    seen: list[tuple[int, int]] = []
    first, second = (
        _share(lambda d, t, _m: seen.append((d, t)), 0, 2),
        _share(lambda d, t, _m: seen.append((d, t)), 1, 2),
    )
    assert first and second
    first(0, 10, "")
    first(10, 10, "")
    second(5, 10, "")
    assert seen == [(0, 20), (10, 20), (15, 20)]
    assert _share(None, 0, 2) is None


def test_judged_at_k_and_condensed_metrics_leave_unjudged_facts_out() -> None:
    # x and y are judged by nobody: q1's list x, a, b condenses to a, b; q2's c, y to c
    settings, rows = scored()
    row = {(r.setting.key, r.query_id): r.metrics for r in rows}
    k1, k2 = row[(f"{R} none N=50 k=1", "q1")], row[(f"{R} none N=50 k=2", "q1")]
    assert (k1["judged@k"], k2["judged@k"]) == (0.0, 0.5)  # x; then x, a
    assert row[(f"{R} none N=50 k=2", "q2")]["judged@k"] == 0.5  # c, y
    # condensed: q1's top 1 is a (grade 2, the best there is), its top 2 a, b: both ideal
    assert (k1["ndcg@k'"], k1["precision@k'"], k2["ndcg@k'"]) == (1.0, 1.0, 1.0)
    assert k1["ndcg@k"] == 0.0  # unjudged x counted as not relevant in the plain metric
    by_key = {s.key: s for s in settings}
    assert by_key[f"{R} none N=50 k=2"].judged == pytest.approx(0.5)
    assert by_key[f"{R} none N=50 k=1"].metric("ndcg@k'") == pytest.approx((1.0 + 1.0) / 2)


def test_an_empty_top_k_holds_nothing_unjudged() -> None:
    spec = SweepSpec("g", candidates=(50,), top_ks=(2,), rerankers=("none",)).validate()
    chosen = EvalSet("labelled", "labelled", "g", (EvalQuery("q1", "Q1", "x"), EvalQuery("q2", "Q2", "x")), QRELS)
    slots = {(R, "none", 50): acc({"q1": ["a", "x"], "q2": []})}  # graphiti's cosine floor can leave none
    _settings, rows = score_settings(SimpleNamespace(settings=None), spec, chosen, slots, FACTS)  # type: ignore[arg-type]
    row = {(r.setting.key, r.query_id): r.metrics for r in rows}
    assert row[(f"{R} none N=50 k=2", "q2")]["judged@k"] == 1.0 and row[(f"{R} none N=50 k=2", "q2")]["ndcg@k"] == 0
    assert row[(f"{R} none N=50 k=2", "q1")]["judged@k"] == 0.5
