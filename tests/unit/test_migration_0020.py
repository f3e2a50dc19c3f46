"""Migration 0020 on a store that holds an experiment and cached pools from before sweeps took a recipe: they all
ran the hybrid walk, and after the migration they say so (keys, baseline, spec, cache) and open as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.evaluation.cache import FirstStageCache, pack
from pipeline.evaluation.experiments import load_experiment
from pipeline.store.db import Store
from tests.support.migrations import migrated, store_before
from tests.support.pools import pool_of

SPEC = {
    "group_id": "deal_a",
    "candidates": [50],
    "top_ks": [10],
    "rerankers": ["none", "local"],
    "judgments": "labelled",
    "split": None,
    "limit_queries": None,
    "include_superseded": False,
    "use_cache": True,
    "as_of": None,
    "stale_rate": False,
}
STATS = {"queries": 2, "pools_retrieved": 2, "pools_cached": 0, "rerank_calls": 2, "rerank_cached": 0, "seconds": 1.0}
PAYLOAD = {
    "eval_set": {"scorable": 2},
    "created_at": "2026-11-01T00:00:00+00:00",
    "queries": {"q1": ["revenue", "factual"], "q2": ["ebitda", "factual"]},
    "qrels": {"q1": {"f1": 1}, "q2": {"f2": 1}},
    "facts": {"f1": "revenue was $4M", "f2": "EBITDA was $1M"},
    "stats": STATS,
    "baseline": "none N=50 k=10",
}
SETTING = "INSERT INTO experiment_settings VALUES (?, ?, 50, 10, ?, '', ?, ?, '{}', 10, 20, 0, 0.0, 0, ?, ?)"


def _old_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Store, int]:
    old = store_before(20, tmp_path, monkeypatch)
    with old.transaction() as conn:
        exp_id = conn.execute(
            "INSERT INTO experiments (name, group_id, created_at, judgments, queries, duration_s, spec, payload) "
            "VALUES ('before recipes', 'deal_a', 't', 'labelled', 2, 1.0, ?, ?)",
            (json.dumps(SPEC), json.dumps(PAYLOAD)),
        ).lastrowid
        for setting, reranker, in_grid, ndcg, p in (
            ("none N=50 k=10", "none", 1, 0.4, None),
            ("local N=50 k=10", "local", 1, 0.6, 0.5),
        ):
            conn.execute(SETTING, (exp_id, setting, reranker, in_grid, json.dumps({"ndcg@k": ndcg}), p, p))
            for query, value in (("q1", ndcg), ("q2", ndcg)):
                conn.execute(
                    "INSERT INTO experiment_queries VALUES (?, ?, ?, ?, 5.0, '[\"f1\"]')",
                    (exp_id, setting, query, json.dumps({"ndcg@k": value})),
                )
        conn.execute(
            "INSERT INTO eval_first_stage VALUES ('deal_a', 'fp', 'current', 50, 'revenue', 3.0, ?, 't')",
            (pack(pool_of(("f1",), ("revenue was $4M",), 3.0)),),
        )
    return old, int(exp_id or 0)


def test_0020_labels_every_old_experiment_and_cached_pool_hybrid_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, exp_id = _old_store(tmp_path, monkeypatch)
    new = migrated(old, monkeypatch)
    assert 20 in new.applied_migrations()
    _info, result = load_experiment(new, exp_id)
    assert result.spec.recipes == ("hybrid-walk",)
    assert [s.key for s in result.settings] == ["hybrid-walk none N=50 k=10", "hybrid-walk local N=50 k=10"]
    assert {s.setting.recipe.key for s in result.settings} == {"hybrid-walk"}
    assert result.baseline == "hybrid-walk none N=50 k=10"
    assert {r.setting.key for r in result.rows} == {s.key for s in result.settings}
    assert result.per_query("hybrid-walk local N=50 k=10", "ndcg@k") == {"q1": 0.6, "q2": 0.6}
    assert result.recommendation().sentence  # the recommendation reads the migrated keys
    cache = FirstStageCache(new, "deal_a", "fp", "current")
    assert cache.get("hybrid-walk", 50, "revenue") == pool_of(("f1",), ("revenue was $4M",), 3.0)
    assert cache.get("vector", 50, "revenue") is None
