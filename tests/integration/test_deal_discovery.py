"""Deals are discovered in the graph, whoever wrote them; our bookkeeping lives in the SQLite store.

On the session's embedded FalkorDB: the deal graphiti's own `add_episode` wrote (tests/support/graphiti_deal.py),
a small deal written with 1536-d vectors, an old-style `RetrievalLabDeal` node, the allow-list, the per-deal
read-only flag.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from pipeline.audit import audit_log
from pipeline.cli import main
from pipeline.deals import DealRecord, deal_counts, deal_record, get_deal, save_deal
from pipeline.deals.repo import migrate_legacy_deals, read_only_groups, set_read_only
from pipeline.errors import EmbedderMismatch, ReadOnly, UnknownDeal
from pipeline.ingest.beir import import_beir
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import write_deal
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import get_settings
from tests.conftest import FIXTURES, make_settings
from tests.support.dump import dump_deal
from tests.support.graphiti_deal import (
    GROUP_ID,
    GraphitiDeal,
    graphiti_deal,  # noqa: F401 (the session fixture)
)
from tests.support.wide_deal import tiny_deal, wide_deal  # noqa: F401 (wide_deal: the session fixture)


@pytest.fixture
def env_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """For in-process CLI runs with changed environment variables (the CLI reads cached settings)."""
    get_settings.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    get_settings.cache_clear()


# --- a deal only graphiti wrote ----------------------------------------------------------------------------


async def test_a_deal_only_graphiti_wrote_is_listed_with_its_counts_and_vector_size(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    before = await dump_deal(lab.backend, GROUP_ID)
    deals = {d.group_id: d for d in await lab.deals()}
    deal = deals[GROUP_ID]
    assert (deal.name, deal.source, deal.embedder_model, deal.embedder_dim) == (GROUP_ID, "graphiti", None, 384)
    assert deal.embedder_dim == lab.embedder.info.dim
    counts = await deal_counts(lab.backend, GROUP_ID)
    expected = graphiti_deal.expected
    assert (counts.entities, counts.episodes, counts.facts, counts.superseded_facts) == (15, 12, 19, 2)
    assert (counts.entities, counts.episodes, counts.facts) == (expected.entities, expected.episodes, expected.facts)
    assert counts.current_facts == counts.facts - counts.superseded_facts and counts.merges == 0
    assert (await lab.deal(GROUP_ID)).group_id == GROUP_ID
    # listing and checking it wrote nothing: not into the graph, not into the store
    assert await dump_deal(lab.backend, GROUP_ID) == before
    assert deal_record(lab.store, GROUP_ID) is None


async def test_retrieve_runs_on_the_graphiti_deal(lab: Lab, graphiti_deal: GraphitiDeal) -> None:  # noqa: F811
    run = await retrieve(lab, "What was Acme Analytics's FY2025 revenue?", GROUP_ID, candidates=10, top_k=5)
    assert run.results and len(run.results) <= 5
    assert all(r.ranked.candidate.uuid for r in run.results)
    assert any("5.2M" in r.ranked.candidate.fact for r in run.results)


def test_deals_and_status_on_the_command_line_list_the_graphiti_deal(
    graphiti_deal: GraphitiDeal,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["deals", "--json"]) == 0
    rows = {r["group"]: r for r in json.loads(capsys.readouterr().out)["deals"]}
    row = rows[GROUP_ID]
    assert (row["entities"], row["episodes"], row["facts"], row["superseded_facts"]) == (15, 12, 19, 2)
    assert (row["vector_dim"], row["embedder_match"], row["source"]) == (384, "yes", "graphiti")
    assert row["read_only"] is False

    assert main(["deals"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:2] == ["deal", "name"]
    [line] = [t for t in table if t.startswith(GROUP_ID)]
    assert "19 (17/2)" in line and "384" in line and " yes " in f"{line} "

    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "backend:" in out and "embedder: local-minilm-l6-v2-int8 (384-d)" in out and GROUP_ID in out


# --- a deal with other vectors -----------------------------------------------------------------------------


async def test_a_deal_with_1536_d_vectors_is_refused_naming_the_setting(lab: Lab, wide_deal: str) -> None:  # noqa: F811
    deal = await get_deal(lab.backend, lab.store, wide_deal)
    assert deal is not None and (deal.embedder_dim, deal.source) == (1536, "graphiti")
    with pytest.raises(EmbedderMismatch) as caught:
        await lab.deal(wide_deal)
    assert str(caught.value) == (
        f"Deal {wide_deal!r} holds 1536-d vectors; the configured embedder is local-minilm-l6-v2-int8 (384-d). "
        "Set RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small (1536-d) or another 1536-d model."
    )
    with pytest.raises(EmbedderMismatch):
        await retrieve(lab, "Northwind revenue", wide_deal)
    listed = {d.group_id: d for d in await lab.deals()}
    assert listed[wide_deal].embedder_dim == 1536  # still listed, with its size


def test_query_on_the_1536_d_deal_exits_2_with_one_line(
    wide_deal: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["query", "Northwind revenue", "--group", wide_deal]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"error: Deal {wide_deal!r} holds 1536-d vectors")
    assert "RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small" in err[0]

    assert main(["deals", "--json"]) == 0
    rows = {r["group"]: r for r in json.loads(capsys.readouterr().out)["deals"]}
    assert rows[wide_deal]["embedder_match"] == "no: RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small"


# --- bookkeeping of earlier versions ------------------------------------------------------------------------

LEGACY_NODE = """
    CREATE (:RetrievalLabDeal {group_id: $g, name: 'Old registry', description: 'from an earlier version',
            source: 'beir:old', embedder_model: 'local-minilm-l6-v2-int8', embedder_dim: 384,
            content_hash: 'abc123', created_at: '2026-01-01T00:00:00+00:00'})
    """
LEGACY_COUNT = "MATCH (d:RetrievalLabDeal) RETURN count(d) AS n"


async def test_an_old_registry_node_moves_into_the_store(lab: Lab) -> None:
    group = "legacy_deal"
    await lab.backend.delete_graph(group)
    await write_deal(lab.backend, group, tiny_deal("Old deal fact about Northwind"), lab.embedder)
    await lab.backend.query(group, LEGACY_NODE, g=group)

    other = await Lab.open(make_settings(lab.settings.resolved_data_dir))  # what every command does first
    await other.close()
    record = deal_record(lab.store, group)
    assert record == DealRecord(
        group,
        "Old registry",
        "from an earlier version",
        "beir:old",
        "local-minilm-l6-v2-int8",
        384,
        "abc123",
        "2026-01-01T00:00:00+00:00",
    )
    assert (await lab.backend.query(group, LEGACY_COUNT))[0]["n"] == 0
    deal = await lab.deal(group)
    assert (deal.name, deal.source, deal.embedder_model) == ("Old registry", "beir:old", "local-minilm-l6-v2-int8")
    await lab.backend.delete_graph(group)


async def test_a_read_only_deal_keeps_its_old_node_and_a_store_row_is_never_overwritten(lab: Lab) -> None:
    group = "legacy_ro"
    await lab.backend.delete_graph(group)
    await write_deal(lab.backend, group, tiny_deal("Read-only deal fact about Northwind"), lab.embedder)
    save_deal(lab.store, DealRecord(group, name="Ours already"))
    await lab.backend.query(group, LEGACY_NODE, g=group)  # written before the deal turns read-only
    await lab.set_read_only(group, True, "tester")
    try:
        before = await dump_deal(lab.backend, group)
        assert group in lab.backend.read_only_groups
        assert await migrate_legacy_deals(lab.backend, lab.store) == [group]
        assert await dump_deal(lab.backend, group) == before  # read-only: the graph is left as it was
        record = deal_record(lab.store, group)
        assert record is not None and record.name == "Ours already" and record.read_only
    finally:
        await lab.set_read_only(group, False, "tester")
    await migrate_legacy_deals(lab.backend, lab.store)  # writable now: the node goes, our row stays ours
    assert (await lab.backend.query(group, LEGACY_COUNT))[0]["n"] == 0
    assert (deal_record(lab.store, group) or DealRecord(group)).name == "Ours already"
    await lab.backend.delete_graph(group)


# --- the per-deal read-only flag, the allow-list, unknown deals --------------------------------------------------


def test_the_read_only_flag_is_set_from_the_command_line_and_audited(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    try:
        assert main(["deals", "--read-only", GROUP_ID, "--actor", "ops", "--json"]) == 0
        rows = {r["group"]: r for r in json.loads(capsys.readouterr().out)["deals"]}
        assert rows[GROUP_ID]["read_only"] is True
        assert GROUP_ID in read_only_groups(lab.store)
        [entry] = audit_log(lab.store, GROUP_ID, "deal.read_only")[:1]
        assert (entry.actor, entry.details) == ("ops", {"read_only": True})
    finally:
        assert main(["deals", "--writable", GROUP_ID, "--actor", "ops"]) == 0
    assert "is now writable" in capsys.readouterr().err
    assert GROUP_ID not in read_only_groups(lab.store)
    assert audit_log(lab.store, GROUP_ID, "deal.writable")[0].actor == "ops"


async def test_the_backend_learns_the_read_only_deals_from_the_store(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    try:
        deal = await lab.set_read_only(GROUP_ID, True, "ops")
        assert deal.read_only and GROUP_ID in lab.backend.read_only_groups
        other = await Lab.open(make_settings(lab.settings.resolved_data_dir))  # a new process's view
        await other.close()
        assert GROUP_ID in other.backend.read_only_groups
        with lab.store.transaction() as tx:  # as another process would change it
            set_read_only(tx, GROUP_ID, False)
        assert not (await lab.deal(GROUP_ID)).read_only and GROUP_ID not in lab.backend.read_only_groups
    finally:
        await lab.set_read_only(GROUP_ID, False, "ops")


async def test_the_allow_list_hides_discovered_deals(
    lab: Lab,
    demo: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
) -> None:
    restricted = Lab(lab.settings.model_copy(update={"allowed_deals": [demo]}), lab.backend, lab.embedder)
    assert [d.group_id for d in await restricted.deals()] == [demo]
    with pytest.raises(UnknownDeal, match=rf"'{GROUP_ID}'.*Known deals: {demo}\.$"):
        await restricted.deal(GROUP_ID)
    with pytest.raises(UnknownDeal):
        await restricted.set_read_only(GROUP_ID, True, "ops")
    assert not (await lab.deal(GROUP_ID)).read_only


def test_the_allow_list_restricts_the_deals_command(
    demo: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    env_settings: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_settings.setenv("RETRIEVAL_LAB_ALLOWED_DEALS", demo)
    assert main(["deals", "--json"]) == 0
    assert [r["group"] for r in json.loads(capsys.readouterr().out)["deals"]] == [demo]
    assert main(["query", "revenue", "--group", GROUP_ID]) == 2
    assert f"No deal named {GROUP_ID!r}" in capsys.readouterr().err


async def test_asking_about_an_unknown_deal_creates_nothing(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    before = set(await lab.backend.graph_names())
    with pytest.raises(UnknownDeal, match="'never_made'"):
        await lab.deal("never_made")
    assert await get_deal(lab.backend, lab.store, "never_made") is None
    with pytest.raises(UnknownDeal):
        await lab.set_read_only("never_made", True, "ops")
    assert "never_made" not in {d.group_id for d in await lab.deals()}
    assert set(await lab.backend.graph_names()) == before
    assert deal_record(lab.store, "never_made") is None


async def test_a_read_only_deal_is_not_rebuilt_by_a_loader(lab: Lab) -> None:
    group = "ro_rebuild"
    data = lab.settings.resolved_data_dir
    await import_beir(lab.backend, lab.embedder, data, FIXTURES / "beir_mini", group)
    await lab.set_read_only(group, True, "ops")
    try:
        before, record = await dump_deal(lab.backend, group), deal_record(lab.store, group)
        lift = f"python -m pipeline deals --writable {group} lifts it"
        with pytest.raises(ReadOnly, match=f"^Read-only: deal '{group}' .*{lift}\\): import-beir was refused"):
            await import_beir(lab.backend, lab.embedder, data, FIXTURES / "beir_mini", group)
        with pytest.raises(ReadOnly, match=r"seed-demo was refused; nothing was written.$"):
            await seed_demo(lab.backend, lab.embedder, data, group_id=group, force=True)
        assert await dump_deal(lab.backend, group) == before and deal_record(lab.store, group) == record
    finally:
        await lab.set_read_only(group, False, "ops")
    await lab.backend.delete_graph(group)
