"""An undone correction or merge gives every query its ranking back, exactly.

A correction writes the old fact (its invalid_at, expired_at); the undo writes them back. Each write re-indexes the
fact in FalkorDB's full-text index, which returns equal scores in index order, so before ties were broken by uuid a
correction and its undo reordered tied facts, and through fusion, whole top tens."""

from __future__ import annotations

from datetime import date

from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.history.compare import compare_runs, graph_changed_between
from pipeline.history.repo import load_run, save_run
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities, undo_merge
from pipeline.merges.candidates import find_candidates
from pipeline.retrieval.recipes import preset
from pipeline.retrieval.retrieve import retrieve

GROUP = "undo-rankings"
QUERIES = ("What was FY2025 subscription revenue?", "Who is the CEO?", "customer churn contract renewal")
RECIPES = ("graphiti-default", "bm25", "vector")
HISTORY_GROUP = "undo-history"  # no other test's admin changes in its audit log


async def _rankings(lab: Lab) -> dict[tuple[str, str], list[str]]:
    out = {}
    for recipe in RECIPES:
        for query in QUERIES:
            run = await retrieve(lab, query, GROUP, 50, 10, "none", recipe=preset(recipe))
            out[(recipe, query)] = [r.uuid for r in run.results]
    return out


async def test_a_correction_and_its_undo_leave_every_ranking_as_it_was(lab: Lab) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=GROUP, force=True)
    before = await _rankings(lab)
    for query in QUERIES:  # the top fact of each query, corrected then put back
        top = (await retrieve(lab, query, GROUP, 50, 10, "none")).results[0]
        request = CorrectionRequest(top.uuid, "A restated fact.", "qa_response", "CFO", date(2026, 11, 5))
        correction = await correct_fact(lab, GROUP, request, actor="Ana")
        assert await _rankings(lab) != before  # the correction itself changes what is current
        await undo_correction(lab, GROUP, correction.id, actor="Ana")
        assert await _rankings(lab) == before, query


async def test_a_merge_and_its_undo_leave_every_ranking_as_it_was(lab: Lab) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=GROUP, force=True)
    before = await _rankings(lab)
    for pair in (await find_candidates(lab, GROUP)).candidates[:3]:
        merge = await merge_entities(lab, GROUP, pair.alias.uuid, pair.canonical.uuid, "Ana")
        await undo_merge(lab, GROUP, merge.uuid, "Ana")
        assert await _rankings(lab) == before, pair


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
    assert all(r.change == 0 for r in compare_runs(a, after).ranks)  # and the undo gave the ranking back
