"""Timelines, supersession chains and as-of answers on the real embedded FalkorDB."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode

from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import DEAL_FILE
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.temporal.records import FactRow, FactSelection
from pipeline.temporal.supersession import infer_links, supersession_links
from pipeline.temporal.timeline import (
    as_of,
    load_facts,
    search_entities,
    superseded_candidate_share,
    supersession_report,
    timeline,
)

DEAL = json.loads(DEAL_FILE.read_text())
SUPERSEDES = {f["id"]: f["supersedes"] for f in DEAL["facts"] if f.get("supersedes")}
T0 = datetime(2025, 12, 31, tzinfo=UTC)


def uid(group: str, key: str) -> str:
    return stable_uuid(group, "fact", key)


def row(
    uuid: str, valid: datetime | None, invalid: datetime | None, relation: str = "HAS_ARR", **kw: object
) -> FactRow:
    base = dict(
        uuid=uuid,
        fact=uuid,
        relation=relation,
        source_uuid="s",
        source_name="S",
        target_uuid="t",
        target_name="T",
        episodes=(),
        valid_at=valid,
        invalid_at=invalid,
        expired_at=invalid,
        created_at=T0,
        supersedes=None,
        superseded_by=None,
        channel="document",
        citation="",
        episode_at=None,
    )
    return FactRow(**{**base, **kw})  # type: ignore[arg-type]


def test_inference_links_same_endpoints_and_relation_where_invalid_equals_valid() -> None:
    t1, t2 = T0 + timedelta(days=30), T0 + timedelta(days=60)
    facts = [
        row("old", T0, t1),
        row("new", t1, None),
        row("other-relation", t1, None, relation="HAS_CASH"),  # same date, other relation: the same name wins
        row("other-target", t1, None, target_uuid="x"),  # same date, other endpoint: not a successor
        row("later", t2, None),  # same key, other date
        row("orphan", T0, t2, relation="HAS_DEBT", target_uuid="z"),  # invalidated, nothing starts then: no link
    ]
    links = infer_links(facts)
    assert [(link.old, link.new, link.inferred) for link in links] == [("old", "new", True)]
    # a recorded link wins over inference, and both attributes are read
    recorded = [row("old", T0, t1, superseded_by="later"), row("new", t1, None), row("later", t2, None)]
    assert [(x.old, x.new, x.inferred) for x in supersession_links(recorded)] == [("old", "later", False)]
    by_supersedes = [row("old", T0, t1), row("later", t2, None, supersedes="old")]
    assert [(x.old, x.new, x.inferred) for x in supersession_links(by_supersedes)] == [("old", "later", False)]


def test_inference_links_a_restatement_under_another_relation_name() -> None:
    """An LLM may name the restating relation differently (REPORTED_REVENUE, then HAS_RESTATED_REVENUE):
    graphiti's rule is about the same pair of entities, so the link is still inferred."""
    t1 = T0 + timedelta(days=30)
    facts = [
        row("old", T0, t1, relation="REPORTED_REVENUE"),
        row("renamed", t1, None, relation="HAS_RESTATED_REVENUE"),
        row("other-pair", t1, None, relation="REPORTED_REVENUE", source_uuid="y"),  # other endpoints: never
    ]
    assert [(x.old, x.new) for x in infer_links(facts)] == [("old", "renamed")]
    assert infer_links([facts[0], facts[2]]) == []


async def test_inference_on_a_graph_written_without_attributes(lab: Lab) -> None:
    """A hand-made pair saved through graphiti's models, as graphiti writes it: no supersedes attributes."""
    group = "temporal_infer"
    await lab.backend.delete_graph(group)
    driver = lab.backend.driver(group)
    await driver.build_indices_and_constraints()
    now = datetime.now(UTC)
    names = ["Acme Corp", "Acme revenue"]
    vectors = await lab.embedder.embed_documents(names)
    nodes = [
        EntityNode(uuid=f"n{i}", name=n, group_id=group, labels=[], name_embedding=v, created_at=now)
        for i, (n, v) in enumerate(zip(names, vectors, strict=True))
    ]
    for node in nodes:
        await node.save(driver)
    texts = ["Acme revenue was $10M in 2024.", "Acme revenue was $12M in 2025."]
    fvec = await lab.embedder.embed_documents(texts)
    t1 = datetime(2025, 12, 31, tzinfo=UTC)
    for uuid, text, vec, valid, invalid in (
        ("e-old", texts[0], fvec[0], datetime(2024, 12, 31, tzinfo=UTC), t1),
        ("e-new", texts[1], fvec[1], t1, None),
    ):
        edge = EntityEdge(
            uuid=uuid,
            group_id=group,
            source_node_uuid="n0",
            target_node_uuid="n1",
            name="HAS_REVENUE",
            fact=text,
            fact_embedding=vec,
            episodes=[],
            valid_at=valid,
            invalid_at=invalid,
            expired_at=invalid,
            created_at=now,
        )
        await edge.save(driver)
    facts = await load_facts(lab, group)
    assert {f.uuid: f.superseded_by for f in facts} == {"e-old": None, "e-new": None}
    assert [(x.old, x.new, x.inferred) for x in supersession_links(facts)] == [("e-old", "e-new", True)]
    rows, counts = await supersession_report(lab, group)
    assert [(r.old.uuid, r.new.uuid, r.inferred) for r in rows] == [("e-old", "e-new", True)]
    assert (counts.facts, counts.current, counts.superseded, counts.inferred, counts.chains) == (2, 1, 1, 1, 1)
    shown = await timeline(lab, group, FactSelection("entity", "n0"))
    assert [f.uuid for f in shown.facts] == ["e-old", "e-new"] and len(shown.links) == 1
    await lab.backend.delete_graph(group)


async def test_the_demo_deal_has_its_recorded_chains(lab: Lab, demo: str) -> None:
    rows, counts = await supersession_report(lab, demo)
    assert counts.facts == len(DEAL["facts"]) == 370
    assert counts.superseded == len(SUPERSEDES) == len(rows)
    assert counts.current == counts.facts - counts.superseded
    assert counts.recorded == len(SUPERSEDES) and counts.inferred == 0
    heads = {new for new in SUPERSEDES if new not in SUPERSEDES.values()}  # newest fact of each chain
    assert counts.chains == len(heads) == 34
    pairs = {(r.old.uuid, r.new.uuid) for r in rows}
    assert pairs == {(uid(demo, old), uid(demo, new)) for new, old in SUPERSEDES.items()}
    for r in rows:
        assert r.old.invalid_at == r.new.valid_at == r.at
        assert r.new.channel in ("document", "qa_response", "analyst_chat") and r.new.citation


async def test_an_entity_timeline_shows_whole_chains_with_their_links(lab: Lab, demo: str) -> None:
    matches = await search_entities(lab, demo, "halcyon freight")
    halcyon = next(m for m in matches if m.name == "Halcyon Freight Systems, Inc.")
    shown = await timeline(lab, demo, FactSelection("entity", halcyon.uuid))
    uuids = [f.uuid for f in shown.facts]
    assert len(uuids) == len(set(uuids)) >= halcyon.facts
    arr = [uid(demo, k) for k in ("f007", "f036", "f173")]
    position = [uuids.index(u) for u in arr]
    assert position == list(range(position[0], position[0] + 3))  # the ARR chain: together, oldest first
    links = {(x.old, x.new) for x in shown.links}
    assert (arr[0], arr[1]) in links and (arr[1], arr[2]) in links
    assert all(x.old in uuids and x.new in uuids for x in shown.links)
    channels = {f.channel for f in shown.facts}
    assert channels <= {"document", "qa_response", "analyst_chat"} and len(channels) >= 2


async def test_a_topic_query_timeline_adds_the_chains_of_what_it_found(lab: Lab, demo: str) -> None:
    shown = await timeline(lab, demo, FactSelection("query", "Halcyon ARR"))
    uuids = {f.uuid for f in shown.facts}
    assert {uid(demo, k) for k in ("f007", "f036", "f173")} <= uuids
    assert shown.links


async def test_as_of_answers_and_the_diff_from_today(lab: Lab, demo: str) -> None:
    answer = await as_of(lab, demo, FactSelection("relation", "HAS_ARR"), datetime(2026, 1, 15, tzinfo=UTC))
    assert [f.uuid for f in answer.then] == [uid(demo, "f036")]
    diff = {r.fact.uuid: r for r in answer.diff}
    assert diff[uid(demo, "f036")].status == "superseded"
    assert diff[uid(demo, "f036")].replaced_by.uuid == uid(demo, "f173")  # type: ignore[union-attr]
    assert diff[uid(demo, "f173")].status == "new"
    assert uid(demo, "f007") not in diff  # neither true then nor now
    assert (answer.count("superseded"), answer.count("new"), answer.count("unchanged")) == (1, 1, 0)
    # a topic query uses retrieve(as_of=...): the ARR then is the December 2025 figure
    topic = await as_of(lab, demo, FactSelection("query", "Halcyon ARR"), datetime(2026, 1, 15, tzinfo=UTC))
    then = [f.uuid for f in topic.then]
    assert uid(demo, "f036") in then and uid(demo, "f173") not in then and uid(demo, "f007") not in then
    assert any(r.status == "superseded" and r.fact.uuid == uid(demo, "f036") for r in topic.diff)


async def test_share_of_superseded_candidates_over_the_labelled_queries(lab: Lab, demo: str) -> None:
    share = await superseded_candidate_share(lab, demo)
    assert share is not None and share.queries == 54
    assert 0 < share.candidates <= 54 * 50  # graphiti's 0.6 cosine floor leaves some pools short of N
    assert 0 < share.superseded_candidates < share.candidates
    assert share.share == pytest.approx(share.superseded_candidates / share.candidates)
    assert 0 <= share.top_k_share <= 1
    print(f"superseded share: candidates {share.share:.1%}, top-10 {share.top_k_share:.1%}")


def test_an_empty_selection_is_refused() -> None:
    with pytest.raises(InvalidInput, match="Pick or type"):
        FactSelection("entity", " ")
    with pytest.raises(InvalidInput, match="Unknown selection"):
        FactSelection("nothing", "x")  # type: ignore[arg-type]
