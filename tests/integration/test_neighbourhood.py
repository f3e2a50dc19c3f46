"""The evidence view's engine on the demo deal: a fact's neighbourhood (its two entities, the facts around them
current before superseded, its supersession chain oldest first, the episodes citing it), an entity's, the cut to a
limit, the default focus, and where a fact ranks for a query (`lab.why.fact`, through the one `rank()`)."""

from __future__ import annotations

import pytest

from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.retrieval.setting import setting
from pipeline.temporal.records import FactRow
from pipeline.temporal.supersession import supersession_links

QUERY = "How fast did revenue grow from FY2024 to FY2025?"
OLD_REVENUE = "reported FY2025 revenue of $4.8 million, up 17%"  # the CIM's figure, replaced by the audited one


@pytest.fixture(scope="module")
async def facts(lab: Lab, demo: str) -> list[FactRow]:
    return await lab.temporal.load_facts(demo)


def one(facts: list[FactRow], text: str) -> FactRow:
    (found,) = [f for f in facts if text in f.fact]
    return found


async def test_a_superseded_fact_shows_its_entities_chain_and_sources(
    lab: Lab, demo: str, facts: list[FactRow]
) -> None:
    old = one(facts, OLD_REVENUE)
    assert old.superseded
    nb = await lab.temporal.neighbourhood(demo, old.uuid, facts)
    assert nb.kind == "fact" and nb.focus == old.uuid
    assert [e.uuid for e in nb.entities] == [old.source_uuid, old.target_uuid]
    # the entities' counts are the deal's
    for entity in nb.entities:
        touching = [f for f in facts if entity.uuid in (f.source_uuid, f.target_uuid)]
        assert (entity.facts, entity.current) == (len(touching), sum(1 for f in touching if not f.superseded))
    # its chain, oldest first: this fact, then what replaced it (current)
    links = {(link.old, link.new) for link in supersession_links(facts)}
    assert nb.chain[0].uuid == old.uuid and len(nb.chain) >= 2
    assert all((a.uuid, b.uuid) in links for a, b in zip(nb.chain, nb.chain[1:], strict=False))
    assert not nb.chain[-1].superseded
    assert all(nb.chain[i].starts_at <= nb.chain[i + 1].starts_at for i in range(len(nb.chain) - 1))
    # every fact shown touches one of the two entities (or is of the chain); the fact and its chain first
    ends = {old.source_uuid, old.target_uuid}
    chain = {f.uuid for f in nb.chain}
    assert all(ends & {f.source_uuid, f.target_uuid} or f.uuid in chain for f in nb.facts)
    assert nb.facts[0].uuid == old.uuid and {f.uuid for f in nb.facts[: len(chain)]} == chain
    # then the facts between the same two entities, and among the rest current before superseded
    rest = [f for f in nb.facts[len(chain) :] if {f.source_uuid, f.target_uuid} != ends]
    assert [f.superseded for f in rest] == sorted(f.superseded for f in rest)
    touching = [f for f in facts if ends & {f.source_uuid, f.target_uuid} or f.uuid in chain]
    assert len(nb.facts) + nb.left_out == len(touching)
    assert {(link.old, link.new) for link in nb.links} == {
        (a, b) for a, b in links if a in {f.uuid for f in nb.facts} and b in {f.uuid for f in nb.facts}
    }
    # the neighbours are the other ends of the facts shown
    assert {e.uuid for e in nb.neighbours} == {
        u for f in nb.facts for u in (f.source_uuid, f.target_uuid) if u not in ends
    }
    # the episodes citing it, with document and page
    assert len(nb.citing) == len(old.episodes) >= 1
    assert {(c.document, str(c.page)) for c in nb.citing} >= {("cim.pdf", "18")}
    assert any("4.8 million" in c.snippet for c in nb.citing)


async def test_an_entity_shows_its_facts_cut_to_a_limit(lab: Lab, demo: str, facts: list[FactRow]) -> None:
    old = one(facts, OLD_REVENUE)
    hub = old.source_uuid
    touching = [f for f in facts if hub in (f.source_uuid, f.target_uuid)]
    assert len(touching) > 40  # the demo's company: a hub
    nb = await lab.temporal.neighbourhood(demo, hub, facts, limit=40)
    assert nb.kind == "entity" and nb.fact is None and nb.chain == () and nb.citing == ()
    assert [e.uuid for e in nb.entities] == [hub]
    assert len(nb.facts) == 40 and nb.left_out == len(touching) - 40
    assert all(hub in (f.source_uuid, f.target_uuid) for f in nb.facts)
    assert [f.superseded for f in nb.facts] == sorted(f.superseded for f in nb.facts)  # current first
    whole = await lab.temporal.neighbourhood(demo, hub, facts, limit=10_000)
    assert whole.left_out == 0 and {f.uuid for f in whole.facts} == {f.uuid for f in touching}


async def test_the_default_focus_is_the_newest_replacing_fact(lab: Lab, demo: str, facts: list[FactRow]) -> None:
    focus = await lab.temporal.default_focus(demo, facts)
    by_uuid = {f.uuid: f for f in facts}
    replacing = {link.new for link in supersession_links(facts)}
    assert focus in replacing
    newest = max(by_uuid[u].starts_at for u in replacing)
    assert by_uuid[focus].starts_at == newest


async def test_a_uuid_of_no_fact_or_entity_is_one_line(lab: Lab, demo: str, facts: list[FactRow]) -> None:
    with pytest.raises(InvalidInput, match="is not a fact or an entity of the deal"):
        await lab.temporal.neighbourhood(demo, "no-such-uuid", facts)


async def test_where_a_fact_ranks_for_a_query_is_the_ranking_s_own(lab: Lab, demo: str, facts: list[FactRow]) -> None:
    chosen = setting("graphiti-default", 50, "local", 10)
    (run,) = await lab.retrieval.rank(QUERY, demo, [chosen])
    for ranked in run.reranked[:3]:
        seen = await lab.why.fact(demo, QUERY, chosen, ranked.candidate.uuid)
        assert seen.stage == "kept" and seen.rank == ranked.rank
        assert seen.fused_rank == ranked.candidate.first_stage_rank
        assert seen.method_ranks == {m: r for m, r in ranked.candidate.method_ranks.items() if r}
    old = one(facts, OLD_REVENUE)
    seen = await lab.why.fact(demo, QUERY, chosen, old.uuid)
    assert seen.stage == "filtered" and seen.rank is None
    with pytest.raises(InvalidInput):
        await lab.why.fact(demo, "  ", chosen, old.uuid)
