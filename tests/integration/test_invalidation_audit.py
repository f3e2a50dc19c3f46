"""The invalidation audit on graphs graphiti wrote itself (`add_episode` with the scripted LLM): a collateral
retirement (a revenue restatement that also retired the headquarters fact, as graphiti #1728 reports) is listed first
with its warning sign, the legitimate one beside it has none, and each names the fact that retired it, found from the
retiring write; the rule's parts on their own; the demo's recorded corrections; the CLI."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
from graphiti_core.nodes import EpisodeType

from pipeline.cli import main
from pipeline.lab import Lab
from pipeline.temporal.invalidations import audit as audit_facts
from pipeline.temporal.invalidations import replaceable, similarity
from pipeline.temporal.records import FactRow
from tests.support.graphiti_deal import GraphitiDeal, build_graphiti_deal, graphiti_deal  # noqa: F401
from tests.support.scripted_llm import Script, ScriptedEpisode, ScriptedFact

GROUP = "collateral-audit"
HQ = "Acme Analytics is headquartered in Boston"
CIM_REVENUE = "Acme Analytics reported FY2025 revenue of $4.9M"
AUDITED = "Acme Analytics's FY2025 revenue is $5.2M after the audit"
CEO = "Daniel Okafor is the Chief Executive Officer of Acme Analytics"

COLLATERAL = Script(
    episodes=(
        ScriptedEpisode(
            name="cim.pdf p3",
            source=EpisodeType.text,
            source_description="From: cim.pdf | Page 3",
            reference_time=datetime(2026, 1, 12, 9, tzinfo=UTC),
            content="Acme Analytics, headquartered in Boston, reported FY2025 revenue of $4.9M. Daniel Okafor is "
            "its Chief Executive Officer.",
            entities=("Acme Analytics", "Boston", "FY2025 revenue", "Daniel Okafor"),
            facts=(
                ScriptedFact("Acme Analytics", "Boston", "HEADQUARTERED_IN", HQ, valid_at="2026-01-12T09:00:00Z"),
                ScriptedFact(
                    "Acme Analytics", "FY2025 revenue", "REPORTED_REVENUE", CIM_REVENUE, valid_at="2025-12-31T00:00:00Z"
                ),
                ScriptedFact("Daniel Okafor", "Acme Analytics", "CEO_OF", CEO, valid_at="2026-01-12T09:00:00Z"),
            ),
        ),
        ScriptedEpisode(
            name="Q&A 12",
            source=EpisodeType.text,
            source_description="Q&A response | CFO",
            reference_time=datetime(2026, 3, 2, 16, tzinfo=UTC),
            content="After the audit, Acme Analytics's FY2025 revenue is $5.2M.",
            entities=("Acme Analytics", "FY2025 revenue"),
            facts=(
                # the restatement retires the CIM figure, and (wrongly) the headquarters fact the search showed it
                ScriptedFact(
                    "Acme Analytics",
                    "FY2025 revenue",
                    "REPORTED_REVENUE",
                    AUDITED,
                    valid_at="2026-03-02T16:00:00Z",
                    contradicts=(CIM_REVENUE, HQ),
                ),
            ),
        ),
    )
)


@pytest.fixture(scope="module")
async def collateral(lab: Lab) -> GraphitiDeal:
    if GROUP in await lab.backend.graph_names():
        await lab.backend.delete_graph(GROUP)
    deal = await build_graphiti_deal(lab.backend.falkor, lab.embedder, GROUP, COLLATERAL)
    assert deal.llm.failures == []
    return deal


async def test_the_collateral_retirement_comes_first_with_its_evidence(lab: Lab, collateral: GraphitiDeal) -> None:
    audit = await lab.temporal.invalidation_audit(GROUP)
    assert [r.fact.fact for r in audit.retirements] == [HQ, CIM_REVENUE]  # graphiti retired both; HQ first
    hq, revenue = audit.retirements
    assert hq.by is not None and hq.by.fact == AUDITED and hq.found == "episode"
    assert hq.replaceable is False and len(hq.signs) == 1 and "#1729" in hq.signs[0]
    assert revenue.by is not None and revenue.by.fact == AUDITED and revenue.found == "episode"
    assert revenue.replaceable is True and revenue.signs == ()
    assert hq.batch == revenue.batch == 1  # graphiti stamps each expiry on its own
    assert [r.fact.fact for r in audit.suspicious] == [HQ]
    assert audit.facts == 4


async def test_graphiti_s_own_deal_has_two_legitimate_retirements(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    audit = await lab.temporal.invalidation_audit(graphiti_deal.group_id)
    assert len(audit.retirements) == 2 and audit.suspicious == ()
    for retirement in audit.retirements:
        assert retirement.found == "episode" and retirement.replaceable
        assert retirement.by is not None and not retirement.by.superseded


def row(uuid: str, source: str, target: str, relation: str, fact: str, **dates: object) -> FactRow:
    fields = {"episodes": (), "valid_at": None, "expired_at": None, **dates}
    return FactRow(
        uuid, fact, relation, source, source, target, target, fields["episodes"], fields["valid_at"], None,
        fields["expired_at"], None, None, None, "document", "", None,
    )  # fmt: skip


def test_an_older_retiring_fact_a_batch_and_no_retiring_write_are_said() -> None:
    def day(d: int) -> datetime:
        return datetime(2026, 3, d, tzinfo=UTC)

    facts = [
        # retired on the 10th by episode e2's write, whose fact is older than it (valid from the 1st)
        row("old", "acme", "ceo", "CEO_OF", "Dana leads Acme", valid_at=day(5), expired_at=day(10)),
        row("new", "acme", "ceo", "CEO_OF", "Acme's CEO is Lee", valid_at=day(1), episodes=("e2",)),
        # three retired at one instant, long after any write: no retiring fact found
        *(row(f"b{i}", "x", f"y{i}", "R", f"fact {i}", valid_at=day(1), expired_at=day(20)) for i in range(3)),
    ]
    result = audit_facts("g", facts, {"e1": day(2), "e2": day(9).replace(hour=23, minute=30)})
    *batch, old = result.retirements  # one sign each: the larger batch first
    assert old.fact.uuid == "old" and old.by is not None and old.by.uuid == "new" and old.older
    assert old.found == "episode" and len(old.signs) == 1 and "older" in old.signs[0]
    assert [r.batch for r in batch] == [3, 3, 3] and all(r.found == "none" and r.by is None for r in batch)
    assert old.batch == 1 and len(result.suspicious) == 4


def test_the_replacement_rule_and_the_words_in_common() -> None:
    old = row("o", "acme", "revenue", "REPORTED_REVENUE", "Acme reported revenue of $4.9M")
    assert replaceable(old, row("n", "acme", "revenue", "RESTATED", "x"))  # the same two entities
    assert replaceable(old, row("n", "revenue", "acme", "RESTATED", "x"))  # either way round
    assert replaceable(old, row("n", "acme", "fy26", "REPORTED_REVENUE", "x"))  # one end, same place, same relation
    assert not replaceable(old, row("n", "acme", "fy26", "GUIDED_REVENUE", "x"))  # one end, another relation
    assert not replaceable(old, row("n", "fy26", "acme", "REPORTED_REVENUE", "x"))  # one end, in another place
    assert not replaceable(old, row("n", "boston", "hq", "REPORTED_REVENUE", "x"))
    # words: acme revenue was 4 9m / acme revenue is 5 2m
    assert similarity("Acme revenue was $4.9M", "acme REVENUE is $5.2M") == pytest.approx(2 / 8)
    assert similarity("", "") == 0.0


async def test_the_demo_s_corrections_are_recorded_and_none_is_suspect(lab: Lab, demo: str) -> None:
    audit = await lab.temporal.invalidation_audit(demo)
    facts = await lab.temporal.load_facts(demo)
    assert len(audit.retirements) == sum(1 for f in facts if f.expired_at is not None) > 0
    assert all(r.found == "recorded" and r.replaceable for r in audit.retirements)
    assert audit.suspicious == ()


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def test_the_cli_lists_suspects_first_and_refuses_bad_input_in_one_line(
    lab: Lab, collateral: GraphitiDeal, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await cli("invalidations", "--group", GROUP) == 0
    out = capsys.readouterr().out
    assert "2 retired by a write, 1 with a warning sign" in out
    assert out.index("SUSPECT") < out.index(HQ) < out.index(CIM_REVENUE)
    assert await cli("invalidations", "--group", GROUP, "--suspicious", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["fact"] for r in data["retirements"]] == [HQ] and data["retirements"][0]["retired_by_fact"] == AUDITED
    assert await cli("invalidations", "--group", "no-such-deal") == 2
    err = capsys.readouterr().err.strip()
    assert "no-such-deal" in err and len(err.splitlines()) == 1
