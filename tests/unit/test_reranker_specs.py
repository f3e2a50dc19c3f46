"""One spec per reranker, and the places that used to keep their own lists read it: the latency page's free /
priced classification, the `status` key lines, the chart colours and the shipped module's rerank model."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from dashboard.evaluate.charts import pareto
from pipeline.cli.deals import reranker_key_lines
from pipeline.evaluation.ship import setting_module
from pipeline.history.latency import cost_rows
from pipeline.history.records import ModelUsage
from pipeline.rerankers import RERANKERS, SPECS, RerankerSpec, RerankerTraits, reranker_choices, spec, traits
from pipeline.rerankers import specs as specs_module
from pipeline.settings import Settings
from tests.support.sweeps import hybrid_walk_sweep

FAKE = RerankerSpec(
    "fake",
    "Fake",
    "hosted cross-encoder",
    colour="#123456",
    traits=RerankerTraits(hosted=True, priced=True, key_env="FAKE_API_KEY", key_setting="voyage_api_key"),
    model_setting="voyage_rerank_model",
)
FREE_FAKE = RerankerSpec("free-fake", "Free fake", "costs nothing", colour="#abcdef")


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
        ("none", "No reranking (first-stage order)", "the recipe's own fused order"),
        ("local", "Local re-scorer (offline)", "bi-encoder + BM25 re-score, not a cross-encoder"),
        ("voyage", "Voyage rerank-2.5", "Voyage rerank-2.5 (hosted cross-encoder)"),
        ("cohere", "Cohere rerank-v3.5", "Cohere rerank-v3.5 (hosted cross-encoder)"),
    ]
    assert reranker_key_lines(Settings(voyage_api_key="vk", cohere_api_key=None)) == {
        "voyage": "API key set",
        "cohere": "no API key (Cohere reranker off)",
    }


def test_a_new_spec_shows_up_in_latency_costs_status_and_chart_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SPECS, "fake", FAKE)
    monkeypatch.setitem(SPECS, "free-fake", FREE_FAKE)
    assert specs_module.SPECS is SPECS

    # the latency page: a priced spec is looked up in the price table, a free one costs $0 whatever it says
    usage = [ModelUsage("fake", "m", 2, 2_000_000, 0), ModelUsage("free-fake", "m", 2, 2_000_000, 0)]
    rows = {r.reranker: r for r in cost_rows(usage, {"m": 1.0})}
    assert rows["fake · m"].price_per_mtok == 1.0 and rows["fake · m"].usd_per_query == pytest.approx(1.0)
    assert rows["free-fake"].price_per_mtok == 0.0 and rows["free-fake"].usd_per_query == 0.0

    # `python -m pipeline status`: one line per spec with a key
    lines = reranker_key_lines(Settings(voyage_api_key=None, cohere_api_key=None))
    assert list(lines) == ["voyage", "cohere", "fake"]
    assert lines["fake"] == "no API key (Fake reranker off)"

    # the Evaluate page's quality / latency / cost chart
    fig = pareto(
        hybrid_walk_sweep(("none", "fake", "free-fake", "unlisted")), "ndcg@k", "hybrid-walk none N=50 k=10", set()
    )
    colours = {t.name: t.marker.color for t in fig.data if t.name in {"none", "fake", "free-fake", "unlisted"}}
    assert colours == {"none": "#8c9bb5", "fake": "#123456", "free-fake": "#abcdef", "unlisted": "#555"}


async def test_the_cli_status_prints_one_line_per_keyed_spec(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import deals
    from pipeline.deals import summary
    from pipeline.deals.api import DealBook

    async def no_deals(*_: object) -> list[object]:
        return []

    monkeypatch.setattr(summary, "deal_summaries", no_deals)
    backend = SimpleNamespace(describe=lambda: "embedded FalkorDB")
    embedder = SimpleNamespace(info=SimpleNamespace(describe=lambda: "local"))
    settings = Settings(voyage_api_key="vk", cohere_api_key=None, allowed_deals=None)
    lab = SimpleNamespace(backend=backend, embedder=embedder, store=None, settings=settings)
    lab.deal_book = DealBook(lab)  # type: ignore[arg-type]
    report = await deals.run_status(lab, argparse.Namespace(json=False))  # type: ignore[arg-type]
    assert list(report) == ["backend", "embedder", "voyage", "cohere", "deals"]
    assert capsys.readouterr().out.splitlines() == [
        "backend:  embedded FalkorDB",
        "embedder: local",
        "voyage:   API key set",
        "cohere:   no API key (Cohere reranker off)",
        "deals:    none (run: python -m pipeline seed-demo)",
    ]


def test_the_shipped_module_names_the_model_of_the_spec_s_model_setting() -> None:
    result = hybrid_walk_sweep(("none", "local", "voyage", "cohere"))
    settings = Settings(voyage_rerank_model="rerank-2.5-lite", cohere_rerank_model="rerank-english-v3.0")
    voyage = setting_module(result, "hybrid-walk voyage N=50 k=10", settings)
    cohere = setting_module(result, "hybrid-walk cohere N=50 k=10", settings)
    assert "RERANK_MODEL = 'rerank-2.5-lite'" in voyage and "RERANK_MODEL = 'rerank-english-v3.0'" in cohere
    assert "RERANK_MODEL" not in setting_module(result, "hybrid-walk local N=50 k=10", settings)
