"""`pipeline duplicates` on the deal graphiti wrote (tests/support/graphiti_deal.py), where graphiti's own dedup left
"Acme Analytics" and "Acme Analytics, Inc." two entities: that pair comes first, named by its core name, with the
entities a fact links to both counted as the graph has them; and on the demo, exact and core names come first."""

from __future__ import annotations

import asyncio
import json

import pytest

from pipeline.cli import main
from pipeline.lab import Lab
from tests.support.graphiti_deal import GraphitiDeal, graphiti_deal  # noqa: F401


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def test_graphiti_s_missed_duplicate_comes_first_with_its_shared_neighbours(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    group = graphiti_deal.group_id
    assert await cli("duplicates", "--group", group, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    first = data["candidates"][0]
    assert {first["canonical"], first["alias"]} == {"Acme Analytics", "Acme Analytics, Inc."}
    assert first["kind"] == "same core name" and first["score"] >= 0.9
    facts = await lab.temporal.load_facts(group)

    def linked(uuid: str) -> set[str]:
        ends = ({f.source_uuid, f.target_uuid} for f in facts)
        return {e for pair in ends if uuid in pair for e in pair} - {uuid}

    both = linked(first["canonical_uuid"]) & linked(first["alias_uuid"])
    assert first["shared_neighbours"] == len(both - {first["canonical_uuid"], first["alias_uuid"]})
    assert [c["score"] for c in data["candidates"]] == sorted((c["score"] for c in data["candidates"]), reverse=True)
    assert await cli("duplicates", "--group", group, "--limit", "1") == 0
    out = capsys.readouterr().out
    assert "same core name 'Acme Analytics" in out and len(out.strip().splitlines()) == 2
    assert await cli("duplicates", "--group", "no-such-deal") == 2
    err = capsys.readouterr().err.strip()
    assert "no-such-deal" in err and len(err.splitlines()) == 1


async def test_on_the_demo_names_come_first(lab: Lab, demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert await cli("duplicates", "--group", demo, "--json") == 0
    kinds = [c["kind"] for c in json.loads(capsys.readouterr().out)["candidates"]]
    named = [k for k in kinds if k != "similar"]
    assert named and kinds[: len(named)] == named  # every exact or core name match before any other pair
