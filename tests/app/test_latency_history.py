"""Latency & cost and History pages through AppTest, on runs recorded from real retrievals."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common.run_filters import ALL_DEALS
from dashboard.latency.view import latency_data
from pipeline.history.compare import compare_runs
from pipeline.history.records import RunFilter
from pipeline.history.repo import count_runs, list_runs, load_run, save_run
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.app.conftest import no_errors, open_page
from tests.support.shown import shown
from tests.support.tables import assert_page_tidy, assert_tidy

QUERY = "What is Halcyon's annual recurring revenue? (history page test)"


@pytest.fixture(scope="module")
async def recorded(lab: Lab, demo: str) -> list[int]:
    """Three runs on the demo deal, with different N and rerankers."""
    ids = []
    for n, k, reranker in ((25, 5, "local"), (10, 5, "none"), (50, 10, "local")):
        run = await retrieve(lab, f"{QUERY} N={n}", demo, n, k, reranker)
        ids.append(save_run(lab.store, run, "cli"))
    return ids


def metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def test_latency_page_shows_percentiles_costs_and_charts(app: AppTest, lab: Lab, recorded: list[int]) -> None:
    open_page(app, "app_pages/latency.py")
    assert app.title[0].value == "Latency & cost"
    assert app.selectbox(key="latency.deal").value == "demo"  # the sidebar's deal
    demo_runs = count_runs(lab.store, RunFilter(group_id="demo"))
    assert metric(app, "Runs") == f"{demo_runs:,}"
    assert len(app.get("plotly_chart")) == 4
    percentiles = app.dataframe[0].value
    assert {"embed_query", "hybrid_search", "rerank", "citations", "total"} <= set(percentiles["Stage"])
    total = percentiles.set_index("Stage").loc["total"]
    shown = latency_data(lab.store, lab.settings, RunFilter(group_id="demo"))  # cold runs left out of the figures
    assert total["Runs"] == len(shown.table) == demo_runs - (0 if shown.cold_shown else shown.cold)
    assert 0 < total["p50 (ms)"] <= total["p95 (ms)"] <= total["p99 (ms)"]
    assert total["Budget (ms)"] == 3000 and 0 <= total["Runs over budget"] <= 1
    over = [p for p in ("p50", "p95", "p99", "mean") if total[f"{p.capitalize() if p == 'mean' else p} (ms)"] > 3000]
    assert total["Over budget"] == ("✓ " + ", ".join(over) if over else "—")
    assert pd.isna(percentiles.set_index("Stage").loc["bm25", "Budget (ms)"])  # no budget: drawn as "—"
    assert_page_tidy(app)
    costs = app.dataframe[1].value
    assert set(costs["Over budget"]) <= {"—"} | {v for v in costs["Over budget"] if v.startswith("✓ ")}
    costs = app.dataframe[1].value.set_index("Reranker")
    assert costs.loc["local", "$ / 1k queries"] == 0.0 and costs.loc["none", "$ / 1k queries"] == 0.0

    app.multiselect(key="latency.rerankers").set_value(["none"]).run()
    no_errors(app)
    only_none = count_runs(lab.store, RunFilter(group_id="demo", rerankers=("none",)))
    assert metric(app, "Runs") == f"{only_none:,}"
    assert list(app.dataframe[1].value["Reranker"]) == ["none"]
    assert "rerank" not in set(app.dataframe[0].value["Stage"])  # no run in the selection reranked


def test_history_lists_opens_and_compares_runs(app: AppTest, lab: Lab, recorded: list[int]) -> None:
    open_page(app, "app_pages/history.py")
    assert app.title[0].value == "History"
    table = app.dataframe[0].value
    assert set(recorded) <= set(table["Run"])
    assert_tidy(table)
    assert str(table["When (UTC)"].dtype).startswith("datetime64") and str(table["When (UTC)"].dt.tz) == "UTC"
    # newest first (a run recorded with an earlier time, as another test of the session may, sorts by its time)
    newest_first = table.sort_values(["When (UTC)", "Run"], ascending=False, kind="stable")
    assert list(table["Run"]) == list(newest_first["Run"])
    assert table["Run"].iloc[0] == max(recorded)  # the runs just recorded are the newest

    first, second = recorded[0], recorded[2]
    app.selectbox(key="history.open").set_value(first).run()
    no_errors(app)
    stored = load_run(lab.store, first)
    assert shown(app.subheader[0].value) == f"Run #{first}: {stored.run.query}"
    assert metric(app, "N / k") == "25 / 5"
    ranks = [m.value for m in app.markdown if m.value.startswith("**#")]
    assert ranks == [f"**#{i}**" for i in range(1, 6)]
    facts = {shown(m.value) for m in app.markdown}
    assert all(r.ranked.candidate.fact in facts for r in stored.run.results)  # shown again, not re-run
    citations = " ".join(shown(c.value) for c in app.caption)
    assert stored.run.results[0].citations[0].document_name in citations

    app.selectbox(key="history.compare").set_value(second).run()
    no_errors(app)
    assert app.subheader[0].value == f"Run #{first} (A) against run #{second} (B)"
    expected = compare_runs(stored.run, load_run(lab.store, second).run)
    assert metric(app, "Shared results") == f"{expected.shared} / 10"
    params = app.dataframe[1].value.set_index("Parameter")
    assert params.loc["N (candidates)", "Run A"] == "25" and params.loc["N (candidates)", "Run B"] == "50"
    assert bool(params.loc["N (candidates)", "Differs"]) and not bool(params.loc["deal", "Differs"])
    assert "None" not in set(params["Run A"]) | set(params["Run B"])  # as of: now, not "None"
    rank_table = app.dataframe[2].value
    assert len(rank_table) == len(expected.ranks)
    assert list(rank_table["Rank in A"].dropna().astype(int)) == [1, 2, 3, 4, 5]  # A's top 5 first, in order
    assert_page_tidy(app)  # the list, the parameters, the ranks and the timings

    app.text_input(key="history.text").input("no run has this text").run()
    no_errors(app)
    assert any("No run matches" in i.value for i in app.info)


def test_a_compare_page_query_is_recorded_and_shows_in_history(app: AppTest, lab: Lab) -> None:
    query = "Who are Halcyon's largest customers? (recorded from the dashboard)"
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(query).run()
    no_errors(app)
    overlap = metric(app, "Overlap of the two top-k")
    recorded = list_runs(lab.store, RunFilter(text=query, sources=("dashboard",)))
    assert sorted(r.reranker for r in recorded) == ["local", "none"]
    app.slider(key="compare.a.k").set_value(3)
    app.slider(key="compare.b.k").set_value(3).run()  # a new cut of the same runs: nothing more recorded
    assert len(list_runs(lab.store, RunFilter(text=query, sources=("dashboard",)))) == 2
    app.slider(key="compare.a.n").set_value(20)
    app.slider(key="compare.b.n").set_value(20).run()  # new pools: two more runs; a rerun alone adds none
    app.run()
    assert len(list_runs(lab.store, RunFilter(text=query, sources=("dashboard",)))) == 4

    app.switch_page("app_pages/history.py")
    app.run()
    app.text_input(key="history.text").input(query).run()
    assert len(app.dataframe[0].value) == 4
    by_reranker = {r.reranker: r for r in recorded}
    baseline, reranked = by_reranker["none"], by_reranker["local"]
    app.selectbox(key="history.open").set_value(baseline.id).run()
    app.selectbox(key="history.compare").set_value(reranked.id).run()
    no_errors(app)
    assert metric(app, "Shared results") == overlap  # the same overlap the Compare page showed


async def test_latency_reruns_reuse_the_figures_until_a_run_is_recorded(
    app: AppTest, lab: Lab, recorded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard.latency import view

    built: list[int] = []
    compute = view.latency_data
    monkeypatch.setattr(view, "latency_data", lambda *args: built.append(1) or compute(*args))
    view._latency_data.clear()
    open_page(app, "app_pages/latency.py")
    app.run()
    app.run()
    no_errors(app)
    assert len(built) == 1
    before = metric(app, "Runs")
    run = await retrieve(lab, f"{QUERY} once more", "demo", 10, 5, "none")
    save_run(lab.store, run, "cli")
    app.run()
    no_errors(app)
    assert len(built) == 2 and int(metric(app, "Runs").replace(",", "")) == int(before.replace(",", "")) + 1


async def test_the_deal_filter_follows_the_sidebar_until_picked_on_the_page(
    app: AppTest, lab: Lab, recorded: list[int]
) -> None:
    other = "history-follows"
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=other, force=True)
    save_run(lab.store, await retrieve(lab, f"{QUERY} other deal", other, 10, 5, "none"), "cli")
    open_page(app, "app_pages/history.py")
    assert app.selectbox(key="history.deal").value == "demo"
    app.selectbox(key="sidebar.deal").set_value(other).run()
    assert app.selectbox(key="history.deal").value == other  # the sidebar moved: the filter follows
    app.selectbox(key="history.deal").set_value(ALL_DEALS).run()
    app.text_input(key="history.text").input("history page").run()
    assert app.selectbox(key="history.deal").value == ALL_DEALS  # picked here: it stays
    no_errors(app)
