"""Run fingerprints (issue 17): each experiment records the graph state, the judgments' version and the settings it
ran with; comparing two experiments warns, one line each, when their graph or judgments differed."""

from __future__ import annotations

import dataclasses
from datetime import date
from importlib.metadata import version

from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.evaluation import judgments
from pipeline.evaluation.compare import data_warnings
from pipeline.evaluation.experiments import load_experiment, save_experiment
from pipeline.evaluation.fingerprint import judgments_version
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab

GROUP = "fingerprints"
SPEC = dict(candidates=(10,), top_ks=(5,), rerankers=("none",), limit_queries=3)


async def test_experiments_on_different_graph_or_judgments_are_told_apart(lab: Lab) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=GROUP, force=True)
    spec = SweepSpec(GROUP, **SPEC)  # type: ignore[arg-type]
    first = await run_sweep(lab, spec)
    again = await run_sweep(lab, spec)
    assert first.fingerprint["graph"] == again.fingerprint["graph"]
    assert data_warnings(first, again) == []  # same graph, same judgments: nothing to say

    # an admin correction: one more fact, a newer change, other content
    full = await judgments.load_eval_set(lab, GROUP)
    fact = next(iter(full.qrels[full.scorable[0].id]))
    text = (await lab.backend.cypher.fact_texts(GROUP, [fact]))[fact]
    request = CorrectionRequest(fact, f"{text} (restated)", "qa_response", "CFO", date(2026, 4, 2))
    correction = await correct_fact(lab, GROUP, request, actor="Ana")
    try:
        after = await run_sweep(lab, spec)
    finally:
        await undo_correction(lab, GROUP, correction.id, actor="Ana")
    graph_a, graph_b = first.fingerprint["graph"], after.fingerprint["graph"]
    assert graph_b["facts"] == graph_a["facts"] + 1 and graph_b["content"] != graph_a["content"]
    assert graph_a["latest_change"] is None and graph_b["latest_change"] and graph_b["audit_id"] > 0
    warnings = data_warnings(first, after)
    assert len(warnings) == 1 and warnings[0].startswith("Different graph states: A ran on ")
    assert f"{graph_a['facts']} facts" in warnings[0] and f"{graph_b['facts']} facts" in warnings[0]
    # with the audit log, what changed in between is named
    (named,) = data_warnings(first, after, lab.store)
    assert "(changed between them: 1 x Fact corrected)" in named

    # the undo restores the content: same graph again, though the audit log moved on
    undone = await run_sweep(lab, spec)
    assert undone.fingerprint["graph"]["content"] == graph_a["content"]
    assert data_warnings(first, undone) == []

    # one grade changed: another judgments version, whatever the graph
    qid = full.scorable[0].id
    regraded = dataclasses.replace(full, qrels={**full.qrels, qid: {u: 0 for u in full.qrels[qid]}})
    assert judgments_version(regraded)["hash"] != judgments_version(full)["hash"]
    other = await run_sweep(lab, spec, eval_set=regraded)
    lines = data_warnings(first, other)
    assert len(lines) == 1 and lines[0].startswith("Different judgments: A used ")

    # the software and models it ran with: a changed embedder or reranker model is named
    manifest = first.fingerprint["manifest"]
    assert manifest["graphiti_core"] == version("graphiti-core") and manifest["backend"] == "embedded FalkorDB"
    assert manifest["embedder"] == lab.embedder.info.describe() and manifest["rerankers"] == {"none": "-"}
    assert manifest["judge"] == "-" and manifest["queries"] == "split all, sample all, seed 0, first 3"
    moved = dict(manifest, embedder="voyage:voyage-finance-2 (1024-d)", graphiti_core="0.32.0")
    swapped = dataclasses.replace(again, fingerprint={**again.fingerprint, "manifest": moved})
    assert data_warnings(first, swapped) == [
        f"graphiti-core changed: A {manifest['graphiti_core']}, B 0.32.0.",
        f"The embedder changed: A {manifest['embedder']}, B voyage:voyage-finance-2 (1024-d).",
    ]

    # saved and read back, the fingerprint is the same; an experiment from before fingerprints is said to be one
    exp_id = save_experiment(lab.store, after, "fingerprinted")
    assert load_experiment(lab.store, exp_id)[1].fingerprint == after.fingerprint
    older = dataclasses.replace(first, fingerprint={})
    assert data_warnings(older, after) == [
        "Experiment A was saved without a fingerprint: whether both ran on the same data is unknown."
    ]
