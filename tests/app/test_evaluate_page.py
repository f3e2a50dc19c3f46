"""Evaluate & tune through AppTest: query sets, a small sweep run from the page, results, save, compare."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from dataclasses import asdict
from datetime import date
from urllib.parse import parse_qs, urlparse

import pandas as pd
import pytest
from graphiti_core.search.search_config import EdgeSearchConfig, EdgeSearchMethod, SearchConfig
from streamlit.testing.v1 import AppTest

from pipeline.evaluation.experiments import list_experiments, load_experiment
from pipeline.evaluation.export import to_csv
from pipeline.evaluation.jobs.repo import claim_job, end_job, get_job, insert_job, list_jobs, record_progress
from pipeline.evaluation.records import SweepSpec
from pipeline.lab import Lab
from pipeline.processes import this_process
from pipeline.retrieval.recipes import custom
from tests.app.conftest import finish_sweep, no_errors, open_page, show_picker, sweep_from_page
from tests.support.tables import assert_tidy


def frame(app: AppTest, column: str) -> pd.DataFrame:
    """The first table with this column (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in app.dataframe if column in d.value.columns)


def captions(app: AppTest) -> str:
    return " ".join(c.value for c in app.caption).replace("\\", "")


def cancel_buttons(app: AppTest) -> list[str]:
    """The keys of every button that cancels something."""
    return [b.key for b in app.button if b.label.startswith("Cancel")]


def test_page_shows_the_query_set_and_the_sweep_controls(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    assert app.title[0].value == "Evaluate & tune"
    sets = frame(app, "Query types")
    assert sets.iloc[0]["Queries"] == 54 and sets.iloc[0]["Scorable"] == 54
    assert "factual 20" in sets.iloc[0]["Query types"]
    assert app.multiselect(key="evaluate.candidates").value == [10, 25, 50, 100]
    assert app.multiselect(key="evaluate.top_k").value == [3, 5, 10]
    assert app.multiselect(key="evaluate.rerankers").value == ["none", "local"]
    assert not cancel_buttons(app)  # nothing running yet: nothing to cancel
    assert not app.button(key="evaluate.run").disabled
    # a sweep starts small: a seeded sample (the demo's 54 queries are fewer than 150: all), said before it starts
    assert app.number_input(key="evaluate.sample").value == 150 and app.number_input(key="evaluate.seed").value == 0
    assert "Run sweep: ~54 queries x 24 settings" in captions(app)
    app.number_input(key="evaluate.sample").set_value(10).run()
    assert "Run sweep: ~10 queries (a sample of 54) x 24 settings" in captions(app)


def test_run_a_small_sweep_it_is_saved_and_shown_from_the_url(app: AppTest, lab: Lab) -> None:
    """A sweep is a job: it runs in the background, is saved as an experiment when it ends (no click), and the
    page shows that experiment, named in the URL, so a reload shows the same numbers."""
    open_page(app, "app_pages/evaluate.py")
    app.multiselect(key="evaluate.candidates").set_value([10, 25])
    app.multiselect(key="evaluate.top_k").set_value([5, 10])
    app.number_input(key="evaluate.sample").set_value(4)
    app.number_input(key="evaluate.seed").set_value(5)
    app.run()
    before = {e.id for e in list_experiments(lab.store, "demo")}
    app.button(key="evaluate.run").click()
    app.run()
    no_errors(app)
    job = finish_sweep(app, "demo")
    job_id = job.id
    assert job.state == "done" and job.experiment_id is not None and job.experiment_id not in before
    no_errors(app)
    assert app.query_params["evaluate.experiment"] in (str(job.experiment_id), [str(job.experiment_id)])
    assert show_picker(app).value == job.experiment_id
    table = frame(app, "Recommended")
    # 2 rerankers x 2 N x 2 k, plus the baseline (none, N=50, k=10) computed beside the grid
    assert len(table) == 9
    assert set(table["Setting"]) >= {
        "graphiti-default none N=10 k=5",
        "graphiti-default local N=25 k=10",
        "graphiti-default none N=50 k=10",
    }
    assert table["Recommended"].sum() == 1
    # the most useful columns first; none that says nothing here (the Table CSV keeps them all)
    assert list(table.columns[:4]) == ["Setting", "Recommended", "ndcg@k", "p ndcg@k (randomization)"]
    assert not {"In grid", "Cost ($)", "Fallbacks", "Recipe", "Reranker", "N", "K"} & set(table.columns)
    assert len(table.columns) <= 16, list(table.columns)
    assert "no admin change" not in captions(app)
    # the recommendation is said in words (a success when a setting beats the baseline, else a note)
    assert any("Recommended:" in s.value for s in [*app.success, *app.info])
    shown_captions = " ".join(c.value for c in app.caption)
    assert "4 queries" in shown_captions and "Ran on " in shown_captions and "judgments" in shown_captions
    # once the sweep is over: Run live, Cancel off; the job is listed as done with its experiment
    assert not cancel_buttons(app) and not app.button(key="evaluate.run").disabled
    jobs = frame(app, "Experiment")
    assert jobs.iloc[0]["Job"] == job_id and jobs.iloc[0]["State"] == "done"
    assert jobs.iloc[0]["Experiment"] == f"#{job.experiment_id}"
    # per-setting inspection and exports are on the page
    # the recommended setting is inspected, or, when nothing beat the baseline, the best of the others (named in words)
    recommended = table.loc[table["Recommended"], "Setting"].iloc[0]
    inspected = app.selectbox(key="evaluate.inspect").value
    assert inspected == recommended or (
        recommended == "graphiti-default none N=50 k=10" and inspected in set(table["Setting"])
    )
    assert len(frame(app, "Type")) >= 1
    # coverage beside every metric: the share of each top k judged; the condensed metrics on a switch
    _, result = load_experiment(lab.store, job.experiment_id)
    judged = {s.key: s.judged for s in result.settings}
    assert all(v is not None and 0 <= v <= 1 for v in judged.values())
    assert dict(zip(table["Setting"], table["judged@k"], strict=True)) == pytest.approx(judged, abs=1e-4)
    assert "ndcg@k'" not in table.columns
    app.toggle(key="evaluate.condensed").set_value(True).run()
    no_errors(app)
    condensed = frame(app, "Recommended")
    assert "ndcg@k'" in condensed.columns and "ndcg@k" not in condensed.columns
    rule = next(c.value for c in app.caption if c.value.startswith("Rule:")).replace("\u200b", "").replace("\\", "")
    assert "nDCG@k'" in rule  # the recommendation and the p-values are on the condensed metric
    app.toggle(key="evaluate.condensed").set_value(False).run()
    for shown_table in (table, jobs, frame(app, "Type")):
        assert_tidy(shown_table)
    assert str(jobs["Started (UTC)"].dt.tz) == "UTC" and jobs["Ended (UTC)"].notna().all()

    saved = [e for e in list_experiments(lab.store, "demo") if e.id == job.experiment_id]
    assert len(saved) == 1 and saved[0].queries == 4 and saved[0].name.startswith("sweep 20")
    _, result = load_experiment(lab.store, saved[0].id)
    assert len(result.settings) == 9
    # the seeded sample is recorded with the experiment (the same spec picks the same queries: test_sweep_start_small)
    assert (result.spec.sample, result.spec.seed) == (4, 5) and len(result.queries) == 4
    header = to_csv(result).splitlines()[0].split(",")
    assert {"in_grid", "cost_usd", "fallbacks", "recipe", "N", "k"} <= set(header)

    # a reload: a new session on the same URL shows the same table
    again = AppTest.from_file(app._script_path, default_timeout=60)
    again.query_params["evaluate.experiment"] = str(job.experiment_id)
    open_page(again, "app_pages/evaluate.py")
    again.query_params["evaluate.experiment"] = str(job.experiment_id)
    again.run()
    no_errors(again)
    shown = frame(again, "Recommended")
    assert list(shown["Setting"]) == list(table["Setting"])
    assert list(shown["ndcg@10"]) == list(table["ndcg@10"])

    # the user may rename it
    again.text_input(key=f"evaluate.name_{job.experiment_id}").input("apptest small sweep")
    again.button(key="FormSubmitter:evaluate.rename_form-Rename").click()
    again.run()
    no_errors(again)
    assert load_experiment(lab.store, job.experiment_id)[0].name == "apptest small sweep"


def test_every_session_sees_a_running_job_and_may_cancel_it(app: AppTest, lab: Lab) -> None:
    """A job started elsewhere (another session, the CLI) is listed with its progress and ETA, read from SQLite;
    this session's Cancel asks it to stop."""
    spec = SweepSpec("demo", candidates=(10,), top_ks=(3,), rerankers=("none",))
    job_id = insert_job(lab.store, "demo", json.dumps(asdict(spec)), "someone else", this_process())
    try:
        assert claim_job(lab.store, job_id, this_process())
        record_progress(lab.store, job_id, 5, 20, 10.0)  # 2 s a query: 15 queries left, about 30 s
        open_page(app, "app_pages/evaluate.py")
        bars = [b for b in app.get("progress") if f"Job #{job_id}" in b.proto.text]
        assert len(bars) == 1
        assert "5 of 20 queries" in bars[0].proto.text and "ETA " in bars[0].proto.text
        assert "ETA -" not in bars[0].proto.text
        assert any("started by someone else" in c.value for c in app.caption)
        assert app.button(key="evaluate.run").disabled  # one job a deal at a time
        assert cancel_buttons(app) == [f"evaluate.cancel_job_{job_id}"]  # one Cancel, beside the job's progress
        app.button(key=f"evaluate.cancel_job_{job_id}").click()
        app.run()
        no_errors(app)
        job = get_job(lab.store, job_id)
        assert job is not None and job.state == "cancelling" and job.cancel_at_done == 5
        assert app.button(key=f"evaluate.cancel_job_{job_id}").disabled
    finally:
        end_job(lab.store, job_id, "cancelled", "test over")


def test_a_job_whose_process_is_gone_is_shown_interrupted_and_never_blocks_the_deal(app: AppTest, lab: Lab) -> None:
    """A row still says running, but the process named in it is gone (a killed `pipeline eval`): the page's job
    list marks it interrupted, saying which process, and Run sweep is live."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(gone.stdout)  # exited and reaped: no such process any more
    owner = f"{socket.gethostname()}:{pid}:12345"
    spec = SweepSpec("demo", candidates=(10,), top_ks=(3,), rerankers=("none",))
    job_id = insert_job(lab.store, "demo", json.dumps(asdict(spec)), "cli", owner)
    assert claim_job(lab.store, job_id, owner)
    record_progress(lab.store, job_id, 20, 20, 10.0)
    open_page(app, "app_pages/evaluate.py")
    assert not [b for b in app.get("progress") if f"Job #{job_id}" in b.proto.text]
    assert not app.button(key="evaluate.run").disabled and not cancel_buttons(app)
    jobs = frame(app, "Experiment").set_index("Job")
    assert jobs.loc[job_id, "State"] == "interrupted"
    assert f"The process running it (pid {pid} on {socket.gethostname()}) is gone" in jobs.loc[job_id, "Note"]
    assert get_job(lab.store, job_id).state == "interrupted"  # type: ignore[union-attr]


def test_a_grid_over_the_cap_is_one_line_on_the_page(app: AppTest, lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page and the CLI share one cap (SweepSpec.validate); the page's own options stay under the real one, so
    the test lowers it."""
    monkeypatch.setattr("pipeline.evaluation.records.MAX_GRID_SETTINGS", 10)
    open_page(app, "app_pages/evaluate.py")
    jobs = len(list_jobs(lab.store, "demo", 1000))
    app.button(key="evaluate.run").click()
    app.run()
    errors = [e.value for e in app.error]
    assert len(errors) == 1 and "A sweep grid may hold at most 10 settings; this one has 24" in errors[0], errors
    assert len(list_jobs(lab.store, "demo", 1000)) == jobs  # nothing written


def test_the_sentence_leads_the_results_and_each_win_or_loss_links_to_compare(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.multiselect(key="evaluate.candidates").set_value([25, 50])
    app.multiselect(key="evaluate.top_k").set_value([5, 10])
    app.number_input(key="evaluate.sample").set_value(20)
    app.checkbox(key="evaluate.stale_rate").check()
    app.run()
    app.button(key="evaluate.run").click()
    app.run()
    no_errors(app)
    finish_sweep(app, "demo")
    no_errors(app)
    assert app.selectbox(key="evaluate.metric").value == "ndcg@k"  # the default metric: what the setting hands on
    # the recommendation in words is the first alert of the results, before the table
    sentence = next(a.value for a in [*app.success, *app.info] if "Recommended:" in a.value)
    sentence = sentence.replace("\u200b", "").replace("\\", "")  # md() keeps "@" from becoming a mail link
    assert ("beats the baseline by" in sentence and "nDCG@k, p" in sentence and "ms p50" in sentence) or (
        "No setting beats the baseline (graphiti-default + none, N=50, k=10)" in sentence
    )
    table = frame(app, "Recommended")
    assert bool(table["Recommended"].iloc[0])  # the recommended row on top
    assert list(table.columns[:3]) == ["Setting", "Recommended", "ndcg@k"]
    assert (table["tokens@k"] > 0).all() and table["stale@k"].between(0, 1).all()
    # k matters: the heatmap's k columns differ for the same reranker and N
    row = table.set_index("Setting")
    assert row.loc["graphiti-default local N=50 k=5", "ndcg@k"] != row.loc["graphiti-default local N=50 k=10", "ndcg@k"]
    assert any("Stale-fact rate" in c.value for c in app.caption)

    # a per-query win or loss links to Compare with that query and both settings
    app.selectbox(key="evaluate.inspect").set_value("graphiti-default local N=25 k=5")
    app.selectbox(key="evaluate.against").set_value("graphiti-default none N=50 k=10")  # the baseline as side A
    app.run()
    no_errors(app)
    changes = frame(app, "Compare")
    assert len(changes) >= 1
    first = changes.iloc[0]
    url = urlparse(first["Compare"])
    assert url.path == "compare"
    params = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert params["compare.q"] == first["Query"] and params["sidebar.deal"] == "demo"
    assert (params["compare.a.reranker"], params["compare.a.n"], params["compare.a.k"]) == ("none", "50", "10")
    assert (params["compare.b.reranker"], params["compare.b.n"], params["compare.b.k"]) == ("local", "25", "5")

    # the p-values follow the metric picked
    before = frame(app, "Recommended").set_index("Setting")["p ndcg@k (randomization)"]
    app.selectbox(key="evaluate.metric").set_value("recall@10")
    app.run()
    no_errors(app)
    after = frame(app, "Recommended")
    assert list(after.columns[:3]) == ["Setting", "Recommended", "recall@10"]
    assert not after.set_index("Setting")["p recall@10 (randomization)"].equals(before)


def test_as_of_and_superseded_options_are_on_the_page_and_refused_together(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.date_input(key="evaluate.as_of").set_value(date(2025, 6, 30))
    app.checkbox(key="evaluate.include_superseded").check()
    app.run()
    app.button(key="evaluate.run").click()
    app.run()
    assert any("do not go together" in e.value for e in app.error)
    assert not app.button(key="evaluate.run").disabled  # nothing started


def test_a_sweep_of_two_recipes_from_the_page_shows_both_and_their_heatmaps(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    assert app.multiselect(key="evaluate.recipes").value == ["graphiti-default"]  # what Graphiti.search() runs
    app.multiselect(key="evaluate.recipes").set_value(["vector", "graphiti-default"])
    app.multiselect(key="evaluate.candidates").set_value([25])
    app.multiselect(key="evaluate.top_k").set_value([10])
    app.number_input(key="evaluate.sample").set_value(20)
    app.run()
    _job, result = sweep_from_page(app, "demo")
    assert result.spec.recipes == ("vector", "graphiti-default")
    table = frame(app, "Recommended")
    wanted = {f"{r} {k} N=25 k=10" for r in ("vector", "graphiti-default") for k in ("none", "local")}
    assert wanted | {"graphiti-default none N=50 k=10"} == set(table["Setting"])  # the grid and the baseline
    titles = [
        a["text"] for c in app.get("plotly_chart") for a in json.loads(c.proto.spec)["layout"].get("annotations", [])
    ]
    assert {"vector + none", "graphiti-default + local"} <= set(titles)  # one heatmap per recipe and reranker
    # the inspected setting can be taken away as code to ship (pipeline/evaluation/ship.py)
    assert "Setting as code" in [b.proto.label for b in app.get("download_button")]
    # and is on the page as code (st.code: Streamlit's copy button), the same module
    (code,) = [c for c in app.code if "async def retrieve(" in c.value]
    assert code.language == "python" and code.value.startswith('"""Retrieval setting chosen with Retrieval Lab: ')
    # a per-query win or loss opens Compare with each side's own recipe
    app.selectbox(key="evaluate.inspect").set_value("vector none N=25 k=10")
    app.selectbox(key="evaluate.against").set_value(result.baseline)
    app.run()
    no_errors(app)
    changes = frame(app, "Compare")
    assert len(changes) >= 1
    params = {k: v[0] for k, v in parse_qs(urlparse(changes.iloc[0]["Compare"]).query).items()}
    assert params["compare.b.recipe"] == "vector" and "compare.a.recipe" not in params  # the baseline: the default


def test_a_pasted_search_config_is_swept_beside_the_presets(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.text_area(key="evaluate.custom_recipe").input('{"edge_config": {"search_methods": ["sql"]}}')
    app.run()
    assert [e.value for e in app.error if "not a graphiti SearchConfig" in e.value]
    assert app.button(key="evaluate.run").disabled  # nothing runs until the paste is fixed

    production = SearchConfig(
        edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.bfs], bfs_max_depth=2)
    )
    mine = custom(production)
    app.text_area(key="evaluate.custom_recipe").input(production.model_dump_json())
    app.multiselect(key="evaluate.candidates").set_value([25])
    app.multiselect(key="evaluate.top_k").set_value([10])
    app.multiselect(key="evaluate.rerankers").set_value(["none"])
    app.number_input(key="evaluate.sample").set_value(3)
    app.run()
    no_errors(app)
    assert any(f"Swept as {mine.key}" in c.value.replace("\\", "") for c in app.caption)
    _job, result = sweep_from_page(app, "demo")
    assert result.spec.recipes == ("graphiti-default", mine.key)
    assert result.spec.custom_recipes == ((mine.key, mine.config_json),)  # the experiment keeps the config it ran
    assert f"{mine.key} none N=25 k=10" in set(frame(app, "Recommended")["Setting"])
