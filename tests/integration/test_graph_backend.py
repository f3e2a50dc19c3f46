"""The embedded FalkorDB and deal discovery with our bookkeeping, on the real server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_fulltext_search

from pipeline.deals import DealRecord, deal_counts, deal_record, get_deal, list_deals, save_deal
from pipeline.embedders.base import EmbedderInfo
from pipeline.errors import BackendUnavailable, DataFileError, EmbedderMismatch, UnknownDeal
from pipeline.graph.backend import connect
from pipeline.ingest.beir import import_beir
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from tests.conftest import FIXTURES, make_settings

MINI = FIXTURES / "beir_mini"


async def test_data_survives_a_server_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    lab = await Lab.open(settings)
    assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
    await import_beir(lab.backend, lab.embedder, settings.resolved_data_dir, MINI, "restart_me")
    before = await deal_counts(lab.backend, "restart_me")
    await lab.close()
    lab.backend.embedded.stop()
    assert not lab.backend.embedded.is_running()

    lab = await Lab.open(settings)  # a new server process on the same data directory
    try:
        assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
        assert await deal_counts(lab.backend, "restart_me") == before
        assert before.facts == 8 and before.episodes == 8
        assert (await lab.deal("restart_me")).source == "beir:beir_mini"
    finally:
        await lab.close()
        lab.backend.embedded.stop()


async def test_a_held_up_event_loop_never_makes_the_embedded_server_unreachable(tmp_path: Path) -> None:
    """The connect's last step runs late when the client's loop is busy (20 dashboard sessions on 2 busy cores
    once made a page fail with "Timeout connecting to server", redis-py's 5 s default for a unix socket)."""
    lab = await Lab.open(make_settings(tmp_path))
    try:
        connection = lab.backend.falkor.connection.connection_pool.make_connection()  # a new one, as a pool grows
        connecting = asyncio.create_task(connection.connect())
        asyncio.get_running_loop().call_soon(time.sleep, 6)  # other work holds the loop past those 5 s
        await connecting
        await connection.send_command("PING")
        assert await connection.read_response() in (b"PONG", "PONG")
        await connection.disconnect()
    finally:
        await lab.close()
        if lab.backend.embedded is not None:
            lab.backend.embedded.stop()


async def test_two_deals_never_see_each_other(lab: Lab, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "corpus.jsonl").write_text(
        '{"_id": "x1", "text": "Northwind Traders net sales were $999 million in the other deal."}\n'
    )
    (other / "queries.jsonl").write_text('{"_id": "o1", "text": "Northwind net sales"}\n')
    (other / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\no1\tx1\t1\n")
    data = lab.settings.resolved_data_dir
    await import_beir(lab.backend, lab.embedder, data, MINI, "deal_a")
    await import_beir(lab.backend, lab.embedder, data, other, "deal_b")

    for group, expected in (("deal_a", "$812 million"), ("deal_b", "$999 million")):
        edges = await edge_fulltext_search(
            lab.backend.driver(group), "Northwind net sales", SearchFilters(), [group], 50
        )
        assert edges, group
        assert {e.group_id for e in edges} == {group}
        assert any(expected in e.fact for e in edges)
    assert {"deal_a", "deal_b"} <= {d.group_id for d in await list_deals(lab.backend, lab.store)}
    assert (await deal_counts(lab.backend, "deal_b")).facts == 1


async def test_import_is_idempotent(lab: Lab) -> None:
    data = lab.settings.resolved_data_dir
    first = await import_beir(lab.backend, lab.embedder, data, MINI, "idem")
    counts = await deal_counts(lab.backend, "idem")
    second = await import_beir(lab.backend, lab.embedder, data, MINI, "idem")
    assert (first.skipped, second.skipped) == (False, True)
    assert await deal_counts(lab.backend, "idem") == counts
    assert counts.facts == 8
    stored = load_query_set(lab.store, "idem")
    assert stored is not None and stored.source == "beir" and stored.judgments == first.judgments


async def test_malformed_beir_files_write_nothing(lab: Lab, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "corpus.jsonl").write_text('{"_id": "a", "text": "fine"}\n{"_id": "b", "text": \n')
    (bad / "queries.jsonl").write_text('{"_id": "q", "text": "x"}\n')
    (bad / "qrels.tsv").write_text("q\ta\t1\n")
    with pytest.raises(DataFileError, match="line 2"):
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, bad, "bad_json")
    (bad / "corpus.jsonl").write_text('{"_id": "a", "text": "fine"}\n')
    (bad / "qrels.tsv").write_text("q\tnot-a-passage\t1\n")
    with pytest.raises(DataFileError, match="unknown corpus ids"):
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, bad, "bad_qrels")
    for group in ("bad_json", "bad_qrels"):
        assert await get_deal(lab.backend, lab.store, group) is None
        assert group not in await lab.backend.graph_names()


async def test_embedder_guard_refuses_a_deal_our_store_says_another_model_built(lab: Lab) -> None:
    await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, MINI, "guarded")
    deal = await lab.deal("guarded")
    assert (deal.embedder_model, deal.embedder_dim) == (lab.embedder.info.model, lab.embedder.info.dim)
    record = deal_record(lab.store, "guarded")
    assert record is not None
    save_deal(lab.store, DealRecord(**{**record.__dict__, "embedder_model": "voyage-finance-2"}))
    with pytest.raises(EmbedderMismatch) as caught:
        await lab.deal("guarded")
    message = str(caught.value)
    assert "voyage-finance-2" in message and "local-minilm" in message and "\n" not in message
    assert message.endswith("Set RETRIEVAL_LAB_EMBEDDER=voyage:voyage-finance-2.")
    assert EmbedderInfo("voyage-finance-2", 1024) != lab.embedder.info


async def test_unknown_deal_is_named_and_not_created(lab: Lab) -> None:
    with pytest.raises(UnknownDeal, match="no_such_deal"):
        await lab.deal("no_such_deal")
    assert "no_such_deal" not in await lab.backend.graph_names()


async def test_unreachable_neo4j_fails_with_one_clear_line(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, neo4j_uri="bolt://127.0.0.1:9", connect_timeout_s=3)
    started = time.monotonic()
    with pytest.raises(BackendUnavailable) as caught:
        await connect(settings)
    message = str(caught.value)
    assert message.startswith("Neo4j at bolt://127.0.0.1:9:")
    assert "\n" not in message
    # the 3 s connect timeout (asyncio.wait_for) bounds it: only a stuck connect could take a minute
    assert time.monotonic() - started < 60


async def test_a_deployment_allow_list_hides_other_deals(lab: Lab, demo: str) -> None:
    await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, MINI, "hidden_deal")
    restricted = Lab(lab.settings.model_copy(update={"allowed_deals": [demo]}), lab.backend, lab.embedder)
    assert [d.group_id for d in await restricted.deals()] == [demo]
    with pytest.raises(UnknownDeal, match=r"'hidden_deal'.*Known deals: demo"):
        await restricted.deal("hidden_deal")
    assert (await restricted.deal(demo)).group_id == demo
    assert "hidden_deal" in {d.group_id for d in await lab.deals()}
