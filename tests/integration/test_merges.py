"""Entity merges on the real embedded FalkorDB, on a deal of their own (never the shared demo)."""

from __future__ import annotations

import itertools

import pytest

from pipeline.audit import audit_log
from pipeline.errors import RetrievalLabError
from pipeline.graph.dialects.common import MERGE_RELATION
from pipeline.ingest.demo.seed import labelled_evaluation, seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.merges import actions as merge_actions
from pipeline.merges.actions import MergeRefused, merge_entities, reject_pair, undo_merge, undone_merges
from pipeline.merges.candidates import find_candidates
from pipeline.merges.records import FactMove, apply_merge, list_merges, read_merge_records
from pipeline.merges.scoring import DEFAULT_THRESHOLD
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.retrieve import retrieve
from tests.support.dump import dump_deal

DEAL = "demo_merges"


def ent(key: str, group: str = DEAL) -> str:
    return stable_uuid(group, "entity", key)


def fact(key: str, group: str = DEAL) -> str:
    return stable_uuid(group, "fact", key)


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


async def endpoints(lab: Lab, fact_uuids: list[str]) -> dict[str, tuple[str, str]]:
    rows = await lab.backend.query(
        DEAL,
        "MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $u RETURN e.uuid AS f, s.uuid AS s, t.uuid AS t",
        u=fact_uuids,
    )
    return {r["f"]: (r["s"], r["t"]) for r in rows}


async def mentions(lab: Lab, entity_uuid: str) -> int:
    rows = await lab.backend.query(
        DEAL, "MATCH (:Episodic)-[m:MENTIONS]->(n:Entity {uuid: $u}) RETURN count(m) AS n", u=entity_uuid
    )
    return rows[0]["n"]


async def test_merge_then_undo_leaves_the_deal_identical(lab: Lab, deal: str) -> None:
    before = await dump_deal(lab.backend, deal)
    alias, canonical = ent("greyfield_vp"), ent("greyfield")
    alias_facts, own_facts = [fact("f248"), fact("f249")], [fact("f040"), fact("f052")]
    assert {s for s, _ in (await endpoints(lab, alias_facts)).values()} == {alias}
    mentions_before = await mentions(lab, alias)
    candidates = await find_candidates(lab, deal)
    pair = next(c for c in candidates.candidates if {c.alias.uuid, c.canonical.uuid} == {alias, canonical})

    record = await merge_entities(lab, deal, alias, canonical, "Ana")
    assert (record.method, record.merged_by, record.score) == ("manual", "Ana", pair.score)
    assert sorted(m["fact"] for m in record.moved_facts) == sorted(alias_facts)
    assert {m["side"] for m in record.moved_facts} == {"source"}
    moved = await endpoints(lab, alias_facts + own_facts)
    assert all(canonical in ends for ends in moved.values())  # the alias's facts now hang on the canonical entity
    assert {s for s, _ in (moved[u] for u in alias_facts)} == {canonical}
    props = await lab.backend.query(
        deal, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() RETURN e.source_node_uuid AS s, e.fact AS f", u=alias_facts[0]
    )
    assert props[0]["s"] == canonical and props[0]["f"].startswith("Greyfield Venture Partners holds")
    alias_node = await lab.backend.query(deal, "MATCH (n:Entity {uuid: $u}) RETURN n.name AS name", u=alias)
    assert alias_node == [{"name": "Greyfield Venture Partners"}]  # the alias node and its name stay
    assert await mentions(lab, alias) == mentions_before  # MENTIONS stay
    stored = [r for r in await read_merge_records(lab.backend, deal) if r.uuid == record.uuid]
    assert stored == [record]
    assert await dump_deal(lab.backend, deal) != before
    audit = audit_log(lab.store, deal, "merge")[0]
    assert (audit.action, audit.actor, audit.target) == ("merge", "Ana", alias)
    assert audit.details["canonical_uuid"] == canonical and audit.details["facts_moved"] == 2

    result = await undo_merge(lab, deal, record.uuid, "Ana")
    assert result.restored == 2 and result.missing == ()
    assert await dump_deal(lab.backend, deal) == before
    audit = audit_log(lab.store, deal, "merge")[0]
    assert (audit.action, audit.details["merge"]["uuid"]) == ("merge.undo", record.uuid)
    assert undone_merges(lab, deal)[0]["uuid"] == record.uuid
    with pytest.raises(MergeRefused, match="unknown or already undone"):
        await undo_merge(lab, deal, record.uuid, "Ana")


async def test_after_a_merge_a_query_about_the_alias_finds_facts_of_both(lab: Lab, deal: str) -> None:
    alias, canonical = ent("pinecrest_carriers_ltd"), ent("pinecrest_carriers")
    alias_fact, canonical_facts = fact("f215"), {fact("f157"), fact("f158"), fact("f159")}
    record = await merge_entities(lab, deal, alias, canonical, "Ana")
    try:
        run = await retrieve(lab, "Pinecrest Carriers Ltd.", deal, 30, 10, "none")
        by_uuid = {c.uuid: c for c in run.candidates}
        assert alias_fact in by_uuid and canonical_facts & set(by_uuid)
        # the alias's fact comes back attributed to the canonical entity, beside the canonical's own facts
        assert by_uuid[alias_fact].source_uuid == canonical
        assert all(by_uuid[u].source_uuid == canonical for u in canonical_facts & set(by_uuid))
    finally:
        await undo_merge(lab, deal, record.uuid, "Ana")


QUERIES = [
    "Halcyon Freight Corp.",
    "HFS",
    "ACME Logistics LLC",
    "Marcus O. Okafor",
    "Greyfield Venture Partners",
    "Larkspur Capital",
    "duplicate of IS_DUPLICATE_OF merged alias",
    "Who owns Halcyon?",
]


async def test_merge_records_never_show_up_in_retrieval(lab: Lab, deal: str) -> None:
    record = await merge_entities(lab, deal, ent("greyfield_vp"), ent("greyfield"), "Ana")
    try:
        merge_uuids = {r.uuid for r in await read_merge_records(lab.backend, deal)}
        assert len(merge_uuids) == 10 and record.uuid in merge_uuids
        facts = await lab.backend.query(deal, "MATCH ()-[e:RELATES_TO]->() RETURN collect(e.uuid) AS u")
        fact_uuids = set(facts[0]["u"])
        seen = 0
        for query in QUERIES:
            for include_superseded, recipe in itertools.product((False, True), ("graphiti-default", "hybrid-walk")):
                run = await retrieve(
                    lab,
                    query,
                    deal,
                    100,
                    10,
                    "none",
                    include_superseded=include_superseded,
                    recipe=Recipe.preset(recipe),
                )
                uuids = {c.uuid for c in run.candidates}
                seen += len(uuids)
                assert not uuids & merge_uuids, query
                assert uuids <= fact_uuids, query
                assert all(c.relation != MERGE_RELATION for c in run.candidates), query
        assert seen > 1000
    finally:
        await undo_merge(lab, deal, record.uuid, "Ana")


async def test_rejected_pairs_stay_hidden(lab: Lab, deal: str) -> None:
    a, b = ent("greg_reilly"), ent("karen_reilly")
    report = await find_candidates(lab, deal)
    assert any({c.alias.uuid, c.canonical.uuid} == {a, b} for c in report.candidates)
    assert report.aliases_left_out == 9 and report.scanned == 100 and not report.blocked
    rejection = await reject_pair(lab, deal, b, a, "Ana")
    assert {rejection.name_a, rejection.name_b} == {"Greg Reilly", "Karen Reilly"}
    after = await find_candidates(lab, deal)
    assert not any({c.alias.uuid, c.canonical.uuid} == {a, b} for c in after.candidates)
    assert after.rejected_hidden == report.rejected_hidden + 1
    assert len(after.candidates) == len(report.candidates) - 1
    audit = audit_log(lab.store, deal, "merge.reject")[0]
    assert (audit.actor, audit.target) == ("Ana", f"{min(a, b)}|{max(a, b)}")
    with pytest.raises(MergeRefused, match="already rejected"):
        await reject_pair(lab, deal, a, b, "Ana")


async def test_candidates_leave_out_merged_pairs(lab: Lab, deal: str) -> None:
    report = await find_candidates(lab, deal)
    aliases = {r.alias_uuid for r in await read_merge_records(lab.backend, deal)}
    assert len(aliases) == 9
    assert not any(c.alias.uuid in aliases or c.canonical.uuid in aliases for c in report.candidates)
    assert report.candidates[0].score >= report.candidates[-1].score >= 0.5


async def test_revenue_and_net_revenue_are_never_suggested_above_the_default(lab: Lab, demo: str) -> None:
    revenue, net = ent("revenue", demo), ent("net_revenue", demo)
    report = await find_candidates(lab, demo)
    pair = [c for c in report.candidates if {c.alias.uuid, c.canonical.uuid} == {revenue, net}]
    assert all(c.score < DEFAULT_THRESHOLD for c in pair)
    assert all(not c.auto_merges_at(DEFAULT_THRESHOLD) for c in pair)
    evaluation = await labelled_evaluation(lab, demo)
    assert evaluation is not None
    labelled = next(p for p in evaluation.pairs if {p.name_a, p.name_b} == {"Revenue", "Net Revenue"})
    assert not labelled.same and labelled.signals.score < DEFAULT_THRESHOLD


async def test_precision_and_recall_on_the_demo_pairs(lab: Lab, demo: str) -> None:
    evaluation = await labelled_evaluation(lab, demo)
    assert evaluation is not None
    assert len(evaluation.pairs) == 41 and sum(p.same for p in evaluation.pairs) == 13
    assert sum(p.merged for p in evaluation.pairs) == 9 and all(p.same for p in evaluation.pairs if p.merged)
    at_default = evaluation.at(DEFAULT_THRESHOLD)
    assert at_default.threshold == DEFAULT_THRESHOLD
    assert at_default.precision == 1.0  # no destructive auto-merge among the labelled pairs
    assert at_default.recall is not None and 0.5 <= at_default.recall < 1.0
    recalls = [p.recall for p in evaluation.points]
    assert recalls == sorted(recalls, reverse=True)  # recall never rises with the threshold
    assert evaluation.at(0.0).recall == 1.0


async def test_refusals_write_nothing(lab: Lab, deal: str) -> None:
    before = await dump_deal(lab.backend, deal)
    audits = len(audit_log(lab.store, deal))
    halcyon, hfs, corp = ent("halcyon"), ent("hfs"), ent("halcyon_corp")
    greyfield, larkspur = ent("greyfield"), ent("larkspur")
    cases = [
        ((greyfield, greyfield), "into itself"),
        ((greyfield, "no-such-uuid"), "unknown or belongs to another deal"),
        ((greyfield, ent("larkspur", "demo")), "unknown or belongs to another deal"),
        ((hfs, larkspur), "already merged into"),
        ((greyfield, corp), "itself an alias of"),
        ((halcyon, greyfield), "canonical entity of 3 merge"),
        ((greyfield, ""), "no entity id"),
    ]
    for (alias, canonical), message in cases:
        with pytest.raises(MergeRefused, match=message):
            await merge_entities(lab, deal, alias, canonical, "Ana")
    with pytest.raises(MergeRefused, match="admin's name"):
        await merge_entities(lab, deal, greyfield, larkspur, "  ")
    with pytest.raises(MergeRefused, match="unknown or already undone"):
        await undo_merge(lab, deal, "no-such-merge", "Ana")
    with pytest.raises(MergeRefused, match="two different"):
        await reject_pair(lab, deal, greyfield, greyfield, "Ana")
    with pytest.raises(RetrievalLabError, match="no-such-deal"):
        await merge_entities(lab, "no-such-deal", greyfield, larkspur, "Ana")
    assert await dump_deal(lab.backend, deal) == before
    assert len(audit_log(lab.store, deal)) == audits


async def test_a_failed_audit_leaves_the_graph_as_it_was(lab: Lab, deal: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = await dump_deal(lab.backend, deal)

    def broken(*args: object, **kwargs: object) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(merge_actions, "record_audit", broken)
    with pytest.raises(OSError, match="disk full"):
        await merge_entities(lab, deal, ent("greyfield_vp"), ent("greyfield"), "Ana")
    assert await dump_deal(lab.backend, deal) == before


async def test_undo_of_a_seeded_merge_restores_the_alias_facts(lab: Lab, deal: str) -> None:
    before = await dump_deal(lab.backend, deal)
    seeded = next(r for r in await read_merge_records(lab.backend, deal) if r.alias_uuid == ent("hfs"))
    assert seeded.merged_by == "priya.nair" and seeded.moved_facts
    views = [v for v in await list_merges(lab, deal, "HFS") if v.record.uuid == seeded.uuid]
    assert views and {f.uuid for f in views[0].facts} == {m["fact"] for m in seeded.moved_facts}
    uuids = sorted({m["fact"] for m in seeded.moved_facts})
    on_canonical = await endpoints(lab, uuids)

    result = await undo_merge(lab, deal, seeded.uuid, "Ana")
    assert result.restored == len(uuids)
    restored = await endpoints(lab, uuids)
    for m in seeded.moved_facts:
        s, t = restored[m["fact"]]
        assert (s if m["side"] == "source" else t) == ent("hfs")
    assert all(seeded.canonical_uuid in on_canonical[u] for u in uuids)
    assert seeded.uuid not in {r.uuid for r in await read_merge_records(lab.backend, deal)}
    report = await find_candidates(lab, deal)
    assert report.aliases_left_out == 8

    # putting the seeded record back gives the seeded deal again, byte for byte
    moves = [FactMove(u, *restored[u], *on_canonical[u]) for u in uuids]
    assert await apply_merge(lab.backend, deal, seeded, moves)
    assert await dump_deal(lab.backend, deal) == before
