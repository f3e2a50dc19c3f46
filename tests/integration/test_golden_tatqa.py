"""Golden answers on real data (issue 37): a seeded slice of TAT-QA's test split (`tests/support/tatqa_slice.py`),
imported with the real BEIR importer, swept once per module: {vector, graphiti-default} x {none, local} at N=50,
k=10 over a seeded sample of `SAMPLE` test queries. Bands, not exact figures, that fail when the product's answer
regresses: with the local reranker scoring every candidate alike, or on cosine alone (its BM25 half dropped), the
lift, band and recommendation tests fail (the exported module imports that same re-scorer, so it still agrees).

Measured on the slice (125 report pages, 734 passages, 750 test queries; the sample: 120 of them, seed 0), nDCG@10:
vector+none 0.529, vector+local 0.707 (+34% relative, p < 0.001), graphiti-default+none 0.437, graphiti-default+local
0.707; recall@10 0.689, 0.808, 0.654, 0.787. Over all 750 queries of the slice the local reranker lifts vector search
by +32% (0.525 -> 0.696); twelve seeded samples of 120 gave +26% to +38%. The sample stays fixed (seed 0, the sweep's
default): never change it to make a failing test pass. On the full corpus (3,190 passages, 150 test queries) the
product measured vector+none 0.413 and vector+local 0.565 (+37%): fewer distractors here, so every figure is higher.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pipeline.evaluation.records import SweepResult, SweepSpec
from pipeline.evaluation.ship import setting_module
from pipeline.evaluation.significance import paired_test
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import setting
from pipeline.retrieval.stock import graphiti_for
from tests.integration.test_retrieve import Failing
from tests.integration.test_ship import load_module
from tests.support.gate_cli import gate
from tests.support.tatqa_slice import SAMPLE, SPLIT, Slice, tatqa_golden  # noqa: F401 (the session fixture)

N, K = 50, 10
METRIC = "ndcg@k"
VECTOR = setting("vector", N, "none", K).key
VECTOR_LOCAL = setting("vector", N, "local", K).key
DEFAULT = setting("graphiti-default", N, "none", K).key
DEFAULT_LOCAL = setting("graphiti-default", N, "local", K).key
MIN_LIFT = 0.25  # the local reranker over pure vector search, relative, on nDCG@10
MAX_P = 0.01
# (low, high) per setting and metric, around what the slice measured (module docstring): a setting that loses a
# tenth of its nDCG leaves its band
BANDS = {
    VECTOR: {"ndcg@k": (0.48, 0.58), "recall@k": (0.63, 0.75)},
    VECTOR_LOCAL: {"ndcg@k": (0.65, 0.76), "recall@k": (0.75, 0.86)},
    DEFAULT: {"ndcg@k": (0.39, 0.49), "recall@k": (0.60, 0.71)},
    DEFAULT_LOCAL: {"ndcg@k": (0.65, 0.76), "recall@k": (0.73, 0.84)},
}
SHIPPED_QUERIES = 8  # queries the exported module is run on


@pytest.fixture(scope="module")
async def golden(lab: Lab, tatqa_golden: Slice) -> SweepResult:  # noqa: F811
    recipes = tuple(Recipe.parse(name) for name in ("vector", "graphiti-default"))
    spec = SweepSpec.with_recipes(
        tatqa_golden.group_id,
        recipes,
        candidates=(N,),
        top_ks=(K,),
        rerankers=("none", "local"),
        split=SPLIT,
        sample=SAMPLE,
        seed=0,
    )
    return await run_sweep(lab, spec)


def test_the_sweep_ran_every_setting_on_the_sampled_test_queries(golden: SweepResult) -> None:
    assert golden.stats.queries == SAMPLE and not golden.partial
    assert {s.key for s in golden.grid} == set(BANDS)
    assert all(s.fallbacks == 0 for s in golden.settings), "the local reranker fell back to first-stage order"


def test_the_local_reranker_lifts_pure_vector_search(golden: SweepResult) -> None:
    scores = golden.scores(METRIC)
    test = paired_test(scores[VECTOR], scores[VECTOR_LOCAL])
    assert test.n == SAMPLE
    lift = test.delta / test.mean_a
    assert lift >= MIN_LIFT and test.p_randomization < MAX_P, (
        f"vector+local {test.mean_b:.3f} against vector+none {test.mean_a:.3f} nDCG@10: {lift:+.1%}, "
        f"p = {test.p_randomization:.4f} (wanted at least {MIN_LIFT:+.0%}, p < {MAX_P})"
    )
    # the sweep's own test, against its baseline (graphiti-default+none), says the same of the reranked default
    against_baseline = golden.significance(METRIC)[DEFAULT_LOCAL]
    assert against_baseline.delta > 0 and against_baseline.p_randomization < MAX_P


def test_every_setting_lies_in_its_band(golden: SweepResult) -> None:
    outside = [
        f"{key} {metric} {golden.setting(key).metric(metric):.3f} not in [{low}, {high}]"
        for key, bands in BANDS.items()
        for metric, (low, high) in bands.items()
        if not low <= golden.setting(key).metric(metric) <= high
    ]
    assert not outside, outside
    # the order the product's figures on the full corpus show: reranking helps both recipes, and graphiti's default
    # (BM25 + cosine with its 0.6 cosine floor) ranks below pure cosine before reranking
    value = {key: golden.setting(key).metric(METRIC) for key in BANDS}
    assert value[VECTOR_LOCAL] > value[VECTOR] and value[DEFAULT_LOCAL] > value[DEFAULT], value
    assert value[VECTOR] > value[DEFAULT], value


def test_the_recommendation_is_a_reranked_setting(golden: SweepResult) -> None:
    """Failed under the rule that refused every setting under 80% judged@k (5ffccae): on sparse judgments (TAT-QA
    lists only the relevant passage) every setting's top 10 is about 10% judged."""
    rec = golden.recommendation(METRIC)
    chosen = golden.setting(rec.key)
    assert rec.beats_baseline and chosen.setting.reranker == "local", rec.sentence
    assert rec.key != golden.baseline and rec.delta > 0, rec
    assert chosen.setting.label in rec.sentence, rec.sentence


async def test_the_loss_x_ray_agrees_with_the_sweep(lab: Lab, golden: SweepResult, tatqa_golden: Slice) -> None:  # noqa: F811
    """The X-ray's kept facts are the sweep's: for every sampled query, the share of its relevant facts it keeps is
    the sweep's recall@10 (the same `rank()`), every relevant fact is placed once, and the losses fall where the
    slice puts them (measured on the 120 queries' 152 relevant facts: vector keeps 99, graphiti-default 95; vector loses
    19 in no method's list, 8 cut by N and 26 below k, graphiti-default 12, 16 and 29; graphiti's 0.6 cosine floor
    holds back none on this corpus)."""
    ids = sorted({r.query_id for r in golden.rows})
    chosen = [setting("vector", N, "none", K), setting("graphiti-default", N, "none", K)]
    report = await lab.why.report(tatqa_golden.group_id, chosen, query_ids=ids)
    assert report.queries == SAMPLE
    for figures in report.settings:
        recall = golden.per_query(figures.setting, "recall@k")
        rows = [q for q in report.per_query if q.setting == figures.setting]
        assert {q.query_id for q in rows} == set(recall)
        for q in rows:
            assert q.count("kept") / len(q.facts) == pytest.approx(recall[q.query_id]), q.query_id
        assert sum(figures.counts.values()) == figures.relevant
        assert figures.counts["gone"] == figures.counts["filtered"] == figures.counts["floor"] == 0
        kept = figures.counts["kept"] / figures.relevant
        assert 0.55 <= kept <= 0.75, figures.counts
    # cosine alone: its list at depth 2 x 50 holds the facts N=100 would fuse, in the same order, so N=100 brings
    # exactly the facts cut by N, and N=200 no fewer
    vector = report.settings[0]
    gain = {w.label: w.would_reach - w.reached for w in vector.what_ifs}
    assert gain["N=100"] == vector.counts["cut_by_n"] > 0 and gain["N=200"] >= gain["N=100"], gain


def same_text(fact: str) -> str:
    """A fact's text as the local model and BM25 see it: MiniLM is uncased and BM25 lower-cases, so two facts that
    differ only in case or spacing ("CAPITAL EXPENDITURES" on two pages) tie in every score, and graphiti and the
    tool may order such twins differently."""
    return " ".join(fact.casefold().split())


async def test_the_exported_module_returns_the_tools_top_k(lab: Lab, golden: SweepResult, tmp_path: Path) -> None:
    """The recommended setting (graphiti-default+local N=50 k=10 while the recommendation is not reranked), written
    as a module and run through graphiti on the slice, returns the tool's top k: the very ranking the sweep scored
    (twins of the same text may trade places, see `same_text`)."""
    rec = golden.recommendation(METRIC)
    key = rec.key if golden.setting(rec.key).setting.reranker == "local" else DEFAULT_LOCAL
    chosen = golden.setting(key)
    path = tmp_path / "golden_setting.py"
    path.write_text(setting_module(golden, key, lab.settings, "golden TAT-QA slice"))
    module = load_module(path)
    assert (module.CANDIDATES, module.TOP_K) == (N, K)
    group = golden.spec.group_id
    graphiti = graphiti_for(lab, group, Failing())
    swept = {row.query_id: row.ranking[:K] for row in golden.rows if row.setting.key == key}
    for qid in sorted(swept)[:SHIPPED_QUERIES]:
        text = golden.queries[qid][0]
        exported = await module.retrieve(graphiti, text, [group])
        (tool,) = await rank(lab, text, group, [chosen.setting])
        assert [r.uuid for r in tool.results] == list(swept[qid]), (key, text)
        assert len(exported) == K, (key, text)
        facts = [same_text(edge.fact) for edge in exported]
        assert facts == [same_text(r.ranked.candidate.fact) for r in tool.results], (key, text)


GATE_BASELINE = Path(__file__).parents[1] / "fixtures" / "gate" / "tatqa_golden_baseline.json"


def test_the_gate_holds_against_the_baseline_kept_in_the_repository_and_catches_a_regression(
    golden: SweepResult, tmp_path: Path
) -> None:
    """The project's own CI gate: graphiti-default+local N=50 k=10 on the slice against the per-query numbers kept in
    `tests/fixtures/gate/` (written by `gate --save-baseline`). Pure vector search without reranking is a regression
    there; a bad setting is bad input."""
    group, junit = golden.spec.group_id, tmp_path / "gate.xml"
    baseline = ["--baseline", str(GATE_BASELINE)]
    same, worse, bad = gate(
        group,
        [*baseline, "--candidate", "graphiti-default:local:50:10", "--junit", str(junit)],
        [*baseline, "--candidate", "vector:none:50:10", "--json"],
        [*baseline, "--candidate", "vector:nothing:50:10"],
    )
    assert same.code == 0, same.out + same.err
    assert same.out.splitlines()[-1] == "gate holds"
    suite = ET.parse(junit).getroot()
    assert (suite.get("name"), suite.get("failures")) == ("retrieval-gate", "0")
    assert [case.get("name") for case in suite.findall("testcase")] == ["quality", "coverage"]

    assert worse.code == 1, worse.err
    report = json.loads(worse.out)
    quality = report["checks"][0]["numbers"]
    assert report["failed"] == ["quality"] and report["queries"] == SAMPLE and report["judgment_kind"] == "sparse"
    assert quality["ci_high"] < -quality["max_drop"] and quality["difference"] < -0.1, quality

    assert bad.code == 2 and "Traceback" not in bad.err
    assert bad.err.strip().startswith("error: --candidate must be [RECIPE:]RERANKER:N:K"), bad.err
