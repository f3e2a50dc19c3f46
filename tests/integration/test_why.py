"""The loss X-ray on a small deal built for it: each kind of loss planted (a judgment naming a fact the graph no
longer has, a superseded fact, a fact no list reaches, one under the cosine floor, one the fusion cannot keep, one
under reranker_min_score, one cut by N, one ranked below k, a twin of a fact above it) and found named, by the engine
and through `lab.why` over a stored query set, whose counts add up to the relevant facts."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
from graphiti_core.search.search_config import EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, SearchConfig

from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.sweep import SweepSpec
from pipeline.ingest.loading import DealContent, EntitySpec, EpisodeSpec, FactSpec, stable_uuid, write_deal
from pipeline.lab import Lab
from pipeline.query_sets.records import LabelledQuery, QuerySet
from pipeline.query_sets.sets import save_query_set
from pipeline.retrieval.recipes import custom
from pipeline.retrieval.setting import Setting, setting
from pipeline.why.records import LOSS_STAGES
from pipeline.why.xray import query_losses

DEAL = "why_losses"
QUERY = "Halcyon revenue growth FY2025"
WHEN = datetime(2026, 1, 12, tzinfo=UTC)
FACTS = {
    # BM25 on the query's four words orders these: the two twins (all four words), then `second` (three)
    "top": "Halcyon revenue growth FY2025 was 27 percent.",
    "twin": "Halcyon revenue growth FY2025 was 27 percent.",
    "second": "Halcyon revenue growth beat the plan.",
    "novec": "Halcyon revenue audited by Kessler Stroud.",  # its stored vector removed below
    "old": "Halcyon revenue growth FY2025 was 20 percent.",  # superseded
    "far": "The office kitchen was repainted blue.",  # no word in common, far in meaning
    "filler1": "Halcyon gross margin was 71 percent.",
    "filler2": "Northwind revenue grew 12 percent.",
    "filler3": "Halcyon FY2024 revenue was 3.9 million dollars.",
}
GONE = stable_uuid(DEAL, "fact", "never-written")


def uuid(key: str) -> str:
    return stable_uuid(DEAL, "fact", key)


@pytest.fixture(scope="module")
async def why_deal(lab: Lab) -> str:
    await lab.backend.delete_graph(DEAL)
    content = DealContent(
        episodes=[EpisodeSpec("p1", "memo p1", " ".join(FACTS.values()), "document", WHEN, "memo", "memo.pdf", 1)],
        entities=[EntitySpec(f"e{i}", f"Entity {i}") for i in range(2 * len(FACTS))],
        facts=[
            FactSpec(
                key,
                f"e{2 * i}",
                f"e{2 * i + 1}",
                "STATES",
                text,
                ("p1",),
                WHEN,
                expired_at=WHEN if key == "old" else None,
            )
            for i, (key, text) in enumerate(FACTS.items())
        ],
    )
    await write_deal(lab.backend, DEAL, content, lab.embedder)
    driver = lab.backend.driver(DEAL)
    await driver.execute_query(
        "MATCH ()-[e:RELATES_TO {uuid: $uuid}]->() SET e.fact_embedding = NULL", uuid=uuid("novec")
    )
    return DEAL


BM25_ONLY = custom(
    SearchConfig(edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25], reranker=EdgeReranker.rrf))
)
# RRF gives a list's first 1.0, its second 0.5 and its third 1/3: a 0.4 floor keeps the first two
BM25_FLOORED = custom(
    SearchConfig(
        edge_config=EdgeSearchConfig(search_methods=[EdgeSearchMethod.bm25], reranker=EdgeReranker.rrf),
        reranker_min_score=0.4,
    )
)


async def stages(lab: Lab, chosen: Setting, *keys: str, gone: bool = False) -> dict[str, str]:
    relevant = {uuid(k): 1 for k in keys} | ({GONE: 2} if gone else {})
    (losses,), _what_if = await query_losses(lab, DEAL, "q1", QUERY, relevant, [chosen])
    by_uuid = {f.uuid: f for f in losses.facts}
    named = {k: by_uuid[uuid(k)].stage for k in keys}
    if gone:
        named["gone"] = by_uuid[GONE].stage
    return named


async def test_each_planted_loss_is_named(lab: Lab, why_deal: str) -> None:
    # BM25 alone, N=3, k=2: the twins kept, `second` third: ranked below k; the superseded one filtered
    chosen = Setting(BM25_ONLY, 3, "none", 2)
    assert await stages(lab, chosen, "top", "twin", "second", "old", gone=True) == {
        "top": "kept",
        "twin": "kept",
        "second": "reranked_out",
        "old": "filtered",
        "gone": "gone",
    }
    # N=2: `second` never reaches the reranker
    assert (await stages(lab, Setting(BM25_ONLY, 2, "none", 2), "second")) == {"second": "cut_by_n"}
    # the fusion's floor: `second` scores 1/3 in RRF, under 0.4
    assert (await stages(lab, Setting(BM25_FLOORED, 5, "none", 5), "top", "twin", "second")) == {
        "top": "kept",
        "twin": "kept",
        "second": "min_score",
    }
    # MMR fuses only facts with a stored vector: BM25 finds `novec`, the fusion cannot keep it
    assert (await stages(lab, setting("mmr", 10, "none", 10), "novec")) == {"novec": "fusion"}
    # cosine alone with graphiti's 0.6 floor, deep enough to hold the whole deal: `far` is under the floor
    assert (await stages(lab, setting("vector", 10, "none", 10), "far")) == {"far": "floor"}
    # graphiti's default at N=1 asks each method for 2 hits: `far` is in neither list
    assert (await stages(lab, setting("graphiti-default", 1, "none", 1), "far")) == {"far": "unfound"}


async def test_the_evidence_says_why(lab: Lab, why_deal: str) -> None:
    relevant = {uuid(k): 1 for k in ("top", "twin", "second", "far", "old")}
    (losses,), what_if = await query_losses(lab, DEAL, "q1", QUERY, relevant, [Setting(BM25_ONLY, 2, "none", 2)])
    facts = {f.uuid: f for f in losses.facts}
    second, far, old = facts[uuid("second")], facts[uuid("far")], facts[uuid("old")]
    assert second.fused_rank == 3 and second.method_ranks == {"bm25": 3}
    assert "fused rank 3, below N=2" in second.detail
    assert far.stage == "unfound" and "not in BM25's first 1,000" in far.detail and "cosine rank" in far.detail
    assert old.detail.startswith("superseded (expired_at 2026-01-12")
    # of two facts with the same text, the one ranked second names the first (graphiti's cross-encoder keeps one)
    twins = [facts[uuid("top")], facts[uuid("twin")]]
    assert sorted(f.twin is not None for f in twins) == [False, True]
    assert {f.twin for f in twins} - {None} <= {uuid("top"), uuid("twin")}
    # a larger N brings `second` to the reranker
    assert uuid("second") in what_if[Setting(BM25_ONLY, 2, "none", 2).key]["N=4"]


@pytest.fixture(scope="module")
def why_set(lab: Lab, why_deal: str) -> str:
    queries = (LabelledQuery("q1", QUERY, "metric"), LabelledQuery("q2", "office kitchen paint colour", "other"))
    qrels = {
        "q1": {uuid("top"): 2, uuid("second"): 1, uuid("old"): 1, GONE: 1, uuid("far"): 0},
        "q2": {uuid("far"): 1},
    }
    save_query_set(lab.store, QuerySet(DEAL, queries, qrels, "why-set", "import"), "test", replace=True)
    return "set:why-set"


async def test_a_set_report_adds_up_and_gives_what_ifs(lab: Lab, why_set: str) -> None:
    chosen = [setting("graphiti-default", 1, "none", 1), setting("graphiti-default", 2, "none", 1)]
    report = await lab.why.report(DEAL, chosen, why_set)
    assert report.queries == 2
    for figures in report.settings:
        assert figures.relevant == 5  # grade 0 is not relevant
        assert sum(figures.counts.values()) == 5
        assert figures.counts["gone"] == 1 and figures.counts["filtered"] == 1
        per_query = [q for q in report.per_query if q.setting == figures.setting]
        for stage in LOSS_STAGES:
            assert figures.counts[stage] == sum(q.count(stage) for q in per_query)
    n1 = report.settings[0]
    what_if = {w.label: w for w in n1.what_ifs}
    reached = sum(
        1 for q in report.per_query if q.setting == n1.setting for f in q.facts if f.stage in ("reranked_out", "kept")
    )
    assert what_if["N=2"].reached == reached
    # what N=2 reaches, the N=2 setting's own X-ray reaches
    n2 = report.settings[1]
    assert what_if["N=2"].would_reach == n2.counts["reranked_out"] + n2.counts["kept"]
    assert report.to_dict()["settings"][0]["what_ifs"][0]["sentence"].startswith("N=2: ")


async def test_bad_input_is_one_line(lab: Lab, why_set: str) -> None:
    with pytest.raises(InvalidInput, match="No judged query 'q9'"):
        await lab.why.report(DEAL, [setting()], why_set, query_ids=["q9"])
    with pytest.raises(InvalidInput, match="at least one setting"):
        await lab.why.report(DEAL, [], why_set)


async def cli(*argv: str) -> int:
    """`python -m pipeline ...` in this process, on a thread of its own (it runs its own event loop)."""
    return await asyncio.to_thread(main, list(argv))


async def test_the_cli_prints_the_table_or_json_and_refuses_bad_input_in_one_line(
    lab: Lab, why_set: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await cli("why", "--group", DEAL, "--set", "why-set", "--setting", "graphiti-default:none:1:1") == 0
    out = capsys.readouterr().out
    assert "graphiti-default + none, N=1, k=1: 5 judged-relevant facts" in out
    assert "no longer in the graph" in out and "what if N=2:" in out
    assert await cli("why", "--group", DEAL, "--set", "why-set", "--query-id", "q2", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    (figures,) = data["settings"]
    assert figures["relevant"] == 1 and sum(figures["counts"].values()) == 1
    for argv, said in (
        (("--setting", "bogus"), "--setting must be [RECIPE:]RERANKER:N:K"),
        (("--set", "no-such-set"), "no-such-set"),
        (("--set", "why-set", "--judgments", "verdicts"), "Give --set or --judgments, not both."),
    ):
        assert await cli("why", "--group", DEAL, *argv) == 2
        err = capsys.readouterr().err.strip()
        assert said in err and len(err.splitlines()) == 1, err


async def test_the_demo_deal_x_ray_adds_up_to_its_judged_relevant_facts(lab: Lab, demo: str) -> None:
    report = await lab.why.report(demo, [setting("graphiti-default", 50, "none", 10)])
    judged = lab.query_sets.load(demo)
    assert judged is not None
    relevant = sum(1 for q in judged.queries for grade in judged.qrels.get(q.id, {}).values() if grade >= 1)
    (figures,) = report.settings
    assert figures.relevant == relevant == sum(figures.counts.values())
    # the demo shows several kinds of loss from the first start
    assert sum(1 for stage, n in figures.counts.items() if n and stage != "kept") >= 3


async def test_a_saved_sweep_is_x_rayed_on_its_own_settings_and_queries(
    lab: Lab, demo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = SweepSpec(demo, (10, 50), (10,), ("none", "local"), limit_queries=8)
    result = await lab.evaluation.run_sweep(spec)
    experiment = lab.evaluation.save_experiment(result, "why this sweep")
    swept = await lab.why.experiment_report(experiment, most=3)
    assert len(swept.settings) == 3 and swept.settings[0].key == result.recommendation().key
    assert result.baseline in {s.key for s in swept.settings}
    assert any("1 more setting of the sweep left out" in note for note in swept.notes), swept.notes
    # the sweep's queries with a relevant fact, each setting's counts adding up
    assert {q.query_id for q in swept.report.per_query} <= set(result.queries)
    assert all(sum(s.counts.values()) == s.relevant for s in swept.report.settings)
    # the same through the CLI, and bad input in one line
    assert await cli("why", "--experiment", str(experiment), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["experiment"] == experiment
    shown = [s["setting"] for s in data["settings"]]  # at most SWEPT_SETTINGS (4): the whole grid of 4 here
    assert shown[0] == swept.settings[0].key and sorted(shown) == sorted(s.key for s in result.settings)
    for argv, said in (
        (("--experiment", "999999"), "No experiment #999999."),
        (("--experiment", str(experiment), "--setting", "vector:none:50:10"), "give it alone"),
    ):
        assert await cli("why", *argv) == 2
        err = capsys.readouterr().err.strip()
        assert said in err and len(err.splitlines()) == 1, err
