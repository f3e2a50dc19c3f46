"""Time-aware evaluation on the demo deal (it has superseded facts): a sweep as of a date ranks as `retrieve()` does
as of that date, the stale-fact rate is the share of each top k that `retrieve()` without the superseded filter
fills with superseded facts, and `eval` prints the recommendation in words and stores `--as-of` with the
experiment."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from pipeline.cli import main
from pipeline.evaluation import judgments
from pipeline.evaluation.experiments import list_experiments, load_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.utc import to_utc

QUERIES = 12
# every sweep here is set against live retrievals, so none reuses pools an earlier test's sweep cached: an admin
# action and its undo leave the graph's content (the cache's key) as it was, but can reorder tied candidates


def superseded_by(candidate, cutoff: datetime) -> bool:
    dates = (to_utc(candidate.invalid_at), to_utc(candidate.expired_at))
    return any(d is not None and d <= cutoff for d in dates)


async def test_stale_fact_rate_is_what_the_unfiltered_top_k_holds(lab: Lab, demo: str) -> None:
    spec = SweepSpec(demo, (25,), (5, 10), ("none", "local"), limit_queries=QUERIES, stale_rate=True, use_cache=False)
    totals: set[int] = set()
    result = await run_sweep(lab, spec, progress=lambda _d, total, _m: totals.add(total))
    assert totals == {2 * QUERIES}  # a second pass over the queries, without the filter, counted in the progress
    chosen = (await judgments.load_eval_set(lab, demo)).select(None, QUERIES)
    now = datetime.now(UTC)
    checked = 0
    for setting in spec.grid():
        key, reranker, n, k = setting.key, setting.reranker, setting.candidates, setting.top_k
        rows = {r.query_id: r for r in result.rows if r.setting.key == key}
        expected = []
        for q in chosen.scorable:
            run = await retrieve(lab, q.text, demo, n, k, reranker, include_superseded=True)
            top = [r.ranked.candidate for r in run.results]
            want = sum(superseded_by(c, now) for c in top) / len(top)
            assert rows[q.id].metrics["stale@k"] == pytest.approx(want), f"{key} {q.text!r}"
            expected.append(want)
            checked += 1
        assert result.setting(key).metrics["stale@k"] == pytest.approx(sum(expected) / len(expected))
    assert checked == len(spec.grid()) * len(chosen.scorable)
    # the demo deal's superseded facts do reach the unfiltered top k: the filter is worth something here
    assert max(s.metrics["stale@k"] for s in result.grid) > 0
    # ...while the filtered sweep itself hands on none of them
    facts = await lab.backend.cypher.facts(demo)
    superseded_now = {f["uuid"] for f in facts if superseded_by(SimpleNamespace(**f), now)}
    assert superseded_now
    assert not any(set(r.ranking[: r.setting.top_k]) & superseded_now for r in result.rows)

    # with superseded facts included, the sweep's own top k is the unfiltered one: the same rate, no second pass
    unfiltered = await run_sweep(
        lab,
        SweepSpec(
            demo,
            (25,),
            (5, 10),
            ("none", "local"),
            limit_queries=QUERIES,
            include_superseded=True,
            stale_rate=True,
            use_cache=False,
        ),
    )
    for s in result.grid:
        assert unfiltered.setting(s.key).metrics["stale@k"] == pytest.approx(s.metrics["stale@k"])


async def test_a_sweep_as_of_a_date_ranks_as_retrieve_does_then(lab: Lab, demo: str) -> None:
    day = "2025-06-30"
    spec = SweepSpec(demo, (25,), (10,), ("none",), limit_queries=6, as_of=day, stale_rate=True, use_cache=False)
    totals: set[int] = set()
    result = await run_sweep(lab, spec, progress=lambda _d, total, _m: totals.add(total))
    assert result.spec.as_of == day
    when = datetime(2025, 6, 30, tzinfo=UTC)
    facts = await lab.backend.cypher.facts(demo)
    # the demo deal's supersessions all come later: nothing is superseded by then, so no second pass is run
    assert not any(superseded_by(SimpleNamespace(**f), when) for f in facts)
    assert totals == {6}
    chosen = (await judgments.load_eval_set(lab, demo)).select(None, 6)
    rows = {r.query_id: r for r in result.rows if r.setting.key == "graphiti-default none N=25 k=10"}
    for q in chosen.scorable:
        run = await retrieve(lab, q.text, demo, 25, 10, "none", as_of=when)
        assert list(rows[q.id].ranking) == [r.ranked.candidate.uuid for r in run.results]
        # stale as of that date: superseded on or before it, among the unfiltered top 10
        loose = await retrieve(lab, q.text, demo, 25, 10, "none", include_superseded=True)
        top = [r.ranked.candidate for r in loose.results]
        assert rows[q.id].metrics["stale@k"] == pytest.approx(sum(superseded_by(c, when) for c in top) / len(top))


async def test_cli_eval_prints_the_sentence_and_stores_as_of(
    lab: Lab, demo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "time-aware cli"
    args = [
        "eval",
        "--group",
        demo,
        "--candidates",
        "25",
        "--top-k",
        "5,10",
        "--reranker",
        "none,local",
        "--limit-queries",
        "10",
        "--as-of",
        "2026-01-15",
        "--stale-rate",
        "--name",
        name,
    ]
    assert await asyncio.to_thread(main, args) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    saved = next(e for e in list_experiments(lab.store, demo) if e.name == name)
    _, result = load_experiment(lab.store, saved.id)
    assert result.spec.as_of == "2026-01-15" and result.spec.stale_rate
    assert all("stale@k" in s.metrics and "tokens@k" in s.metrics for s in result.settings)
    rec = result.recommendation()
    assert rec.metric == "ndcg@k"
    assert lines[-1] == f"Recommendation: {rec.sentence}"  # the saved experiment gives the same sentence
    assert "as of 2026-01-15" in lines[0]
    assert rec.sentence.startswith(
        (
            "graphiti-default + none, N=25",
            "graphiti-default + local, N=25",
            "No setting beats the baseline (graphiti-default + none",
        )
    )

    assert await asyncio.to_thread(main, [*args[:-2], "--no-save", "--json", "--metric", "recall@k"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["as_of"] == "2026-01-15" and data["metric"] == "recall@k"
    assert data["recommendation"]["sentence"] == result.recommendation("recall@k").sentence
    assert "recall@k" in data["recommendation"]["sentence"]

    for bad in (["--as-of", "2026-02-30"], ["--metric", "ndcg@x"], ["--as-of", "2026-01-01", "--include-superseded"]):
        assert await asyncio.to_thread(main, ["eval", "--group", demo, "--no-save", *bad]) == 2
    err = capsys.readouterr().err
    assert "is not a date" in err and "Unknown metric" in err and "do not go together" in err
