"""Sweeps start small (issue 26): a seeded sample of the set, recorded in the experiment so it can be run again, and
an estimate of the sweep's size and time before it starts, from the measured pace of the deal's last sweep; two
experiments compared by their recommendations and by how their setups differ."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.compare import recommended_side, setup_differences
from pipeline.evaluation.estimate import estimate_sweep, work_per_query
from pipeline.evaluation.experiments import load_experiment
from pipeline.evaluation.jobs.repo import claim_job, end_job, insert_job, record_progress
from pipeline.evaluation.judgments import load_eval_set
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.processes import this_process
from pipeline.store import open_store

ONE = dict(candidates=(10,), top_ks=(3,), rerankers=("none",))


async def test_a_seeded_sample_is_reproducible_in_set_order_and_all_of_a_smaller_set(lab: Lab, demo: str) -> None:
    full = await load_eval_set(lab, demo)
    scorable = [q.id for q in full.scorable]
    first = full.select(sample=10, seed=3)
    assert [q.id for q in first.queries] == [q.id for q in full.select(sample=10, seed=3).queries]
    picked = [q.id for q in first.queries]
    assert len(picked) == 10 and picked == [q for q in scorable if q in set(picked)]  # the set's order
    assert picked != scorable[:10]  # a sample, not the first ten
    assert picked != [q.id for q in full.select(sample=10, seed=4).queries]
    assert set(first.qrels) == set(picked)
    assert [q.id for q in full.select(sample=150, seed=3).queries] == scorable  # the set is smaller: all
    with pytest.raises(InvalidInput, match="at least 1"):
        SweepSpec(demo, sample=0).validate()

    result = await run_sweep(lab, SweepSpec(demo, sample=5, seed=1, **ONE))  # type: ignore[arg-type]
    assert list(result.queries) == [q.id for q in full.select(sample=5, seed=1).queries]
    assert result.fingerprint["settings"]["sample"] == 5 and result.fingerprint["settings"]["seed"] == 1


async def test_the_estimate_goes_by_the_last_measured_pace_and_says_when_there_is_none(lab: Lab, demo: str) -> None:
    full = await load_eval_set(lab, demo)
    spec = SweepSpec(demo, sample=20, seed=0, candidates=(10, 25), top_ks=(3, 5), rerankers=("none", "local"))
    # a deal no sweep has run on: the size, and no time
    unmeasured = estimate_sweep(lab.store, SweepSpec("never-swept", sample=20, **ONE), full)  # type: ignore[arg-type]
    assert unmeasured.seconds is None
    assert unmeasured.text() == (
        "~20 queries (a sample of 54) x 2 settings; no time estimate yet: no sweep has run on this deal; the job "
        "shows an ETA once its first query is done."
    )
    # a job measured 2.4 s a query for two rankings a query (N=10 none, and the baseline's N=50 none)
    measured = SweepSpec(demo, **ONE)  # type: ignore[arg-type]
    job_id = insert_job(lab.store, demo, json.dumps(asdict(measured)), "tester", this_process())
    assert claim_job(lab.store, job_id, this_process())
    record_progress(lab.store, job_id, 10, 54, 24.0)
    end_job(lab.store, job_id, "cancelled", "test")
    estimate = estimate_sweep(lab.store, spec, full)
    assert (estimate.queries, estimate.scorable, estimate.settings) == (20, 54, 9)  # 2 x 2 x 2 + the baseline
    per_ranking = 2.4 / work_per_query(measured)
    assert work_per_query(measured) == 2 and work_per_query(spec) == 5  # none, local at 10, 25; none at 50
    assert estimate.seconds == pytest.approx(per_ranking * 5 * 20)
    assert estimate.text() == (
        f"~20 queries (a sample of 54) x 9 settings, about 2 min (an estimate: sweep job #{job_id} took 2.4 s a "
        "query for 2 rankings a query)."
    )


def test_cli_eval_samples_by_default_and_says_its_size_before_it_starts(
    demo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_store(Path(os.environ["RETRIEVAL_LAB_DATA_DIR"]))
    argv = ["eval", "--group", demo, "--candidates", "10", "--top-k", "3", "--reranker", "none", "--json"]
    assert main([*argv, "--sample", "4", "--seed", "9"]) == 0
    captured = capsys.readouterr()
    assert "sweep: ~4 queries (a sample of 54) x 2 settings" in captured.err
    out = json.loads(captured.out)
    _info, saved = load_experiment(store, out["experiment_id"])
    assert (saved.spec.sample, saved.spec.seed, saved.stats.queries) == (4, 9, 4)
    assert main(argv) == 0  # the default: a sample of 150, all 54 of the demo's queries
    captured = capsys.readouterr()
    assert "sweep: ~54 queries x 2 settings" in captured.err
    _info, saved = load_experiment(store, json.loads(captured.out)["experiment_id"])
    assert (saved.spec.sample, saved.spec.seed, saved.stats.queries) == (150, 0, 54)


async def test_two_experiments_are_compared_by_their_recommendations_and_their_setups(lab: Lab, demo: str) -> None:
    narrow = await run_sweep(lab, SweepSpec(demo, candidates=(10, 25), top_ks=(5,), sample=30, seed=2))
    wide = await run_sweep(lab, SweepSpec(demo, candidates=(10, 25, 100), top_ks=(5,), sample=40, seed=2))
    side = recommended_side(narrow, "ndcg@k")
    assert side.recommendation == narrow.recommendation("ndcg@k") and side.partial == ""
    values = narrow.per_query(side.recommendation.key, "ndcg@k")
    assert side.interval.n == 30 and side.interval.mean == pytest.approx(sum(values.values()) / 30)
    assert side.interval.low <= side.interval.mean <= side.interval.high
    assert side.interval.text().startswith(f"{side.interval.mean:.3f} (95% CI ")
    shared = len(set(narrow.queries) & set(wide.queries))
    assert setup_differences(narrow, wide) == [
        "Different grids (N A 10, 25 vs B 10, 25, 100): each can only recommend a setting its own grid holds.",
        f"Different queries: A ran 30 (sample 30, seed 2), B 40 (sample 40, seed 2), {shared} shared; the same "
        "setting scores differently on other queries.",
    ]
    assert setup_differences(narrow, narrow) == []
