"""One spec per reranker: every fact about it (label, traits, model setting, price unit, chart colour) in one table."""

from __future__ import annotations

from pipeline.rerankers import RERANKERS, SPECS, RerankerTraits, reranker_choices, spec, traits
from pipeline.settings import Settings


def test_every_reranker_has_exactly_one_spec_under_its_own_name() -> None:
    assert RERANKERS == tuple(SPECS) == ("none", "local", "voyage", "cohere")
    assert all(SPECS[name].name == name and spec(name) is SPECS[name] for name in RERANKERS)
    assert len({id(s) for s in SPECS.values()}) == len(RERANKERS)
    assert spec("jina") is None and traits("jina") == RerankerTraits()


def test_the_facts_the_pages_showed_before() -> None:
    settings = Settings(voyage_api_key="vk", cohere_api_key="ck")
    assert {n: (s.free, s.price_unit) for n, s in SPECS.items()} == {
        "none": (True, "free"),
        "local": (True, "free"),
        "voyage": (False, "per 1M tokens"),
        "cohere": (False, "per 1k searches"),
    }
    assert {n: s.colour for n, s in SPECS.items()} == {
        "none": "#8c9bb5",
        "local": "#2f6fde",
        "voyage": "#e8912d",
        "cohere": "#39a37b",
    }
    assert {n: s.model(settings) for n, s in SPECS.items()} == {
        "none": "",
        "local": "",
        "voyage": "rerank-2.5",
        "cohere": "rerank-v3.5",
    }
    assert [(c.name, c.label, c.note) for c in reranker_choices(settings)] == [
        ("none", "No reranking (first-stage order)", "RRF fusion of BM25, cosine and BFS"),
        ("local", "Local re-scorer (offline)", "bi-encoder + BM25 re-score, not a cross-encoder"),
        ("voyage", "Voyage rerank-2.5", "Voyage rerank-2.5 (hosted cross-encoder)"),
        ("cohere", "Cohere rerank-v3.5", "Cohere rerank-v3.5 (hosted cross-encoder)"),
    ]
