"""Groups that share one FalkorDB graph (tests/support/shared_graph.py): `legacy-alpha`, `legacy-beta` and
graphiti's default group `_`, all in graphiti's default graph `default_db`, written by graphiti's `add_episode`.

Each is found (`deals`), queried (`query --group`) and evaluated (`eval` on a small labelled set) on the command
line, and no fact, entity or count of one group ever shows in another's. Writes on one group (a correction and
its undo, deleting the deal) leave the other groups exactly as they were.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities, undo_merge
from pipeline.query_sets.sets import delete_query_set
from tests.support.dump import dump_deal
from tests.support.graphiti_deal import GraphitiDeal
from tests.support.shared_graph import ALPHA, BETA, COMPANIES, DEFAULT_GROUP, SHARED_GRAPH, build_shared_graph

GROUPS = [c.group_id for c in COMPANIES]
SET_NAME = "shared graph"
QUERIES = {
    "revenue": "What was the FY2025 revenue?",
    "hq": "Where is the company headquartered?",
}


async def run(command: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = await asyncio.to_thread(main, command)
    captured = capsys.readouterr()
    return code, captured.out if code == 0 else captured.err


@pytest.fixture(scope="module")
async def shared(lab: Lab) -> AsyncIterator[dict[str, GraphitiDeal]]:
    if SHARED_GRAPH in await lab.backend.graph_names():
        await lab.backend.falkor.select_graph(SHARED_GRAPH).delete()  # type: ignore[union-attr]
    built = await build_shared_graph(lab.backend.falkor, lab.embedder)
    yield built
    for group in GROUPS:
        delete_query_set(lab.store, group, SET_NAME)
    if SHARED_GRAPH in await lab.backend.graph_names():
        await lab.backend.falkor.select_graph(SHARED_GRAPH).delete()  # type: ignore[union-attr]
    lab.backend.graphs.clear()


async def facts_of(lab: Lab, group: str) -> dict[str, str]:
    """uuid -> text of the group's facts, read straight from the shared graph (not through the tool)."""
    graph = lab.backend.falkor.select_graph(SHARED_GRAPH)  # type: ignore[union-attr]
    result = await graph.ro_query(
        "MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g RETURN e.uuid, e.fact", params={"g": group}
    )
    return {uuid: fact for uuid, fact in result.result_set}


async def test_the_groups_share_one_graph_as_graphiti_wrote_them(lab: Lab, shared: dict[str, GraphitiDeal]) -> None:
    names = set(await lab.backend.graph_names())
    assert SHARED_GRAPH in names and not names & set(GROUPS)  # no graph of their own
    for deal in shared.values():
        assert not deal.llm.failures
        assert len(await facts_of(lab, deal.group_id)) == deal.expected.facts == 3


async def test_every_group_is_found_with_its_own_counts(
    lab: Lab, shared: dict[str, GraphitiDeal], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = await run(["deals", "--json"], capsys)
    assert code == 0
    rows = {r["group"]: r for r in json.loads(out)["deals"]}
    assert set(GROUPS) <= rows.keys()
    assert SHARED_GRAPH not in rows  # a graph is not a deal; its groups are
    for group, deal in shared.items():
        row = rows[group]
        expected = deal.expected
        assert (row["entities"], row["episodes"], row["facts"], row["superseded_facts"]) == (
            expected.entities,
            expected.episodes,
            expected.facts,
            expected.superseded,
        )
        assert (row["vector_dim"], row["source"]) == (384, "graphiti")
    code, out = await run(["status"], capsys)
    assert code == 0 and all(group in out for group in GROUPS)


@pytest.mark.parametrize("recipe", ["graphiti-default", "hybrid-walk", "bm25"])
async def test_a_query_on_one_group_returns_only_its_facts(
    lab: Lab, shared: dict[str, GraphitiDeal], capsys: pytest.CaptureFixture[str], recipe: str
) -> None:
    for company in COMPANIES:
        own = await facts_of(lab, company.group_id)
        for text in [*QUERIES.values(), *(f"{c.name} FY2025 revenue" for c in COMPANIES)]:
            command = ["query", text, "--group", company.group_id, "--recipe", recipe, "--reranker", "none"]
            code, out = await run([*command, "--include-superseded", "--json"], capsys)
            assert code == 0, out
            run_ = json.loads(out)
            found = {c["uuid"]: c["fact"] for c in run_["candidates"]}
            assert found.keys() <= own.keys(), (company.group_id, text, found)
            assert found or company.name not in text  # the group's own name finds its facts
            assert all(company.name in fact for fact in found.values())
        code, out = await run(["query", f"{company.name} FY2025 revenue", "--group", company.group_id], capsys)
        assert code == 0 and company.restated_fact in out
        assert not any(other.name in out for other in COMPANIES if other is not company)


async def test_each_group_is_evaluated_on_its_own_labelled_set(
    lab: Lab, shared: dict[str, GraphitiDeal], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for company in COMPANIES:
        facts = {text: uuid for uuid, text in (await facts_of(lab, company.group_id)).items()}
        folder = tmp_path / (company.group_id.strip("_") or "default")
        folder.mkdir()
        lines = [json.dumps({"_id": key, "text": text}) for key, text in QUERIES.items()]
        (folder / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        qrels = [("revenue", facts[company.restated_fact]), ("hq", facts[company.city_fact])]
        (folder / "qrels.tsv").write_text("".join(f"{q}\t{u}\t2\n" for q, u in qrels), encoding="utf-8")
        importing = ["import-queries", str(folder), "--group", company.group_id, "--name", SET_NAME]
        assert (await run(importing, capsys))[0] == 0
        evaluating = ["eval", "--group", company.group_id, "--judgments", f"set:{SET_NAME}", "--recipes", "bm25"]
        evaluating += ["--candidates", "10", "--top-k", "2", "--reranker", "none", "--json"]
        code, out = await run(evaluating, capsys)
        assert code == 0, out
        result = json.loads(out)
        assert result["group"] == company.group_id
        [row] = [r for r in result["rows"] if r["recipe"] == "bm25"]  # beside the baseline
        # each query's judged fact in its top 2: nothing of another company ranked above it
        assert (result["eval_set"]["scorable"], row["recall@k"]) == (2, pytest.approx(1.0)), row


async def test_no_vector_index_over_a_read_only_group_sharing_the_graph(
    lab: Lab, shared: dict[str, GraphitiDeal], capsys: pytest.CaptureFixture[str]
) -> None:
    await lab.set_read_only(BETA, True, "Ana")
    try:
        code, err = await run(["vector-index", "--group", ALPHA], capsys)
        assert code == 2 and "'legacy-beta' is attached read-only" in err and "'default_db'" in err
        assert len(err.strip().splitlines()) == 1
        assert await lab.backend.cypher.fact_vector_index(ALPHA) is None
    finally:
        await lab.set_read_only(BETA, False, "Ana")


async def test_the_vector_index_of_a_shared_graph_answers_for_the_group(
    lab: Lab, shared: dict[str, GraphitiDeal], capsys: pytest.CaptureFixture[str]
) -> None:
    """One index serves every group of the graph: the group's nearest facts are found even when the index's
    first answers are all another group's."""
    code, out = await run(["vector-index", "--group", ALPHA, "--json"], capsys)
    assert code == 0, out
    own = await facts_of(lab, ALPHA)
    for text in ["Birch Foods FY2025 revenue", "Cobalt Mining headquartered in Reno", QUERIES["revenue"]]:
        command = ["query", text, "--group", ALPHA, "--recipe", "vector", "--first-stage", "vector_index"]
        code, out = await run([*command, "--candidates", "1", "--top-k", "1", "--include-superseded", "--json"], capsys)
        assert code == 0, out
        found = [c["uuid"] for c in json.loads(out)["candidates"]]
        assert len(found) == 1 and set(found) <= own.keys(), (text, found)


async def test_a_correction_and_its_undo_touch_only_their_group(lab: Lab, shared: dict[str, GraphitiDeal]) -> None:
    await lab.deals()  # discovery: where each group is
    others = {g: await dump_deal(lab.backend, g) for g in (BETA, DEFAULT_GROUP)}
    before = await dump_deal(lab.backend, ALPHA)
    company = COMPANIES[0]
    old = next(u for u, text in (await facts_of(lab, ALPHA)).items() if text == company.city_fact)
    moved = "Alder Robotics is headquartered in Boulder."
    request = CorrectionRequest(old, moved, "qa_response", "CFO", date(2026, 4, 1))
    correction = await correct_fact(lab, ALPHA, request, actor="Ana")
    assert len(await facts_of(lab, ALPHA)) == 4
    assert {g: await dump_deal(lab.backend, g) for g in others} == others
    await undo_correction(lab, ALPHA, correction.id, actor="Ana")
    assert await dump_deal(lab.backend, ALPHA) == before
    assert {g: await dump_deal(lab.backend, g) for g in others} == others


async def test_a_merge_and_its_undo_touch_only_their_group(lab: Lab, shared: dict[str, GraphitiDeal]) -> None:
    await lab.deals()
    others = {g: await dump_deal(lab.backend, g) for g in (BETA, DEFAULT_GROUP)}
    before = await dump_deal(lab.backend, ALPHA)
    entities = {n["props"]["name"]: n["props"]["uuid"] for n in before["nodes"] if "Entity" in n["labels"]}
    merge = await merge_entities(lab, ALPHA, entities["Denver"], entities["Alder Robotics"], "Ana")
    assert await dump_deal(lab.backend, ALPHA) != before
    assert {g: await dump_deal(lab.backend, g) for g in others} == others
    await undo_merge(lab, ALPHA, merge.uuid, "Ana")
    assert await dump_deal(lab.backend, ALPHA) == before
    assert {g: await dump_deal(lab.backend, g) for g in others} == others


async def test_deleting_a_group_leaves_the_others_in_their_graph(lab: Lab, shared: dict[str, GraphitiDeal]) -> None:
    others = {g: await dump_deal(lab.backend, g) for g in (ALPHA, DEFAULT_GROUP)}
    await lab.deals()
    await lab.backend.delete_graph(BETA)
    assert SHARED_GRAPH in await lab.backend.graph_names()
    assert {g: await dump_deal(lab.backend, g) for g in others} == others
    assert BETA not in {d.group_id for d in await lab.deals()}
    assert {ALPHA, DEFAULT_GROUP} <= {d.group_id for d in await lab.deals()}
