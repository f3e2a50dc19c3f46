"""History's comparison of two runs of a deal says whether its graph changed between them, and how: an unchanged
setting can rank differently on a changed graph (even after an undo: FalkorDB's full-text index returns equal
scores in index order, which each write to a fact changes)."""

from __future__ import annotations

from datetime import date

from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.history.compare import compare_runs, graph_changed_between
from pipeline.history.repo import load_run, save_run
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve

QUERIES = ("What was FY2025 subscription revenue?",)
HISTORY_GROUP = "undo-history"  # no other test's admin changes in its audit log


async def test_history_says_the_graph_changed_between_two_runs_and_what_changed(lab: Lab) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=HISTORY_GROUP, force=True)
    query = QUERIES[0]
    first = save_run(lab.store, await retrieve(lab, query, HISTORY_GROUP, 50, 10, "none"), "cli")
    again = save_run(lab.store, await retrieve(lab, query, HISTORY_GROUP, 50, 10, "none"), "cli")
    a, b = load_run(lab.store, first).run, load_run(lab.store, again).run
    quiet = graph_changed_between(lab.store, a, b)
    assert quiet is not None and quiet.entries == () and quiet.text().startswith("No admin change")

    top = (await retrieve(lab, query, HISTORY_GROUP, 50, 10, "none")).results[0]
    request = CorrectionRequest(top.uuid, "A restated fact.", "qa_response", "CFO", date(2026, 11, 5))
    correction = await correct_fact(lab, HISTORY_GROUP, request, actor="Ana")
    await undo_correction(lab, HISTORY_GROUP, correction.id, actor="Ben")
    rerun = save_run(lab.store, await retrieve(lab, query, HISTORY_GROUP, 50, 10, "none"), "cli")
    after = load_run(lab.store, rerun).run
    changes = graph_changed_between(lab.store, a, after)
    assert changes is not None and [e.action for e in changes.entries] == ["fact.correct", "fact.undo_correct"]
    assert changes.text().startswith("The graph changed between these runs (2 admin change(s)): Fact corrected by Ana")
    assert "Correction undone by Ben" in changes.text()
    assert compare_runs(a, after).differing == ()  # the same setting: only the graph tells the runs apart
