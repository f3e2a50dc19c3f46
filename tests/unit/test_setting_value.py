"""Issue 39, item 2: a setting is one value. The grid and the baseline are `Setting`s, a sweep's results hold one,
and its key, label, CLI text and JSON form all come from it (and read back to it)."""

from __future__ import annotations

from dataclasses import replace

from pipeline.evaluation.records import BASELINE, QueryRow, SweepSpec
from pipeline.retrieval.recipes import PRESETS, custom
from pipeline.retrieval.setting import Setting, setting
from tests.support.sweeps import hybrid_walk_sweep


def test_the_grid_is_settings_and_the_baseline_one_of_them() -> None:
    spec = SweepSpec("demo", (10, 50), (5, 10), ("none", "local"), recipes=("graphiti-default", "vector")).validate()
    grid = spec.grid()
    assert all(isinstance(s, Setting) for s in grid) and len(grid) == 2 * 2 * 4
    assert setting("graphiti-default", 50, "none", 10) == BASELINE and BASELINE in grid
    assert grid[0] == setting("graphiti-default", 10, "none", 5)  # sweep order: recipe, reranker, N, k


def test_key_label_and_text_are_the_settings_own_and_parse_reads_the_text_back() -> None:
    s = setting("vector", 50, "local", 10)
    assert (s.key, s.label, s.text) == ("vector local N=50 k=10", "vector + local, N=50, k=10", "vector:local:50:10")
    assert Setting.parse(s.text, "--setting") == s
    indexed = replace(s, first_stage="vector_index")
    assert indexed.key != s.key and indexed.label == "vector + local, N=50, k=10, vector index"


def test_a_custom_recipe_goes_to_json_and_back_whole() -> None:
    config = PRESETS["graphiti-default"].model_copy(deep=True)
    assert config.edge_config is not None
    config.edge_config.sim_min_score = 0.3
    s = Setting(custom(config), 25, "local", 5)
    data = s.to_dict()
    assert "search_config" in data
    assert Setting.from_dict(data, "p.json") == s


def test_a_sweeps_results_hold_their_setting() -> None:
    result = hybrid_walk_sweep(("none", "local"))
    assert [r.setting for r in result.settings] == [setting("hybrid-walk", 50, r, 10) for r in ("none", "local")]
    assert [r.key for r in result.settings] == [r.setting.key for r in result.settings]
    flat = result.settings[1].to_dict()  # `eval --json` keeps its flat shape
    assert (flat["key"], flat["recipe"], flat["reranker"], flat["candidates"], flat["top_k"]) == (
        "hybrid-walk local N=50 k=10",
        "hybrid-walk",
        "local",
        50,
        10,
    )


def test_a_per_query_row_holds_its_setting_and_is_written_by_key() -> None:
    s = setting("vector", 25, "local", 5)
    row = QueryRow(s, "q1", {"ndcg@k": 0.5}, 12.0, ("a", "b"))
    assert row.setting.top_k == 5
    assert row.to_dict() == {
        "setting": "vector local N=25 k=5",
        "query_id": "q1",
        "metrics": {"ndcg@k": 0.5},
        "latency_ms": 12.0,
        "ranking": ("a", "b"),
    }
