"""The engine side of Compare on the demo deal: one pool reranked per side equals a retrieval per side, the
query's judgments come from the labelled set, and the low-confidence rule on real queries."""

from __future__ import annotations

import json

import pytest

from pipeline.comparison.confidence import assess
from pipeline.comparison.judged import query_judgments, side_score
from pipeline.comparison.verdict import verdict
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.retrieve import rank, retrieve
from pipeline.retrieval.setting import setting

QUERY = "What was Halcyon's FY2025 revenue?"


async def test_rank_gives_each_setting_what_retrieve_gives_it_alone(lab: Lab, demo: str) -> None:
    settings = [
        setting("hybrid-walk", 50, "none", 10),
        setting("hybrid-walk", 50, "local", 10),
        setting("hybrid-walk", 50, "local", 5),
        setting("vector", 25, "local", 5),
        setting("graphiti-default", 50, "none", 10),
    ]
    runs = await rank(lab, QUERY, demo, settings)
    for chosen, run in zip(settings, runs, strict=True):
        alone = await retrieve(lab, QUERY, demo, chosen.candidates, chosen.top_k, chosen.reranker, recipe=chosen.recipe)
        assert (run.recipe, run.num_candidates, run.reranker, run.top_k) == (
            chosen.recipe.key,
            chosen.candidates,
            chosen.reranker,
            chosen.top_k,
        )
        assert [c.uuid for c in run.candidates] == [c.uuid for c in alone.candidates], chosen.label
        assert [r.candidate.uuid for r in run.reranked] == [r.candidate.uuid for r in alone.reranked], chosen.label
        assert [r.rerank_score for r in run.reranked] == [r.rerank_score for r in alone.reranked], chosen.label
        assert [r.uuid for r in run.results] == [r.uuid for r in alone.results], chosen.label
        assert run.rerank_used == (chosen.reranker != "none") and "hybrid_search" in run.timings.stages_ms
        # timed as if it ran alone: a list another setting fetched first still counts in its first stage
        stages = run.timings.stages_ms
        assert stages["hybrid_search"] >= max(stages.get("bm25", 0.0), stages.get("cosine", 0.0)) > 0
    assert runs[1].candidates is runs[0].candidates  # one pool: one first stage
    assert runs[2].reranked is runs[1].reranked and len(runs[2].results) == 5  # one reranking, two cuts
    assert runs[3].candidates != runs[0].candidates and runs[4].candidates != runs[0].candidates


async def test_judgments_are_found_by_text_trimmed_and_case_insensitive(lab: Lab, demo: str) -> None:
    judged = await query_judgments(lab, demo, f"  {QUERY.upper()}  ")
    query_set = load_query_set(lab.store, demo)
    assert query_set is not None and judged is not None
    [labelled] = [q for q in query_set.queries if q.text == QUERY]
    assert judged.grades == query_set.judged_uuids(labelled.id)
    assert judged.sources == ("Labelled query set",)
    assert await query_judgments(lab, demo, "a query nobody judged") is None


async def test_low_confidence_flags_nonsense_and_not_labelled_queries(lab: Lab, demo: str) -> None:
    query_set = load_query_set(lab.store, demo)
    assert query_set is not None
    for text in [q.text for q in query_set.queries[:8]]:
        assert not (await assess(lab, await retrieve(lab, text, demo, 50, 10))).low, text
    for text in ("purple elephant trampoline", "knitting pattern for a wool scarf"):
        confidence = await assess(lab, await retrieve(lab, text, demo, 50, 10))
        assert confidence.low and confidence.best_cosine is not None and confidence.best_cosine < 0.35, text


async def test_the_low_confidence_benchmark_counts_what_the_rule_flags(lab: Lab, demo: str) -> None:
    from benchmarks.low_confidence import OFF_TOPIC, measure, render

    result = await measure(lab, demo, None, 4, 20)
    assert result["labelled"]["queries"] == 4 and result["labelled"]["flagged"] == 0
    assert result["off_topic"] == result["off_topic"] | {"queries": len(OFF_TOPIC), "flagged": len(OFF_TOPIC)}
    assert result["off_topic"]["best_cosine_max"] < 0.35 <= result["labelled"]["best_cosine_min"]
    assert "12 of 12" in render(result)


def test_the_compare_command_prints_the_verdict(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main
    from pipeline.settings import get_settings
    from pipeline.store import open_store

    assert main(["compare", QUERY, "--group", demo, "--a", "none:50:10", "--b", "local:25:5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    query_set = load_query_set(open_store(get_settings().resolved_data_dir), demo)
    assert query_set is not None
    [labelled] = [q for q in query_set.queries if q.text == QUERY]
    grades = query_set.judged_uuids(labelled.id)
    a, b = side_score(grades, out["top_a"], 10), side_score(grades, out["top_b"], 5)
    assert len(out["top_a"]) == 10 and len(out["top_b"]) == 5
    said = verdict(a, b, ("N=50 · k=10 · none", "N=25 · k=5 · local"))
    assert out["verdict"] == said.line and out["outcome"] == said.outcome
    assert out["scores"][1]["relevant"] == b.relevant
    assert out["low_confidence"] is False

    assert main(["compare", "purple elephant trampoline", "--group", demo]) == 0
    said = capsys.readouterr().out
    assert "! low confidence" in said and "not judged" in said
    assert main(["compare", QUERY, "--group", demo, "--b", "magic:50:10"]) == 2
    assert "--b must be [RECIPE:]RERANKER:N:K" in capsys.readouterr().err
