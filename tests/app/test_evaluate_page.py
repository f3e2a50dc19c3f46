"""Evaluate & tune through AppTest: query sets, a small sweep run from the page, results, save, compare."""

from __future__ import annotations

from datetime import date
from urllib.parse import parse_qs, urlparse

import pandas as pd
from streamlit.testing.v1 import AppTest

from pipeline.evaluation.experiments import list_experiments, load_experiment
from pipeline.lab import Lab
from tests.app.conftest import no_errors, open_page


def frame(app: AppTest, column: str) -> pd.DataFrame:
    """The first table with this column (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in app.dataframe if column in d.value.columns)


def test_page_shows_the_query_set_and_the_sweep_controls(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    assert app.title[0].value == "Evaluate & tune"
    sets = frame(app, "query types")
    assert sets.iloc[0]["queries"] == 54 and sets.iloc[0]["scorable"] == 54
    assert "factual 20" in sets.iloc[0]["query types"]
    assert app.multiselect(key="evaluate.candidates").value == [10, 25, 50, 100]
    assert app.multiselect(key="evaluate.top_k").value == [3, 5, 10]
    assert app.multiselect(key="evaluate.rerankers").value == ["none", "local"]
    cancel = app.button(key="evaluate.cancel")
    assert cancel.label == "Cancel" and cancel.disabled  # nothing running yet
    assert not app.button(key="evaluate.run").disabled


def test_run_a_small_sweep_see_results_and_save_it(app: AppTest, lab: Lab) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.multiselect(key="evaluate.candidates").set_value([10, 25])
    app.multiselect(key="evaluate.top_k").set_value([5, 10])
    app.number_input(key="evaluate.limit").set_value(4)
    app.run()
    app.button(key="evaluate.run").click()
    app.run()
    no_errors(app)
    table = frame(app, "recommended")
    # 2 rerankers x 2 N x 2 k, plus the baseline (none, N=50, k=10) computed beside the grid
    assert len(table) == 9
    assert set(table["setting"]) >= {"none N=10 k=5", "local N=25 k=10", "none N=50 k=10"}
    assert table["recommended"].sum() == 1
    # the recommendation is said in words (a success when a setting beats the baseline, else a note)
    assert any("Recommended:" in s.value for s in [*app.success, *app.info])
    assert "4 queries" in " ".join(c.value for c in app.caption)
    # once the sweep is over the page is drawn again: Run live, Cancel off
    assert app.button(key="evaluate.cancel").disabled and not app.button(key="evaluate.run").disabled
    # per-setting inspection and exports are on the page
    # the recommended setting is inspected, or, when nothing beat the baseline, the best of the others (named in words)
    recommended = table.loc[table["recommended"], "setting"].iloc[0]
    inspected = app.selectbox(key="evaluate.inspect").value
    assert inspected == recommended or (recommended == "none N=50 k=10" and inspected in set(table["setting"]))
    assert len(frame(app, "type")) >= 1

    app.text_input(key="evaluate.name").input("apptest small sweep")
    app.button(key="FormSubmitter:evaluate.save_form-Save as experiment").click()
    app.run()
    no_errors(app)
    saved = [e for e in list_experiments(lab.store, "demo") if e.name == "apptest small sweep"]
    assert len(saved) == 1 and saved[0].queries == 4
    _, result = load_experiment(lab.store, saved[0].id)
    assert len(result.settings) == 9

    # open the saved experiment: the same table comes back from the store
    app.run()  # the list of experiments is drawn before the save button: the next run lists it
    app.selectbox(key="evaluate.open").set_value(saved[0].id)
    app.run()
    no_errors(app)
    again = frame(app, "recommended")
    assert list(again["setting"]) == list(table["setting"])
    assert list(again["ndcg@10"]) == list(table["ndcg@10"])


def test_the_sentence_leads_the_results_and_each_win_or_loss_links_to_compare(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.multiselect(key="evaluate.candidates").set_value([25, 50])
    app.multiselect(key="evaluate.top_k").set_value([5, 10])
    app.number_input(key="evaluate.limit").set_value(20)
    app.checkbox(key="evaluate.stale_rate").check()
    app.run()
    app.button(key="evaluate.run").click()
    app.run()
    no_errors(app)
    assert app.selectbox(key="evaluate.metric").value == "ndcg@k"  # the default metric: what the setting hands on
    # the recommendation in words is the first alert of the results, before the table
    sentence = next(a.value for a in [*app.success, *app.info] if "Recommended:" in a.value)
    sentence = sentence.replace("\u200b", "").replace("\\", "")  # md() keeps "@" from becoming a mail link
    assert ("beats the baseline by" in sentence and "nDCG@k, p" in sentence and "ms p50" in sentence) or (
        "No setting beats the baseline (none, N=50, k=10)" in sentence
    )
    table = frame(app, "recommended")
    assert bool(table["recommended"].iloc[0])  # the recommended row on top
    assert list(table.columns[:3]) == ["setting", "recommended", "ndcg@k"]
    assert (table["tokens@k"] > 0).all() and table["stale@k"].between(0, 1).all()
    # k matters: the heatmap's k columns differ for the same reranker and N
    row = table.set_index("setting")
    assert row.loc["local N=50 k=5", "ndcg@k"] != row.loc["local N=50 k=10", "ndcg@k"]
    assert any("Stale-fact rate" in c.value for c in app.caption)

    # a per-query win or loss links to Compare with that query and both settings
    app.selectbox(key="evaluate.inspect").set_value("local N=25 k=5")
    app.run()
    no_errors(app)
    changes = frame(app, "compare")
    assert len(changes) >= 1
    first = changes.iloc[0]
    url = urlparse(first["compare"])
    assert url.path == "compare"
    params = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert params["compare.q"] == first["query"] and params["sidebar.deal"] == "demo"
    assert (params["compare.a.reranker"], params["compare.a.n"], params["compare.a.k"]) == ("none", "50", "10")
    assert (params["compare.b.reranker"], params["compare.b.n"], params["compare.b.k"]) == ("local", "25", "5")

    # the p-values follow the metric picked
    before = frame(app, "recommended").set_index("setting")["p_value"]
    app.selectbox(key="evaluate.metric").set_value("recall@10")
    app.run()
    no_errors(app)
    after = frame(app, "recommended")
    assert list(after.columns[:3]) == ["setting", "recommended", "recall@10"]
    assert not after.set_index("setting")["p_value"].equals(before)


def test_as_of_and_superseded_options_are_on_the_page_and_refused_together(app: AppTest) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.date_input(key="evaluate.as_of").set_value(date(2025, 6, 30))
    app.checkbox(key="evaluate.include_superseded").check()
    app.run()
    app.button(key="evaluate.run").click()
    app.run()
    assert any("do not go together" in e.value for e in app.error)
    assert not app.button(key="evaluate.run").disabled  # nothing started
