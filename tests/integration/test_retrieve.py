"""retrieve() on the real embedded FalkorDB with the demo deal."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pipeline.errors import InvalidInput, UnknownDeal
from pipeline.ingest.demo.seed import DEAL_FILE
from pipeline.ingest.loading import parse_time, stable_uuid
from pipeline.lab import Lab
from pipeline.rerankers.base import LabReranker, RerankerFailed, RerankOutcome
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.retrieve import retrieve
from tests.conftest import FIXTURES

DEAL = json.loads(DEAL_FILE.read_text())
FACTS = {f["id"]: f for f in DEAL["facts"]}


def _chain() -> tuple[dict, dict]:
    """A (superseded, newer and still current) fact pair from the demo data."""
    replaced = {f["supersedes"] for f in DEAL["facts"] if f.get("supersedes")}
    newer = next(f for f in DEAL["facts"] if f.get("supersedes") and f["id"] not in replaced)
    return FACTS[newer["supersedes"]], newer


class Failing(LabReranker):
    name, label, description = "failing", "fails", "always fails"

    async def score(self, query, passages, vectors=None) -> RerankOutcome:
        raise RerankerFailed("test reranker: deliberately broken")


async def test_n_candidates_and_k_current_results(lab: Lab, demo: str) -> None:
    run = await retrieve(lab, "What was Halcyon's revenue and EBITDA?", demo, 50, 10, "none")
    assert len(run.candidates) == 50
    assert [c.first_stage_rank for c in run.candidates] == list(range(1, 51))
    assert len(run.results) == 10
    assert not any(c.superseded for c in run.candidates)
    assert run.rerank_used is False and run.fallback_reason is None
    for stage in ("embed_query", "bm25", "cosine", "fusion", "hybrid_search", "citations", "total"):
        assert run.timings.stages_ms[stage] >= 0, stage
    assert run.recipe == "graphiti-default" and "bfs" not in run.timings.stages_ms  # graphiti's default: no walk
    assert run.timings.stages_ms["total"] >= run.timings.stages_ms["hybrid_search"]
    assert all(any(c.method_ranks.values()) for c in run.candidates)


async def test_fewer_candidates_only_when_the_deal_has_fewer(lab: Lab) -> None:
    from pipeline.ingest.beir import import_beir

    await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "mini")
    # a recipe without a cosine floor finds every fact that matches at all; here, the whole deal
    run = await retrieve(lab, "Northwind net sales", "mini", 50, 5, "none", recipe=Recipe.preset("hybrid-walk"))
    assert len(run.candidates) == 8
    assert len(run.results) == 5


async def test_superseded_facts_only_when_asked_and_as_of_answers_the_older_value(lab: Lab, demo: str) -> None:
    old, new = _chain()
    old_uuid, new_uuid = stable_uuid(demo, "fact", old["id"]), stable_uuid(demo, "fact", new["id"])
    query = old["fact"]

    current = await retrieve(lab, query, demo, 50, 10, "none")
    assert old_uuid not in {c.uuid for c in current.candidates}
    assert new_uuid in {c.uuid for c in current.candidates}

    everything = await retrieve(lab, query, demo, 50, 10, "none", include_superseded=True)
    marked = {c.uuid: c.superseded for c in everything.candidates}
    assert marked.get(old_uuid) is True and marked.get(new_uuid) is False

    before = parse_time(new["valid_at"]) - timedelta(days=1)
    assert before >= (parse_time(old["valid_at"]) or before)
    then = await retrieve(lab, query, demo, 50, 10, "none", as_of=before)
    then_uuids = {c.uuid for c in then.candidates}
    assert old_uuid in {r.uuid for r in then.results}
    assert new_uuid not in then_uuids


async def test_citations_name_document_and_page(lab: Lab, demo: str) -> None:
    run = await retrieve(lab, "revenue growth customers contract", demo, 50, 10, "none")
    citations = [c for r in run.results for c in r.citations]
    assert citations and all(r.citations for r in run.results)
    documents = [c for c in citations if c.channel == "document"]
    assert documents
    for c in documents:
        assert c.document_name.endswith((".pdf", ".xlsx", ".docx")) and c.page is not None
        assert c.source_description.startswith(f"From: {c.document_name} | Page {c.page}")
        assert c.confidence == 0.85 and c.snippet
    for c in citations:
        assert c.channel in {"document", "qa_response", "analyst_chat"}
        assert c.retrieved_at == run.created_at


async def test_q_and_a_facts_are_cited_as_such(lab: Lab, demo: str) -> None:
    qa_episode = next(e for e in DEAL["episodes"] if e["channel"] == "qa_response")
    fact = next(f for f in DEAL["facts"] if qa_episode["id"] in f["episodes"])
    run = await retrieve(lab, fact["fact"], demo, 50, 10, "none", include_superseded=True)
    result = next(r for r in run.results if r.uuid == stable_uuid(demo, "fact", fact["id"]))
    channels = {c.channel: c for c in result.citations}
    assert "qa_response" in channels
    assert channels["qa_response"].confidence == 0.95


async def test_a_failing_reranker_falls_back_to_first_stage_order(lab: Lab, demo: str, monkeypatch) -> None:
    import pipeline.retrieval.retrieve as module

    monkeypatch.setattr(module, "make_reranker", lambda name, settings, model=None: Failing())
    run = await retrieve(lab, "Who is the CEO?", demo, 20, 5, "failing")
    assert run.rerank_used is False
    assert run.fallback_reason == "test reranker: deliberately broken"
    assert [r.rank for r in run.reranked] == [c.first_stage_rank for c in run.candidates]
    assert len(run.results) == 5


async def test_voyage_without_a_key_falls_back_and_says_why(lab: Lab, demo: str) -> None:
    run = await retrieve(lab, "Who is the CEO?", demo, 20, 5, "voyage")
    assert run.rerank_used is False
    assert run.fallback_reason and "API key" in run.fallback_reason
    assert len(run.results) == 5


@pytest.mark.parametrize(
    ("query", "n", "k", "message"),
    [
        ("   ", 50, 10, "empty"),
        ("x" * 20_000, 50, 10, "20,000 characters"),
        ("revenue", 0, 10, "Candidates"),
        ("revenue", 10, 20, "cannot exceed"),
    ],
)
async def test_bad_requests_are_refused_with_a_message(lab: Lab, demo: str, query, n, k, message) -> None:
    with pytest.raises(InvalidInput, match=message):
        await retrieve(lab, query, demo, n, k, "none")


async def test_unknown_deal_and_reranker_are_refused(lab: Lab, demo: str) -> None:
    with pytest.raises(UnknownDeal):
        await retrieve(lab, "revenue", "no_such_deal", 10, 5, "none")
    with pytest.raises(InvalidInput, match="Unknown reranker 'magic'"):
        await retrieve(lab, "revenue", demo, 10, 5, "magic")


@pytest.mark.parametrize("query", ["_", "revenue _", "_ _ cash"])
async def test_words_without_letters_or_digits_do_not_break_the_full_text_search(lab: Lab, demo: str, query) -> None:
    # graphiti's FalkorDB full-text builder passes a lone "_" to RediSearch, which refuses it as a syntax error
    run = await retrieve(lab, query, demo, 10, 5, "none")
    assert len(run.results) == 5
