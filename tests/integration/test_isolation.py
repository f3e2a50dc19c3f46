"""Isolation (property-based): whatever the deal and the query, nothing from another deal comes back."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.ingest.beir import import_beir
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.retrieve import retrieve

VOCAB = ["revenue", "ebitda", "margin", "customer", "contract", "churn", "ceo", "cfo", "lawsuit", "headcount"]
VOCAB += ["arr", "pipeline", "debt", "cash"]
DEALS = ("iso_a", "iso_b", "iso_c")


def _write_deal(folder: Path, name: str, rng: random.Random) -> set[str]:
    """A small deal whose passages share vocabulary with the other deals (so leaks would be found)."""
    folder.mkdir(parents=True)
    ids = [f"{name}-p{i}" for i in range(12)]
    with (folder / "corpus.jsonl").open("w") as out:
        for pid in ids:
            words = rng.sample(VOCAB, 5)
            text = f"{name} reports {' '.join(words)} of ${rng.randint(1, 99)}.{rng.randint(0, 9)}M in 2025."
            out.write(
                json.dumps({"_id": pid, "text": text, "doc_name": f"{name}.pdf", "page": rng.randint(1, 9)}) + "\n"
            )
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "revenue"}) + "\n")
    (folder / "qrels.tsv").write_text(f"q\t{ids[0]}\t1\n")
    return set(ids)


@pytest.fixture(scope="module")
async def isolated_deals(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, set[str]]]:
    rng = random.Random(7)
    root = tmp_path_factory.mktemp("isolation")
    owned = {}
    for name in DEALS:
        keys = _write_deal(root / name, name, rng)
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, root / name, name)
        owned[name] = {
            "facts": {stable_uuid(name, "fact", k) for k in keys},
            "episodes": {stable_uuid(name, "episode", k) for k in keys},
        }
    return owned


queries = st.one_of(
    st.lists(st.sampled_from(VOCAB + list(DEALS)), min_size=1, max_size=6).map(" ".join),
    st.text(min_size=1, max_size=80).filter(lambda s: s.strip() and s.isprintable()),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    deal=st.sampled_from(DEALS),
    query=queries,
    n=st.integers(1, 30),
    reranker=st.sampled_from(["none", "local"]),
    recipe=st.sampled_from(["hybrid-walk", "graphiti-default"]),
)
async def test_no_result_candidate_or_citation_from_another_deal(
    lab: Lab, isolated_deals: dict[str, dict[str, set[str]]], deal: str, query: str, n: int, reranker: str, recipe: str
) -> None:
    run = await retrieve(lab, query, deal, n, min(n, 5), reranker, recipe=Recipe.preset(recipe))
    mine = isolated_deals[deal]
    assert {c.uuid for c in run.candidates} <= mine["facts"]
    assert {r.uuid for r in run.results} <= mine["facts"]
    assert {c.episode_uuid for r in run.results for c in r.citations} <= mine["episodes"]
    assert all(c.document_name == f"{deal}.pdf" for r in run.results for c in r.citations)
    # the walk and no cosine floor reach every fact of the deal: a deal's own facts are never lost to isolation
    # (graphiti's default recipe keeps only facts above its 0.6 cosine floor or found by BM25)
    assert len(run.candidates) == min(n, 12) if recipe == "hybrid-walk" else len(run.candidates) <= min(n, 12)
