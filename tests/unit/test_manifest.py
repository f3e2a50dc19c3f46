"""What two runs' manifests say differs: the software and models, never which rerankers happened to run."""

from __future__ import annotations

from pipeline.evaluation.manifest import manifest_differences

A = {
    "graphiti_core": "0.31.1",
    "backend": "embedded FalkorDB",
    "embedder": "local-minilm-l6-v2-int8 (384-d)",
    "rerankers": {"none": "-", "local": "local-fusion"},
    "judge": "-",
}


def test_the_same_software_says_nothing_whichever_rerankers_ran() -> None:
    assert manifest_differences(A, dict(A, rerankers={"local": "local-fusion"})) == []


def test_each_changed_part_is_one_line_in_order() -> None:
    b = dict(A, backend="Neo4j", rerankers={"local": "local-fusion-v2", "voyage": "rerank-2.5"}, judge="gpt-4o-mini")
    assert manifest_differences(A, b, ("baseline", "candidate")) == [
        "The graph backend changed: baseline embedded FalkorDB, candidate Neo4j.",
        "The reranker models changed: baseline local local-fusion, candidate local local-fusion-v2.",
        "The LLM judge changed: baseline -, candidate gpt-4o-mini.",
    ]


def test_a_run_saved_before_manifests_is_said_to_have_none() -> None:
    assert manifest_differences({}, A) == [
        "A recorded no manifest (saved before manifests): its software and models are unknown."
    ]
