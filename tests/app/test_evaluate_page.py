"""Evaluate & tune through AppTest: query sets, a small sweep run from the page, results, save, compare."""

from __future__ import annotations

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
    assert any("Recommended:" in s.value for s in app.success)
    assert "4 queries" in " ".join(c.value for c in app.caption)
    # once the sweep is over the page is drawn again: Run live, Cancel off
    assert app.button(key="evaluate.cancel").disabled and not app.button(key="evaluate.run").disabled
    # per-setting inspection and exports are on the page
    assert app.selectbox(key="evaluate.inspect").value == table.loc[table["recommended"], "setting"].iloc[0]
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
