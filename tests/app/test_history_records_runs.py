"""History records what a user ran: moving k on Compare or Scores is a new cut of the same run, not a new run."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.query_sets.history import read_history
from pipeline.query_sets.sets import delete_query_set
from tests.app.conftest import no_errors, open_page

QUERY = "What was Halcyon's FY2025 revenue? (history of k steps)"


def recorded(lab: Lab) -> list[tuple[str, int, int]]:
    rows = lab.store.query("SELECT reranker, num_candidates, top_k FROM runs WHERE query = ? ORDER BY id", (QUERY,))
    return [(r["reranker"], r["num_candidates"], r["top_k"]) for r in rows]


def test_k_steps_on_compare_record_no_new_run_but_a_new_n_does(app: AppTest, lab: Lab) -> None:
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(QUERY).run()
    assert recorded(lab) == [("none", 50, 10), ("local", 50, 10)]  # what was run: both sides at k=10
    for k in (9, 8, 7, 3):  # a user stepping the slider
        app.slider(key="compare.b.k").set_value(k).run()
        no_errors(app)
    assert sum(1 for m in app.markdown if m.value.startswith("**#")) == 10 + 3  # the cut is shown...
    assert recorded(lab) == [("none", 50, 10), ("local", 50, 10)]  # ...and nothing more recorded
    app.slider(key="compare.b.n").set_value(25).run()  # a new pool: a new run, at the k of the moment
    no_errors(app)
    assert recorded(lab)[2:] == [("local", 25, 3)]


def test_k_steps_on_scores_record_no_new_run(app: AppTest, lab: Lab) -> None:
    open_page(app, "app_pages/scores.py")
    app.text_input(key="scores.q").input(QUERY).run()
    before = len(recorded(lab))
    app.slider(key="scores.k").set_value(5).run()
    app.slider(key="scores.k").set_value(4).run()
    no_errors(app)
    assert len(recorded(lab)) == before


async def test_the_deals_recorded_queries_become_an_unjudged_query_set(app: AppTest, lab: Lab) -> None:
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(QUERY).run()  # at least this query is in the deal's History
    open_page(app, "app_pages/history.py")
    app.text_input(key="history.set.name").input("history apptest")
    app.number_input(key="history.set.limit").set_value(5)
    app.button(key="history.set.save").click().run()
    no_errors(app)
    try:
        stored = load_query_set(lab.store, "demo", "history apptest")
        expected = await read_history(lab, "demo", 5)
        assert stored is not None and stored.qrels == {} and stored.created_by == "history"
        assert [q.text for q in stored.queries] == [q.text for q in expected.queries] and len(stored.queries) <= 5
        assert QUERY in [q.text for q in stored.queries]  # the newest query asked
        assert any("history apptest" in s.value and "unjudged" in s.value for s in app.success)
    finally:
        delete_query_set(lab.store, "demo", "history apptest")  # the demo deal's sets stay as other tests expect
