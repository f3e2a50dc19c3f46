"""Fact corrections on the real embedded FalkorDB, on a deal of their own (never the shared demo)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from pipeline.audit import audit_log
from pipeline.corrections import graph as correction_graph
from pipeline.corrections import repo as correction_repo
from pipeline.corrections.actions import (
    ACTION_CORRECT,
    ACTION_UNDO,
    CorrectionRefused,
    CorrectionRequest,
    correct_fact,
    list_corrections,
    undo_correction,
)
from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.temporal.records import FactSelection
from pipeline.temporal.supersession import supersession_links
from pipeline.temporal.timeline import as_of, load_facts
from tests.support.dump import dump_deal

DEAL = "demo_corrections"
CASH = stable_uuid(DEAL, "fact", "f216")  # "Halcyon's cash balance was $1.6 million at February 28, 2026."
SUPERSEDED = stable_uuid(DEAL, "fact", "f227")  # an MFA finding superseded by f314
NEW_TEXT = "Halcyon's cash balance was $1.45 million at March 31, 2026, after the litigation settlement."
QUERY = "What is Halcyon's cash balance?"


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    return DEAL


def request(**changes: object) -> CorrectionRequest:
    base = {
        "fact_uuid": CASH,
        "statement": NEW_TEXT,
        "channel": "qa_response",
        "author": "Dana Whitfield (CFO, Halcyon)",
        "valid_at": date(2026, 4, 2),
        "source_text": "Q: What is the cash balance now?\nA: $1.45 million at March 31, after the settlement.",
    }
    return CorrectionRequest(**{**base, **changes})  # type: ignore[arg-type]


async def current_uuids(lab: Lab, query: str, **kwargs: object) -> tuple[set[str], set[str]]:
    run = await retrieve(lab, query, DEAL, 50, 10, "none", **kwargs)  # type: ignore[arg-type]
    return {c.uuid for c in run.candidates}, {r.uuid for r in run.results}


async def test_correct_then_undo_restores_the_graph_exactly(lab: Lab, deal: str) -> None:
    before = await dump_deal(lab.backend, deal)
    audits_before = len(audit_log(lab.store, deal, "fact."))
    candidates, results = await current_uuids(lab, QUERY)
    assert CASH in results

    record = await correct_fact(lab, deal, request(), actor="Ana")
    assert record.old_uuid == CASH and record.new_fact == NEW_TEXT

    # the old fact is superseded the way graphiti does it, and the link is recorded on both edges
    rows = await lab.backend.query(
        deal,
        "MATCH ()-[e:RELATES_TO]->() WHERE e.uuid IN [$o, $n] RETURN e.uuid AS u, properties(e) AS p",
        o=CASH,
        n=record.new_uuid,
    )
    props = {r["u"]: r["p"] for r in rows}
    old, new = props[CASH], props[record.new_uuid]
    assert old["invalid_at"] == new["valid_at"] == "2026-04-02T00:00:00+00:00"
    assert old["expired_at"] is not None and new.get("expired_at") is None
    assert old["superseded_by"] == record.new_uuid and new["supersedes"] == CASH
    assert new["name"] == "HAS_CASH" and new["fact"] == NEW_TEXT and len(new["fact_embedding"]) == lab.embedder.info.dim
    episode = await lab.backend.query(
        deal,
        "MATCH (n:Episodic {uuid: $u})-[:MENTIONS]->(t:Entity) RETURN properties(n) AS p, collect(t.uuid) AS ts",
        u=record.episode_uuid,
    )
    assert episode[0]["p"]["channel"] == "qa_response" and episode[0]["p"]["confidence"] == 0.95
    assert episode[0]["p"]["author"] == "Dana Whitfield (CFO, Halcyon)"
    assert len(episode[0]["ts"]) == 2

    # retrieval: the new fact at once, the old one no longer; as of before the correction, the old one
    candidates, results = await current_uuids(lab, QUERY)
    assert record.new_uuid in results and CASH not in candidates
    _, then = await current_uuids(lab, QUERY, as_of=datetime(2026, 3, 15, tzinfo=UTC))
    assert CASH in then and record.new_uuid not in then

    # the temporal view sees the recorded link and the as-of diff
    facts = await load_facts(lab, deal)
    assert any(
        not link.inferred and (link.old, link.new) == (CASH, record.new_uuid) for link in supersession_links(facts)
    )
    answer = await as_of(lab, deal, FactSelection("relation", "HAS_CASH"), datetime(2026, 3, 15, tzinfo=UTC))
    status = {row.fact.uuid: row.status for row in answer.diff}
    assert status[CASH] == "superseded" and status[record.new_uuid] == "new"
    assert next(r for r in answer.diff if r.fact.uuid == CASH).replaced_by.uuid == record.new_uuid  # type: ignore[union-attr]

    undone = await undo_correction(lab, deal, record.id, actor="Ana")
    assert undone.undone and undone.undone_by == "Ana"
    assert await dump_deal(lab.backend, deal) == before
    _, results = await current_uuids(lab, QUERY)
    assert CASH in results and record.new_uuid not in results

    log = audit_log(lab.store, deal, "fact.")
    assert len(log) == audits_before + 2
    assert [e.action for e in log[:2]] == [ACTION_UNDO, ACTION_CORRECT]
    assert log[1].actor == log[0].actor == "Ana"
    assert log[1].details["old_uuid"] == CASH and log[1].details["new_uuid"] == record.new_uuid
    assert log[1].details["new_fact"] == NEW_TEXT and log[0].details["old_fact"].startswith("Halcyon's cash")

    with pytest.raises(CorrectionRefused, match="already undone"):
        await undo_correction(lab, deal, record.id, actor="Ana")
    assert await dump_deal(lab.backend, deal) == before


async def test_an_undo_is_refused_when_the_new_fact_was_corrected_again(lab: Lab, deal: str) -> None:
    first = await correct_fact(lab, deal, request(), actor="Ana")
    second = await correct_fact(
        lab,
        deal,
        request(
            fact_uuid=first.new_uuid,
            statement="Halcyon's cash was $1.40 million.",
            valid_at=date(2026, 4, 5),
            channel="analyst_chat",
            source_text="",
        ),
        actor="Ben",
    )
    with pytest.raises(CorrectionRefused, match="itself corrected"):
        await undo_correction(lab, deal, first.id, actor="Ana")
    after_second = await dump_deal(lab.backend, deal)
    await undo_correction(lab, deal, second.id, actor="Ben")
    await undo_correction(lab, deal, first.id, actor="Ana")
    assert await dump_deal(lab.backend, deal) != after_second
    records = {c.id: c for c in list_corrections(lab.store, deal)}
    assert records[first.id].undone and records[second.id].undone


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"statement": "   "}, "statement is empty"),
        ({"fact_uuid": "00000000-0000-0000-0000-000000000000"}, "No fact with uuid"),
        ({"fact_uuid": SUPERSEDED}, "already superseded"),
        ({"valid_at": date(2026, 2, 1)}, "before the fact became valid"),
        ({"channel": "document"}, "not accepted"),
        ({"author": ""}, "who gave"),
        ({"valid_at": date(2999, 1, 1)}, "in the future"),
        ({"statement": "Halcyon's cash balance was $1.6 million at February 28, 2026."}, "same as the current"),
    ],
)
async def test_bad_input_is_refused_and_writes_nothing(lab: Lab, deal: str, changes: dict, message: str) -> None:
    before = await dump_deal(lab.backend, deal)
    audits = len(audit_log(lab.store, deal))
    records = len(list_corrections(lab.store, deal))
    with pytest.raises(InvalidInput, match=message):
        await correct_fact(lab, deal, request(**changes), actor="Ana")
    assert await dump_deal(lab.backend, deal) == before
    assert len(audit_log(lab.store, deal)) == audits
    assert len(list_corrections(lab.store, deal)) == records


async def test_unknown_correction_and_missing_actor_are_refused(lab: Lab, deal: str) -> None:
    with pytest.raises(CorrectionRefused, match="No correction"):
        await undo_correction(lab, deal, "nope", actor="Ana")
    with pytest.raises(CorrectionRefused, match="admin name"):
        await correct_fact(lab, deal, request(), actor="  ")


async def test_a_failure_midway_rolls_back_what_was_written(
    lab: Lab, deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = await dump_deal(lab.backend, deal)
    audits = len(audit_log(lab.store, deal))

    async def broken(lab: Lab, plan: object) -> None:
        raise RuntimeError("disk full (simulated)")

    # the episode and the new fact are written, then marking the old fact fails
    steps = (correction_graph.save_episode, correction_graph.save_new_fact, broken)
    monkeypatch.setattr(correction_graph, "GRAPH_STEPS", steps)
    with pytest.raises(RuntimeError, match="simulated"):
        await correct_fact(lab, deal, request(), actor="Ana")
    assert await dump_deal(lab.backend, deal) == before
    monkeypatch.undo()

    # the graph is written, then the SQLite record cannot be: the graph is put back, nothing audited
    def no_sqlite(store: object, record: object, *journal: object) -> object:
        raise RuntimeError("database is locked (simulated)")

    monkeypatch.setattr(correction_repo, "write_correction", no_sqlite)
    with pytest.raises(RuntimeError, match="locked"):
        await correct_fact(lab, deal, request(), actor="Ana")
    assert await dump_deal(lab.backend, deal) == before
    assert len(audit_log(lab.store, deal)) == audits


async def test_an_undo_whose_record_cannot_be_written_leaves_the_correction_in_place(
    lab: Lab, deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = await correct_fact(lab, deal, request(), actor="Ana")
    corrected = await dump_deal(lab.backend, deal)

    def no_sqlite(store: object, record: object, actor: str, *journal: object) -> object:
        raise RuntimeError("database is locked (simulated)")

    monkeypatch.setattr(correction_repo, "write_undo", no_sqlite)
    with pytest.raises(RuntimeError, match="locked"):
        await undo_correction(lab, deal, record.id, actor="Ana")
    assert await dump_deal(lab.backend, deal) == corrected
    monkeypatch.undo()
    await undo_correction(lab, deal, record.id, actor="Ana")
