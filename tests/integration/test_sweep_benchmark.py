"""`python -m benchmarks sweep`: cold runs per concurrency with the time split by phase, a warm repeat from the
cache, and the check that every run ranked alike; `recipe-sweep`; `cli-start`, each CLI command's cold start."""

from __future__ import annotations

from benchmarks.cli import main
from benchmarks.sweep import render_sweep, time_sweep
from pipeline.lab import Lab
from pipeline.timing import PHASES


async def test_sweep_benchmark_times_cold_and_warm_by_phase(lab: Lab, demo: str) -> None:
    result = await time_sweep(lab, demo, 3, (10, 25), (5,), ("none", "local"), (1, 2), repeat=1)
    assert result["queries"] == 3 and result["settings"] == 4
    # cold: caches bypassed, so every pool is retrieved (N=10, 25 and the baseline's 50) and reranked
    assert result["pools_retrieved"] == 3 * 3 and result["rerank_calls"] == 3 * 2
    assert [row["concurrency"] for row in result["cold"]] == [1, 2]
    for row in result["cold"]:
        assert set(row["phases_ms_median"]) == set(PHASES)
        assert row["phases_ms_median"]["first_stage"] > 0 and row["phases_ms_median"]["rerank"] > 0
        assert row["seconds_median"] > 0
    assert result["warm_pools_cached"] == 9 and result["warm_rerank_cached"] == 6
    assert result["runs_differing"] == 0
    text = render_sweep(result)
    assert "1 in flight" in text and "2 in flight" in text and "identical in every run" in text


def test_sweep_benchmark_refuses_bad_options_in_one_line(capsys: object) -> None:
    assert main(["sweep", "--group", "demo", "--concurrency", "0"]) == 2
    assert main(["sweep", "--group", "demo", "--repeat", "0"]) == 2


def test_recipe_sweep_benchmark_prints_both_sweeps_and_their_ratio(demo: str, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    args = ["recipe-sweep", "--group", demo, "--queries", "3", "--candidates", "10", "--rerankers", "none"]
    assert main([*args, "--recipes", "vector,bm25,hybrid-walk", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["one"] == "graphiti-default" and result["many"] == ["vector", "bm25", "hybrid-walk"]
    assert result["settings_one"] == 1 and result["settings_many"] == 3 and result["queries"] == 3
    seconds = result["seconds_median"]
    assert result["ratio_many_to_one"] == round(seconds["many"] / seconds["one"], 2)
    assert main([*args, "--recipes", "nope"]) == 2


def test_cli_start_benchmark_times_each_command_beside_the_bare_interpreter(demo: str, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    assert main(["cli-start", "--group", demo, "--repeat", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    times = {label: figures["p50_s"] for label, figures in result["commands"].items()}
    assert set(times) == {"python -c pass", "--help", "status", "deals", "query --reranker local"}
    assert all(seconds > 0 for seconds in times.values())
    assert times["status"] > times["python -c pass"]  # a command does more than start the interpreter
    assert main(["cli-start", "--group", "no-such-deal"]) == 2
