"""The auto-merge operating point: on the demo's labelled pairs, the lowest threshold keeping a chosen precision for
graphiti's deterministic rule and for this tool's score, checked against a count made here; every merge and rejection
made on a deal joins the labels; the CLI hands the threshold over as the line that sets graphiti's, and refuses a
precision outside (0, 1] in one line before printing anything."""

from __future__ import annotations

import asyncio
import json

import pytest

from pipeline.cli import main
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.merges.labelled import LabelledPair
from pipeline.merges.operating import graphiti_score, operating_points
from pipeline.merges.scoring import THRESHOLDS

COPY = "demo_operating"


def lowest_meeting(scored: list[tuple[float, bool]], target: float) -> float | None:
    """Counted here: the smallest threshold whose merges (score >= it) are right at least `target` of the time."""
    for t in THRESHOLDS:
        merged = [same for score, same in scored if score >= t]
        if merged and sum(merged) / len(merged) >= target:
            return t
    return None


@pytest.fixture(scope="module")
async def demo_pairs(lab: Lab, demo: str) -> list[LabelledPair]:
    evaluation = await lab.ingest.labelled_evaluation(demo)
    assert evaluation is not None
    return list(evaluation.pairs)


@pytest.mark.parametrize("target", [0.8, 0.95, 1.0])
async def test_the_operating_point_is_the_lowest_threshold_keeping_the_precision(
    demo_pairs: list[LabelledPair], target: float
) -> None:
    points = operating_points(demo_pairs)
    assert points is not None and len(points.pairs) == len(demo_pairs) > 10
    for rule, scored in (
        ("graphiti", [(graphiti_score(p.name_a, p.name_b), p.same) for p in demo_pairs]),
        ("score", [(p.signals.score, p.same) for p in demo_pairs]),
    ):
        point = points.at_precision(rule, target)
        expected = lowest_meeting(scored, target)
        assert (point.threshold if point else None) == expected, rule
        if point is not None:
            merged = [same for score, same in scored if score >= point.threshold]
            assert point.true_positives == sum(merged) and point.false_positives == len(merged) - sum(merged)


def test_graphiti_s_rule_as_graphiti_applies_it() -> None:
    assert graphiti_score("Acme  Analytics", "acme analytics") == 1.0  # the same exact key
    assert 0.0 < graphiti_score("Northwind Logistics", "Northwind Logistics Inc") < 1.0  # shingles
    assert graphiti_score("HFS", "HFS Co") == 0.0  # short names: graphiti's entropy gate sends them to its LLM


@pytest.fixture(scope="module")
async def copy(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=COPY, force=True)
    return COPY


async def test_merges_and_rejections_made_on_a_deal_are_labels(lab: Lab, copy: str) -> None:
    merges = await lab.merges.list_merges(copy)
    reviewed = await lab.merges.reviewed_pairs(copy)
    assert {frozenset((p.name_a, p.name_b)) for p in reviewed if p.same} == {
        frozenset((m.record.alias_name, m.record.canonical_name)) for m in merges
    }
    assert not [p for p in reviewed if not p.same]
    entities = {e.name: e.uuid for e in await lab.merges.list_entities(copy)}
    await lab.merges.reject_pair(copy, entities["Revenue"], entities["Net Revenue"], "Ana")
    rejected = [p for p in await lab.merges.reviewed_pairs(copy) if not p.same]
    assert [frozenset((p.name_a, p.name_b)) for p in rejected] == [frozenset(("Revenue", "Net Revenue"))]


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def test_the_cli_hands_over_graphiti_s_threshold(
    lab: Lab, demo: str, demo_pairs: list[LabelledPair], capsys: pytest.CaptureFixture[str]
) -> None:
    assert await cli("duplicates", "--group", demo, "--limit", "1", "--precision", "0.95", "--json") == 0
    point = json.loads(capsys.readouterr().out)["operating_point"]
    expected = operating_points(demo_pairs)
    assert expected is not None
    chosen = expected.at_precision("graphiti", 0.95)
    assert chosen is not None and point["rules"]["graphiti"]["threshold"] == chosen.threshold
    assert f"dedup_helpers._FUZZY_JACCARD_THRESHOLD = {chosen.threshold:.2f}" in point["graphiti_setting"]
    assert point["pairs"] == len(demo_pairs) and point["graphiti_default"]["threshold"] == 0.9
    for bad in ("0", "1.5", "-0.2"):
        assert await cli("duplicates", "--group", demo, "--precision", bad) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and "--precision" in err
