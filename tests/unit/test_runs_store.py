"""Run history store and latency aggregates, on hand-made runs and timings (no graph needed)."""

from __future__ import annotations

import json
import math
import signal
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from benchmarks.synthetic_runs import fill_store, synthetic_payloads
from pipeline.errors import InvalidInput
from pipeline.history import latency
from pipeline.history import records as run_records
from pipeline.history import repo as runs_repo
from pipeline.history.compare import compare_runs
from pipeline.history.records import RunFilter, run_from_dict
from pipeline.history.repo import count_runs, list_runs, load_run, save_run, stage_rows
from pipeline.retrieval.records import Candidate, Citation, RankedCandidate, Result, RetrievalRun, Timings
from pipeline.store.db import Store

ROOT = Path(__file__).resolve().parents[2]


def make_run(
    query: str = "What was FY2025 revenue?",
    group_id: str = "deal_a",
    reranker: str = "local",
    order: tuple[int, ...] = (3, 1, 2),
    top_k: int = 2,
    created_at: str = "2026-11-02T10:00:00+00:00",
    stages: dict[str, float] | None = None,
    tokens: int = 0,
) -> RetrievalRun:
    """Three candidates f1..f3; `order` is the reranked order of their first-stage ranks."""
    candidates = tuple(
        Candidate(
            uuid=f"f{i}",
            fact=f"Fact number {i}.",
            relation="HAS",
            source_uuid="s",
            target_uuid="t",
            episodes=(f"e{i}",),
            valid_at="2025-01-01T00:00:00+00:00",
            invalid_at=None,
            expired_at=None,
            fused_score=1.0 / (i + 1),
            first_stage_rank=i,
            method_ranks={"bm25": i, "cosine": None, "bfs": 2},
        )
        for i in (1, 2, 3)
    )
    scored = reranker != "none"
    reranked = tuple(
        RankedCandidate(candidates[first - 1], rank, 0.9 / rank if scored else None, 1.0 / rank if scored else None)
        for rank, first in enumerate(order, start=1)
    )
    results = tuple(
        Result(
            r,
            (
                Citation(
                    episode_uuid=f"e{r.candidate.uuid[1:]}",
                    document_id="cim",
                    document_name="cim.pdf",
                    page=5,
                    chunk=1,
                    channel="document",
                    confidence=0.85,
                    source_description="cim.pdf p. 5",
                    author="",
                    snippet="Revenue was $5.2 million.",
                    episode_valid_at=None,
                    relevance_score=r.score,
                    retrieved_at=created_at,
                ),
            ),
        )
        for r in reranked[:top_k]
    )
    stages = stages or {
        "embed_query": 5.0,
        "bm25": 3.0,
        "cosine": 9.0,
        "bfs": 20.0,
        "fusion": 0.5,
        "hybrid_search": 25.0,
        "rerank": 40.0,
        "citations": 6.0,
        "total": 80.0,
    }
    return RetrievalRun(
        query=query,
        group_id=group_id,
        num_candidates=3,
        top_k=top_k,
        reranker=reranker,
        reranker_model="rerank-2.5" if reranker == "voyage" else "",
        include_superseded=False,
        as_of=None,
        candidates=candidates,
        reranked=reranked,
        results=results,
        timings=Timings(
            stages_ms=stages, rerank_tokens=tokens, rerank_cost_usd=tokens * 0.05e-6 or None, over_budget=()
        ),
        rerank_used=scored,
        fallback_reason=None,
        created_at=created_at,
    )


def table_counts(store: Store) -> dict[str, int]:
    return {
        t: store.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("runs", "run_stages", "run_results", "run_payloads")
    }


# --- persistence -----------------------------------------------------------------------------


def test_a_run_survives_a_restart_exactly_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite3"
    run = make_run()
    run_id = save_run(Store(path), run, "cli")

    reopened = Store(path)  # a new process would see the same file
    assert reopened.schema_version >= 4
    stored = load_run(reopened, run_id)
    assert stored.run == run  # every field, citations and scores included
    assert stored.summary.source == "cli"
    assert (stored.summary.group_id, stored.summary.reranker, stored.summary.total_ms) == ("deal_a", "local", 80.0)
    assert table_counts(reopened) == {"runs": 1, "run_stages": 9, "run_results": 2, "run_payloads": 1}
    rows = reopened.query("SELECT rank, uuid, score, first_stage_rank FROM run_results ORDER BY rank")
    assert [tuple(r) for r in rows] == [(1, "f3", 0.9, 3), (2, "f1", 0.45, 1)]
    assert [r.id for r in list_runs(reopened)] == [run_id]


def test_a_failure_inside_the_transaction_leaves_no_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    # a NaN timing fails the NOT NULL constraint after the `runs` row is already written
    broken = make_run(stages={"embed_query": 5.0, "hybrid_search": math.nan, "total": 80.0})
    with pytest.raises(sqlite3.IntegrityError):
        save_run(store, broken, "cli")
    assert table_counts(store) == {"runs": 0, "run_stages": 0, "run_results": 0, "run_payloads": 0}

    # the very last step (the JSON payload) fails: the three tables written before it roll back too
    def explode(*args: object, **kwargs: object) -> str:
        raise RuntimeError("disk full while writing the payload")

    monkeypatch.setattr(run_records.json, "dumps", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        save_run(store, make_run(), "dashboard")
    assert table_counts(store) == {"runs": 0, "run_stages": 0, "run_results": 0, "run_payloads": 0}
    monkeypatch.undo()

    # a batch is all or none as well
    with pytest.raises(sqlite3.IntegrityError):
        runs_repo.save_payloads(store, [(make_run().to_dict(), "bench"), (broken.to_dict(), "bench")])
    assert count_runs(store) == 0
    assert save_run(store, make_run(), "cli") >= 1  # and the store still works


KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pipeline.store.db import Store
    from pipeline.history.repo import save_run
    from tests.unit.test_runs_store import make_run

    store = Store(Path(sys.argv[1]))
    save_run(store, make_run(query="kept"), "cli")

    def trace(statement):
        if statement.lstrip().startswith("INSERT INTO run_results"):  # runs + run_stages written, not committed
            print("inside", flush=True)
            time.sleep(60)  # the parent kills us here

    store.connection().set_trace_callback(trace)
    save_run(store, make_run(query="killed mid-write"), "cli")
    print("committed", flush=True)
    """
)


def test_a_writer_killed_mid_write_leaves_the_run_absent(tmp_path: Path) -> None:
    path = tmp_path / "lab.sqlite3"
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "inside"  # blocks until the write is half done
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    store = Store(path)
    assert [r.query for r in list_runs(store)] == ["kept"]
    assert table_counts(store) == {"runs": 1, "run_stages": 9, "run_results": 2, "run_payloads": 1}
    assert save_run(store, make_run(query="after the crash"), "cli") == 2  # no lock or journal left behind


def test_bad_source_and_unknown_run_are_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    with pytest.raises(InvalidInput, match="source"):
        save_run(store, make_run(), "notebook")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="No stored run #42"):
        load_run(store, 42)
    assert count_runs(store) == 0


# --- filters ----------------------------------------------------------------------------------


def test_filters_by_deal_reranker_source_text_and_date(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    a = save_run(store, make_run(query="FY2025 revenue", created_at="2026-11-01T23:59:59+00:00"), "dashboard")
    b = save_run(store, make_run(query="100%_growth?", reranker="none", created_at="2026-11-02T00:00:00Z"), "cli")
    c = save_run(
        store,
        make_run(
            query="CEO", group_id="deal_b", reranker="voyage", tokens=1000, created_at="2026-11-03T12:00:00+00:00"
        ),
        "bench",
    )

    def ids(**kw: object) -> list[int]:
        return sorted(r.id for r in list_runs(store, RunFilter(**kw)))  # type: ignore[arg-type]

    assert ids() == [a, b, c]
    assert ids(group_id="deal_b") == [c]
    assert ids(rerankers=("none", "voyage")) == [b, c]
    assert ids(sources=("dashboard",)) == [a]
    assert ids(text="revenue") == [a]
    assert ids(text="%_") == [b]  # LIKE wildcards are matched literally
    assert ids(text="_") == [b]
    assert ids(since=date(2026, 11, 2)) == [b, c]
    assert ids(until=date(2026, 11, 1)) == [a]
    assert ids(since=date(2026, 11, 2), until=date(2026, 11, 2)) == [b]
    assert [r.id for r in list_runs(store)] == [c, b, a]  # newest first
    with pytest.raises(InvalidInput, match="starts"):
        list_runs(store, RunFilter(since=date(2026, 11, 3), until=date(2026, 11, 1)))
    choices = runs_repo.filter_choices(store)
    assert choices.group_ids == ("deal_a", "deal_b")
    assert choices.rerankers == ("local", "none", "voyage")
    assert (choices.first_day, choices.last_day) == (date(2026, 11, 1), date(2026, 11, 3))


# --- aggregates -------------------------------------------------------------------------------


def hand_table() -> latency.TimingTable:
    """Five runs; total = 10..50 ms, rerank only in three of them."""
    rows = [
        # id, at_epoch, N, reranker, model, total, rerank
        (1, 0.0, 10, "none", "", 10.0, None),
        (2, 60.0, 10, "local", "x", 20.0, 100.0),
        (3, 120.0, 50, "local", "x", 30.0, 200.0),
        (4, 3600.0, 50, "voyage", "rerank-2.5", 40.0, 400.0),
        (5, 3700.0, 50, "voyage", "rerank-2.5", 50.0, None),
    ]
    return latency.timing_table(rows, stages=("total", "rerank"))


def test_percentiles_match_a_hand_computation() -> None:
    table = hand_table()
    by_stage = {s.stage: s for s in latency.stage_percentiles(table, budgets={"total": 35.0, "rerank": 300.0})}
    total = by_stage["total"]
    # linear interpolation at rank q/100 * (n - 1): p50 -> 30, p95 -> 40 + 0.8 * 10, p99 -> 40 + 0.96 * 10
    assert (total.runs, total.p50, total.p95, total.p99, total.mean) == (5, 30.0, 48.0, pytest.approx(49.6), 30.0)
    assert total.over_budget == pytest.approx(2 / 5)
    rerank = by_stage["rerank"]  # NaN (no rerank) is left out: 100, 200, 400
    assert (rerank.runs, rerank.p50, rerank.p95) == (3, 200.0, pytest.approx(380.0))
    assert rerank.over_budget == pytest.approx(1 / 3)

    by_n = latency.by_candidates(table, "total")
    assert by_n.x.tolist() == [10, 50] and by_n.runs.tolist() == [2, 3]
    assert by_n.p50.tolist() == [15.0, 40.0]
    assert by_n.p95.tolist() == pytest.approx([19.5, 49.0])

    hourly = latency.over_time(table, "total", bucket_s=3600)
    assert hourly.x.tolist() == [0.0, 3600.0] and hourly.runs.tolist() == [3, 2]
    assert hourly.p50.tolist() == [20.0, 45.0]
    assert latency.bucket_seconds(3700) == 300  # 13 five-minute buckets (60 one-minute ones would be too many)

    hist = latency.histogram(table.stage("rerank"), bins=3)
    assert hist.counts.tolist() == [1, 1, 1] and hist.edges.tolist() == [100.0, 200.0, 300.0, 400.0]
    assert hist.beyond == 0
    clipped = latency.histogram(table.stage("rerank"), bins=2, upper=300.0)  # the 400 ms run is counted apart
    assert (clipped.counts.tolist(), clipped.edges.tolist(), clipped.beyond) == ([1, 1], [100.0, 200.0, 300.0], 1)

    medians = latency.median_stages_by_reranker(
        latency.timing_table(
            [
                (1, 0.0, 10, "none", "", 5.0, 20.0, None, 4.0, 30.0),
                (2, 0.0, 10, "voyage", "rerank-2.5", 5, 20, 300, 4, 330),
            ],
            stages=("embed_query", "hybrid_search", "rerank", "citations", "total"),
        )
    )
    assert medians == {
        "none": {"embed_query": 5.0, "hybrid_search": 20.0, "rerank": 0.0, "citations": 4.0, "total": 30.0},
        "voyage · rerank-2.5": {
            "embed_query": 5.0,
            "hybrid_search": 20.0,
            "rerank": 300.0,
            "citations": 4.0,
            "total": 330.0,
        },
    }


def test_percentiles_of_stored_runs_come_from_the_sql_pivot(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    for total in (10.0, 20.0, 30.0, 40.0, 50.0):
        save_run(store, make_run(stages={"embed_query": 1.0, "total": total}), "bench")
    table = latency.load_timings(store)
    assert table.stage("total").tolist() == [10.0, 20.0, 30.0, 40.0, 50.0]
    assert np.isnan(table.stage("rerank")).all()
    [embed, total] = latency.stage_percentiles(table)  # stages no run had are left out
    assert (embed.stage, total.stage, total.p95) == ("embed_query", "total", 48.0)
    with pytest.raises(InvalidInput, match="Unknown stages"):
        stage_rows(store, stages=("total", "x; DROP TABLE runs"))


def test_cost_per_query_and_per_thousand_at_the_configured_prices(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    save_run(store, make_run(reranker="voyage", tokens=1000), "cli")
    save_run(store, make_run(reranker="voyage", tokens=3000), "cli")
    save_run(store, make_run(reranker="local"), "cli")
    save_run(store, make_run(reranker="none"), "cli")
    rows = {r.reranker: r for r in latency.load_costs(store, {"rerank-2.5": 0.05})}
    voyage = rows["voyage · rerank-2.5"]
    assert (voyage.runs, voyage.tokens_per_query, voyage.price_per_mtok) == (2, 2000.0, 0.05)
    assert voyage.usd_per_query == pytest.approx(2000 * 0.05 / 1e6)
    assert voyage.usd_per_1000 == pytest.approx(0.1)
    assert (rows["local"].usd_per_1000, rows["none"].usd_per_1000) == (0.0, 0.0)
    # a price update applies at once; a model with no price says so (None), it is not shown as free
    assert latency.load_costs(store, {"rerank-2.5": 0.10})[2].usd_per_1000 == pytest.approx(0.2)
    assert [r.usd_per_query for r in latency.load_costs(store, {}) if r.reranker.startswith("voyage")] == [None]
    # beside latency: one row per reranker with its end-to-end percentiles (all runs here took 80 ms)
    table = {
        r["reranker"]: r for r in latency.reranker_rows(latency.load_timings(store), latency.load_costs(store, {}))
    }
    assert (table["local"]["p50 total"], table["local"]["p95 rerank"], table["local"]["runs"]) == (
        80.0,
        40.0,
        1,
    )
    assert table["voyage · rerank-2.5"]["tokens/query"] == 2000.0
    # the local re-scorer under two model ids is one row
    usage = [run_records.ModelUsage("local", "old-id", 2, 0, 0), run_records.ModelUsage("local", "new-id", 3, 0, 1)]
    assert [(r.reranker, r.runs, r.fallbacks) for r in latency.cost_rows(usage, {})] == [("local", 5, 1)]


# --- comparison and synthetic runs ---------------------------------------------------------------


def test_compare_two_runs() -> None:
    a = make_run(order=(3, 1, 2), top_k=2)  # top 2: f3, f1
    b = make_run(order=(1, 2, 3), top_k=2, reranker="none", created_at="2026-11-05T09:00:00+00:00")  # f1, f2
    cmp = compare_runs(a, b)
    assert (cmp.shared, cmp.only_a, cmp.only_b, cmp.jaccard) == (1, 1, 1, pytest.approx(1 / 3))
    assert [(r.uuid, r.rank_a, r.rank_b, r.change) for r in cmp.ranks] == [
        ("f3", 1, None, None),
        ("f1", 2, 1, 1),
        ("f2", None, 2, None),
    ]
    assert cmp.differing == ("reranker", "reranked")  # not the query, and not when each ran
    # the software each ran on: a run with another embedder says so; a run saved before it was recorded says "-"
    moved = replace(b, software={"embedder": "voyage:voyage-finance-2 (1024-d)", "graphiti_core": "0.31.1"})
    assert compare_runs(a, moved).differing == ("reranker", "reranked", "embedder", "graphiti-core")
    assert dict((n, (x, y)) for n, x, y in compare_runs(a, moved).parameters)["embedder"] == (
        "-",
        "voyage:voyage-finance-2 (1024-d)",
    )
    assert dict((s, (x, y)) for s, x, y in cmp.stages_ms)["total"] == (80.0, 80.0)


def test_synthetic_runs_have_the_real_shape_and_fill_a_store(tmp_path: Path) -> None:
    payloads = list(synthetic_payloads(40, seed=1))
    for payload, source in payloads:
        run = run_from_dict(json.loads(json.dumps(payload)))  # the to_dict() shape, exactly
        assert len(run.candidates) == run.num_candidates and len(run.results) == run.top_k
        assert source in run_records.SOURCES
        assert run.timings.stages_ms["total"] >= run.timings.stages_ms["hybrid_search"]
    store = Store(tmp_path / "lab.sqlite3")
    result = fill_store(store, 40, seed=1, batch=15)
    assert result.runs == count_runs(store) == 40
    assert len(latency.load_timings(store)) == 40


def test_the_page_figures_build_from_synthetic_runs_with_timeouts(tmp_path: Path) -> None:
    from dashboard.latency import charts as latency_charts

    store = Store(tmp_path / "lab.sqlite3")
    fill_store(store, 300, seed=3)
    table = latency.load_timings(store)
    timeouts = int((np.nan_to_num(table.stage("rerank")) >= 10_000).sum())
    assert timeouts >= 1  # Voyage fallbacks after a 10 s timeout
    # the slow runs are counted apart instead of squashing the other bars
    notes = [a.text for a in latency_charts.histograms(table).layout.annotations]
    assert f"+{timeouts} slower than" in " ".join(notes)
    budget_lines = [s for s in latency_charts.latency_by_candidates(table).layout.shapes if s.line.dash == "dash"]
    assert sorted(s.y0 for s in budget_lines) == [300.0, 500.0, 3000.0]
    lines = [t for t in latency_charts.latency_over_time(table).data if t.name != latency_charts.OVER_NAME]
    assert len(lines) == 6  # p50 and p95 in three panels (beside the over-budget markers)
    stacked = latency_charts.stacked_stages(latency.median_stages_by_reranker(table))
    assert [t.name for t in stacked.data][:4] == list(latency.SEQUENTIAL_STAGES)
