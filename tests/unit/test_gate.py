"""The regression gate's decisions on hand-made per-query numbers: quality (the paired interval against the allowed
drop), coverage (sparse vs pooled judgments), latency, the JUnit report and the baseline file."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import InvalidInput
from pipeline.evaluation.coverage import COVERAGE_GAP, POOLED, SPARSE
from pipeline.evaluation.records import PoolGap
from pipeline.evaluation.significance import paired_interval
from pipeline.gate.checks import coverage_check, evaluate, pool_gap, quality_check
from pipeline.gate.files import baseline_from_dict, baseline_to_dict, junit_xml
from pipeline.gate.records import TIE, Limits, Selection, Side, StoredBaseline
from pipeline.retrieval.recipes import CUSTOM, PRESETS
from pipeline.retrieval.setting import Setting, setting

BASE = setting("graphiti-default", 50, "local", 10)
CAND = setting("vector", 50, "none", 10)
# 30 queries with spread: a setting's per-query nDCG
SCORES = [round(0.2 + 0.7 * ((i * 37) % 30) / 30, 4) for i in range(30)]


def side(values: list[float], judged: list[float] | None = None, at: object = BASE, p95: float | None = None) -> Side:
    ids = [f"q{i:02d}" for i in range(len(values))]
    judged_by = dict(zip(ids, judged, strict=True)) if judged is not None else {q: 0.5 for q in ids}
    return Side(at, dict(zip(ids, values, strict=True)), judged_by, {}, p95)  # type: ignore[arg-type]


# --- quality ------------------------------------------------------------------------------------------


def test_a_clear_drop_beyond_the_allowed_one_is_a_regression() -> None:
    worse = [v - 0.15 + (0.01 if i % 2 else -0.01) for i, v in enumerate(SCORES)]
    check = quality_check("ndcg@10", side(SCORES), side(worse, at=CAND), max_drop=0.01)
    assert not check.passed
    assert check.numbers["ci_high"] < -0.01
    assert check.line.startswith("FAIL quality: ndcg@10 ")
    assert "(-0.150, 95% CI " in check.line and ", 30 queries), beyond the allowed drop of 0.010" in check.line


def test_a_drop_inside_the_noise_holds() -> None:
    noisy = [v + (0.3 if i % 2 else -0.32) for i, v in enumerate(SCORES)]  # mean -0.01, spread 0.3 a query
    check = quality_check("ndcg@10", side(SCORES), side(noisy, at=CAND), max_drop=0.0)
    assert check.numbers["difference"] == pytest.approx(-0.01)
    assert check.numbers["ci_low"] < 0 < check.numbers["ci_high"]  # a drop, but not a clear one
    assert check.passed and "not clearly beyond the allowed drop of 0.000" in check.line


def test_a_drop_smaller_than_allowed_holds_even_when_it_is_certain() -> None:
    check = quality_check("ndcg@10", side(SCORES), side([v - 0.005 for v in SCORES], at=CAND), max_drop=0.01)
    assert check.numbers["ci_high"] == pytest.approx(-0.005)  # every query drops by 0.005: the interval is that
    assert check.passed


def test_a_gain_holds() -> None:
    better = [v + 0.05 + 0.01 * (i % 3) for i, v in enumerate(SCORES)]
    check = quality_check("ndcg@10", side(SCORES), side(better, at=CAND), max_drop=0.0)
    assert check.passed and check.line.endswith(", no drop")
    assert check.numbers["ci_low"] > 0


def test_the_interval_ends_move_with_the_candidate_and_sit_around_the_mean() -> None:
    cand = [v + (0.2 if i % 3 == 0 else -0.1) for i, v in enumerate(SCORES)]  # mean difference 0
    one = quality_check("ndcg@10", side(SCORES), side(cand, at=CAND), 0.01).numbers
    shifted = quality_check("ndcg@10", side(SCORES), side([v - 0.04 for v in cand], at=CAND), 0.01).numbers
    assert one["ci_low"] < one["difference"] < one["ci_high"]
    # the same resamples (fixed seed) of differences all 0.04 lower: both ends move by exactly 0.04
    assert shifted["ci_low"] == pytest.approx(one["ci_low"] - 0.04)
    assert shifted["ci_high"] == pytest.approx(one["ci_high"] - 0.04)
    line = quality_check("ndcg@10", side(SCORES), side(cand, at=CAND), 0.01).line
    assert f"95% CI {one['ci_low']:+.3f} to {one['ci_high']:+.3f}" in line


def test_a_uniform_drop_of_exactly_the_allowed_size_holds_and_a_larger_one_fails() -> None:
    base = side(SCORES)
    assert quality_check("ndcg@10", base, side([v - 0.05 for v in SCORES]), max_drop=0.05).passed
    failed = quality_check("ndcg@10", base, side([v - 0.06 for v in SCORES]), max_drop=0.05)
    assert not failed.passed and failed.numbers["ci_low"] == failed.numbers["ci_high"]  # degenerate: the mean


def test_the_candidate_must_cover_the_baselines_queries() -> None:
    with pytest.raises(ValueError, match="not ranked on 1"):
        quality_check("ndcg@10", side([0.5, 0.6]), side([0.5]), 0.01)


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.floats(0, 1, allow_nan=False), st.floats(0, 1, allow_nan=False)), min_size=1, max_size=25
    ),
    max_drop=st.floats(0, 0.5, allow_nan=False),
)
def test_regression_exactly_when_the_intervals_upper_end_is_below_the_allowed_drop(
    pairs: list[tuple[float, float]], max_drop: float
) -> None:
    base, cand = [a for a, _ in pairs], [b for _, b in pairs]
    verdict = evaluate("ndcg@10", side(base), side(cand, at=CAND), SPARSE, Limits(max_drop))
    upper = paired_interval(base, cand).high
    assert ("quality" in verdict.failed) == (upper < -max_drop - TIE)
    if all(b >= a for a, b in pairs):  # no query worse: never a regression
        assert verdict.holds


# --- paired_interval ----------------------------------------------------------------------------------


def test_paired_interval_on_degenerate_input_is_the_mean_difference() -> None:
    one = paired_interval([0.4], [0.1])
    assert (one.n, one.mean, one.low, one.high) == (1, pytest.approx(-0.3), pytest.approx(-0.3), pytest.approx(-0.3))
    same = paired_interval([0.1, 0.5, 0.9], [0.3, 0.7, 1.1])  # every difference 0.2
    assert same.low == same.mean == same.high == pytest.approx(0.2)
    assert paired_interval([], []).n == 0
    with pytest.raises(ValueError, match="differ in length"):
        paired_interval([0.1, 0.2], [0.1])


def test_paired_interval_resamples_pairs_not_the_two_lists_apart() -> None:
    # big differences between queries, the same small gain on each but one: a paired interval is narrow
    base = [0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6]
    cand = [b + 0.05 for b in base[:-1]] + [base[-1] + 0.06]
    interval = paired_interval(base, cand)
    assert 0.05 <= interval.low <= interval.mean <= interval.high <= 0.06
    assert interval.mean == pytest.approx(float(np.mean(np.array(cand) - np.array(base))))


# --- coverage -----------------------------------------------------------------------------------------


def test_coverage_on_sparse_judgments_passes_and_says_why() -> None:
    check = coverage_check(SPARSE, side(SCORES, [0.3] * 30), side(SCORES, [0.1] * 30, at=CAND))
    assert check.passed
    assert check.line.startswith("PASS coverage: sparse judgments") and "relevance here, not coverage" in check.line
    assert "judged@k 0.30 -> 0.10" in check.line


def test_coverage_on_pooled_judgments_fails_when_the_candidate_rests_on_unjudged_facts() -> None:
    base = side([0.5, 0.5], [1.0, 0.9])
    cand = side([0.6, 0.6], [0.6, 0.7], at=CAND)
    base = Side(base.setting, base.values, base.judged, {"q00": ("a", "b"), "q01": ("c",)})
    cand = Side(cand.setting, cand.values, cand.judged, {"q00": ("a", "x", "y"), "q01": ("c", "z"), "q99": ("w",)})
    qrels = {"q00": {"a": 1, "b": 0}, "q01": {"c": 2}}
    gap = pool_gap(base, cand, qrels, "demo", "set:team set")
    assert gap.pairs == 3  # x, y, z (q99 is not one of the gate's queries)
    check = coverage_check(POOLED, base, cand, gap)
    assert not check.passed
    assert "judged@k 0.95 -> 0.65 on pooled judgments, 0.30 below the baseline" in check.line
    assert "Judge the 3 unjudged pairs in the two top k" in check.line
    assert (
        "python -m pipeline pool build --group demo --set 'team set' --setting graphiti-default:local:50:10 "
        "--setting vector:none:50:10 --by NAME" in check.line
    )
    assert check.numbers["unjudged_pairs"] == 3


def test_coverage_on_pooled_judgments_holds_within_the_gap() -> None:
    base = side([0.5, 0.5], [0.9, 0.9])
    exactly = side([0.5, 0.5], [0.9 - COVERAGE_GAP, 0.9 - COVERAGE_GAP], at=CAND)  # 0.85: float noise is no gap
    assert coverage_check(POOLED, base, exactly).passed
    beyond = side([0.5, 0.5], [0.8, 0.8], at=CAND)
    assert not coverage_check(POOLED, base, beyond).passed


def test_coverage_unmeasured_on_an_old_experiment_passes_and_says_so() -> None:
    base = Side(BASE, {"q1": 0.5}, None)
    check = coverage_check(POOLED, base, side([0.5], [0.2], at=CAND))
    assert check.passed and "not measured" in check.line


# --- latency and the verdict --------------------------------------------------------------------------


def test_latency_is_checked_only_with_a_budget() -> None:
    base, cand = side(SCORES, p95=80.0), side(SCORES, at=CAND, p95=120.0)
    assert [c.name for c in evaluate("ndcg@10", base, cand, SPARSE, Limits()).checks] == ["quality", "coverage"]
    within = evaluate("ndcg@10", base, cand, SPARSE, Limits(p95_budget_ms=120.0))
    assert within.holds and within.checks[-1].line == (
        "PASS latency: candidate p95 120 ms within the budget of 120 ms (baseline p95 80 ms)"
    )
    over = evaluate("ndcg@10", base, cand, SPARSE, Limits(p95_budget_ms=119.5))
    assert over.failed == ("latency",) and over.last_line == "gate fails: latency"
    assert over.checks[-1].line.startswith("FAIL latency: candidate p95 120 ms over the budget of 120 ms")


# --- JUnit --------------------------------------------------------------------------------------------


def test_junit_has_one_testcase_per_check_and_a_failure_on_the_failing_one() -> None:
    base = side(SCORES, [0.9] * 30, p95=50.0)
    cand = side([v - 0.2 for v in SCORES], [0.9] * 30, at=CAND, p95=40.0)
    hostile = PoolGap(2, 'deal<&>"\x01', "set\x1b]8;;x", ("a", "b"))
    verdict = evaluate("ndcg@10", base, cand, POOLED, Limits(0.01, 100.0), hostile)
    suite = ET.fromstring(junit_xml(verdict))
    assert suite.tag == "testsuite" and suite.get("name") == "retrieval-gate"
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["quality", "coverage", "latency"]
    assert [c.find("failure") is not None for c in cases] == [True, False, False]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("message", "").startswith("FAIL quality: ndcg@10")
    out = cases[0].findtext("system-out") or ""
    assert "ci_high: " in out and "max_drop: 0.01" in out
    # a failing pooled coverage line carries graph/user text: escaped, control characters dropped, still XML
    failing = evaluate("ndcg@10", base, side(SCORES, [0.1] * 30, at=CAND), POOLED, Limits(), hostile)
    suite = ET.fromstring(junit_xml(failing))
    message = suite.findall("testcase")[1].find("failure").get("message", "")  # type: ignore[union-attr]
    assert "deal<&>" in message and "\x01" not in message and "\x1b" not in message


# --- settings and baseline files ----------------------------------------------------------------------


def test_a_setting_file_reads_to_dicts_shape_and_a_search_config() -> None:
    assert Setting.from_dict(BASE.to_dict(), "p.json") == BASE
    config = PRESETS["graphiti-default"].model_copy(deep=True)
    assert config.edge_config is not None
    config.edge_config.sim_min_score = 0.3
    as_object = {
        "search_config": json.loads(config.model_dump_json()),
        "candidates": 50,
        "reranker": "none",
        "top_k": 5,
    }
    custom = Setting.from_dict(as_object, "p.json")
    assert custom.recipe.name == CUSTOM and custom.top_k == 5
    assert Setting.from_dict({**as_object, "search_config": config.model_dump_json()}, "p.json") == custom


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "not a setting"),
        ({"recipe": "vector", "candidates": 50, "reranker": "local"}, "top_k: Field required"),
        ({**BASE.to_dict(), "extra": 1}, "extra: Extra inputs are not permitted"),
        ({**BASE.to_dict(), "candidates": "50"}, "candidates: Input should be a valid integer"),
        ({**BASE.to_dict(), "reranker": "magic"}, "unknown reranker 'magic'"),
        ({**BASE.to_dict(), "first_stage": "vector_index"}, "exact search only"),
        ({**BASE.to_dict(), "recipe": "nope"}, "Unknown recipe 'nope'"),
        ({**BASE.to_dict(), "top_k": 60}, "cannot exceed"),
        ({**BASE.to_dict(), "search_config": {"edge_config": 3}}, "search_config: not a graphiti SearchConfig"),
    ],
)
def test_anything_else_is_refused_in_one_line(data: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=r"^p\.json: ") as refused:
        Setting.from_dict(data, "p.json")
    assert message in str(refused.value) and "\n" not in str(refused.value)


def _stored() -> StoredBaseline:
    accepted = Side(BASE, {"q1": 0.5, "q2": 1 / 3}, {"q1": 0.2, "q2": 0.1}, {"q1": ("a", "b")}, 81.5)
    judgments = {"source": "labelled", "name": "Labelled query set", "queries": 2, "judgments": 3, "hash": "ab"}
    return StoredBaseline("demo", "ndcg@10", accepted, SPARSE, judgments, Selection(sample=20, seed=3), "2026-11-30")


def test_a_baseline_file_reads_back_as_written() -> None:
    stored = _stored()
    back = baseline_from_dict(json.loads(json.dumps(baseline_to_dict(stored))), "b.json")
    assert back.side == stored.side  # every float exactly: the same candidate measures a zero difference
    assert back.selection == Selection(sample=20, seed=3, query_ids=("q1", "q2"))
    assert (back.group_id, back.metric, back.kind, back.judgments) == ("demo", "ndcg@10", SPARSE, stored.judgments)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gate_baseline": 2}, "baseline format 2"),
        ({"values": {}}, "values: Dictionary should have at least 1 item"),
        ({"values": {"q1": float("nan"), "q2": 0.1}}, "values.q1: Input should be a finite number"),
        ({"judged": {"q1": 0.2}}, "judged and values name different queries"),
        ({"metric": "ndcg@7"}, "Unknown metric 'ndcg@7'"),
        ({"selection": {"judgments": "labelled", "sample": 0}}, "selection.sample"),
        ({"setting": {"recipe": "vector"}}, "b.json: setting: not a setting"),
        ({"judgments": {"source": "labelled"}}, "judgments.hash: Field required"),
    ],
)
def test_a_damaged_baseline_file_is_refused_in_one_line(change: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=r"^b\.json: ") as refused:
        baseline_from_dict({**baseline_to_dict(_stored()), **change}, "b.json")
    assert message in str(refused.value) and "\n" not in str(refused.value)
