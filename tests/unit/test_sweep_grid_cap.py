"""One cap on a sweep's grid, shared by the page and the CLI; a large experiment opened without its rankings, which
are read back only for the settings a view shows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.big_experiment import synthetic
from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.experiments import load_experiment, save_experiment, with_rankings
from pipeline.evaluation.records import MAX_GRID_SETTINGS, SweepSpec
from pipeline.store import open_store


def test_a_grid_over_the_cap_is_refused_in_one_line() -> None:
    at_cap = SweepSpec("demo", candidates=tuple(range(1, 11)), top_ks=tuple(range(1, 11)), rerankers=("none", "local"))
    assert len(at_cap.validate().grid()) == 110 <= MAX_GRID_SETTINGS
    over = SweepSpec("demo", candidates=tuple(range(1, 201)), top_ks=tuple(range(1, 101)), rerankers=("none", "local"))
    with pytest.raises(InvalidInput) as refused:
        over.validate()
    assert str(refused.value).startswith(
        f"A sweep grid may hold at most {MAX_GRID_SETTINGS} settings; this one has 30,100"
    )


def test_the_cli_refuses_a_grid_over_the_cap_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    candidates, top_ks = ",".join(map(str, range(1, 201))), ",".join(map(str, range(1, 101)))
    argv = ["eval", "--group", "nosuchdeal", "--candidates", candidates, "--top-k", top_ks, "--reranker", "none,local"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"at most {MAX_GRID_SETTINGS} settings; this one has 30,100" in err[0]


def test_an_experiment_opens_without_rankings_and_reads_back_those_a_view_needs(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    result = synthetic(settings=30, queries=5)
    exp_id = save_experiment(store, result, "big")
    whole = load_experiment(store, exp_id)[1]
    light = load_experiment(store, exp_id, rankings=False)[1]
    assert all(r.ranking == () for r in light.rows)
    assert light.settings == whole.settings and light.recommendation() == whole.recommendation()
    assert [replace(r, ranking=()) for r in whole.rows] == list(light.rows)
    picked = (whole.baseline, whole.grid[3].key)
    shown = with_rankings(store, exp_id, light, picked)
    assert [r for r in shown.rows if r.setting.key in picked] == [r for r in whole.rows if r.setting.key in picked]
    assert all(r.ranking == () for r in shown.rows if r.setting.key not in picked)
