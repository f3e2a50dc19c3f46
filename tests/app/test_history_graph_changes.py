"""History's comparison of two runs says when the deal's graph changed between them, and what changed."""

from __future__ import annotations

from datetime import date

from streamlit.testing.v1 import AppTest

from pipeline.corrections.actions import correct_fact
from pipeline.corrections.records import CorrectionRequest
from pipeline.history.repo import save_run
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.app.conftest import no_errors, open_page
from tests.support.shown import shown

DEAL = "history-changes"
QUERY = "What was FY2025 subscription revenue? (graph changes on History)"  # found by its text among many runs


async def test_a_correction_between_two_runs_is_named_beside_their_comparison(app: AppTest, lab: Lab) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    before = await retrieve(lab, QUERY, DEAL, 50, 10, "none")
    first = save_run(lab.store, before, "cli")
    top = before.results[0]
    request = CorrectionRequest(
        top.uuid, "FY2025 subscription revenue was $4.3 million.", "qa_response", "CFO", date(2026, 11, 5)
    )
    await correct_fact(lab, DEAL, request, actor="Ana History")
    second = save_run(lab.store, await retrieve(lab, QUERY, DEAL, 50, 10, "none"), "cli")

    open_page(app, "app_pages/history.py", DEAL)
    app.text_input(key="history.text").input("graph changes on History").run()  # other tests' runs push it out
    app.selectbox(key="history.open").set_value(first).run()
    app.selectbox(key="history.compare").set_value(second).run()
    no_errors(app)
    [warning] = [shown(w.value) for w in app.warning]
    assert warning.startswith("The graph changed between these runs (1 admin change(s)): Fact corrected by Ana History")
    assert any("Parameters that differ: none" in c.value for c in app.caption)
