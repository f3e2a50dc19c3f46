"""The gain of each reranked setting over pure vector search at the same N and k, in percent with a paired test."""

from __future__ import annotations

import pytest

from pipeline.evaluation.records import QueryRow, SettingResult, SweepResult, SweepSpec, SweepStats
from pipeline.evaluation.vector_gain import gains_over_vector
from pipeline.retrieval.setting import setting

QUERIES = [f"q{i}" for i in range(12)]


def _setting(recipe: str, reranker: str, n: int, k: int) -> SettingResult:
    return SettingResult(setting(recipe, n, reranker, k), "", True, {}, {}, 1.0, 1.0, 0, None, 0, None, None)


def _sweep(per_setting: dict[tuple[str, str, int, int], list[float]]) -> SweepResult:
    settings = tuple(_setting(*key) for key in per_setting)
    rows = tuple(
        QueryRow(s.setting, q, {"ndcg@k": v}, 1.0, ())
        for s, values in zip(settings, per_setting.values(), strict=True)
        for q, v in zip(QUERIES, values, strict=True)
    )
    return SweepResult(
        spec=SweepSpec("demo", (50,), (10,), ("none", "local"), recipes=("vector", "hybrid-walk")),
        eval_set={},
        created_at="2026-11-27",
        settings=settings,
        rows=rows,
        queries={q: (q, "factual") for q in QUERIES},
        qrels={},
        facts={},
        stats=SweepStats(len(QUERIES), 0, 0, 0, 0, 0.0),
        baseline="hybrid-walk none N=50 k=10",
    )


def test_each_reranked_setting_is_set_against_vector_search_at_its_n_and_k() -> None:
    vector = [0.4] * 12
    result = _sweep(
        {
            ("vector", "none", 50, 10): vector,
            ("vector", "local", 50, 10): [0.5] * 12,  # +25% on every query
            ("hybrid-walk", "none", 50, 10): [0.3] * 12,
            ("hybrid-walk", "local", 50, 10): [0.4 + (0.01 if i % 2 else -0.01) for i in range(12)],  # noise
            ("hybrid-walk", "local", 25, 10): [0.9] * 12,  # no vector setting at N=25: not compared
        }
    )
    gains = {g.key: g for g in gains_over_vector(result, "ndcg@k")}
    assert set(gains) == {"vector local N=50 k=10", "hybrid-walk local N=50 k=10"}
    clear, noise = gains["vector local N=50 k=10"], gains["hybrid-walk local N=50 k=10"]
    assert clear.vector_key == "vector none N=50 k=10"
    assert clear.percent == pytest.approx(25.0) and clear.test.p_randomization < 0.001
    assert noise.percent == pytest.approx(0.0, abs=1e-9) and noise.test.p_randomization > 0.5
    assert clear.line == "vector local N=50 k=10: +25.0% ndcg@k over vector none N=50 k=10 (0.400 -> 0.500, p < 0.001)"


def test_no_vector_recipe_no_comparison_and_a_zero_vector_score_has_no_percent() -> None:
    assert (
        gains_over_vector(
            _sweep({("hybrid-walk", "none", 50, 10): [0.3] * 12, ("hybrid-walk", "local", 50, 10): [0.4] * 12}),
            "ndcg@k",
        )
        == []
    )
    (gain,) = gains_over_vector(
        _sweep(
            {
                ("hybrid-walk", "none", 50, 10): [0.3] * 12,
                ("vector", "none", 50, 10): [0.0] * 12,
                ("vector", "local", 50, 10): [0.5] * 12,
            }
        ),
        "ndcg@k",
    )
    assert gain.test.n == 12 and gain.test.mean_b == pytest.approx(0.5)
    assert gain.percent is None and "n/a (vector scores 0)" in gain.line
