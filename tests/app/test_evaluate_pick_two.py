"""Issue 38, item 7: from Evaluate, any two rows of the results table can be held against each other (the top two
by default); the per-query wins and losses and each query's "open in Compare" link pair those two, not always the
baseline and the setting."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from tests.app.conftest import no_errors, open_page
from tests.app.test_evaluate_page import frame


@pytest.fixture(scope="module")
async def experiment(lab: Lab, demo: str) -> int:
    spec = SweepSpec(
        demo, candidates=(10, 25), top_ks=(5,), rerankers=("none", "local"), recipes=("vector", "bm25"), sample=12
    )
    return save_experiment(lab.store, await run_sweep(lab, spec), "pick two rows")


def compare_params(app: AppTest) -> dict[str, str]:
    changes = frame(app, "Compare")
    assert len(changes) >= 1
    return {k: v[0] for k, v in parse_qs(urlparse(changes.iloc[0]["Compare"]).query).items()}


def test_the_top_two_rows_are_compared_by_default_and_any_two_can_be(app: AppTest, experiment: int) -> None:
    app.query_params["evaluate.experiment"] = str(experiment)
    open_page(app, "app_pages/evaluate.py")
    rows = list(frame(app, "Recommended")["Setting"])
    inspect, against = app.selectbox(key="evaluate.inspect"), app.selectbox(key="evaluate.against")
    assert list(inspect.options) == rows == list(against.options)  # every row of the table, in its order
    baseline = "graphiti-default none N=50 k=10"
    top = rows[:2] if rows[0] != baseline else [rows[1], rows[0]]
    assert [inspect.value, against.value] == top  # the table's top two

    # any two rows: bm25 + local against vector + none, in Compare as A = vector none, B = bm25 local
    inspect.set_value("bm25 local N=25 k=5")
    against.set_value("vector none N=10 k=5")
    app.run()
    no_errors(app)
    said = [m.value for m in app.markdown if m.value.startswith("**Per-query wins and losses**")]
    assert said == ["**Per-query wins and losses** of bm25 local N=25 k=5 against vector none N=10 k=5 (ndcg@k)"]
    params = compare_params(app)
    assert (params["compare.a.recipe"], params["compare.a.reranker"], params["compare.a.n"]) == ("vector", "none", "10")
    assert (params["compare.b.recipe"], params["compare.b.reranker"], params["compare.b.n"]) == ("bm25", "local", "25")

    # the same row twice: nothing to pair, said in one line
    app.selectbox(key="evaluate.against").set_value("bm25 local N=25 k=5")
    app.run()
    no_errors(app)
    assert any("Pick two different settings" in c.value for c in app.caption)
