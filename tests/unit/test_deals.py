"""Deals without a graph: which embedder setting fits a deal, what a deal defaults to, the store's deals table."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.deals import DealInfo, DealRecord, deal_record, embedder_mismatch, forget_content_hash, save_deal
from pipeline.deals.embedder_match import match_label, setting_for_dim, setting_for_model
from pipeline.deals.repo import deal_records, insert_deal_if_absent, read_only_groups, set_read_only
from pipeline.embedders.base import EmbedderInfo
from pipeline.store.db import Store

LOCAL = EmbedderInfo("local-minilm-l6-v2-int8", 384)


def _deal(dim: int | None, model: str | None = None) -> DealInfo:
    return DealInfo.of("acme", DealRecord("acme", embedder_model=model) if model else None, dim)


@pytest.mark.parametrize(
    ("dim", "setting"),
    [
        (384, "local"),
        (1024, "voyage:voyage-finance-2"),
        (1536, "openai:text-embedding-3-small"),
        (3072, "openai:text-embedding-3-large"),
        (768, "openai:MODEL:768"),
    ],
)
def test_the_setting_suggested_for_a_stored_dimension(dim: int, setting: str) -> None:
    assert setting_for_dim(dim) == setting


def test_a_dimension_mismatch_is_one_line_naming_the_setting() -> None:
    assert embedder_mismatch(_deal(1024), LOCAL) == (
        "Deal 'acme' holds 1024-d vectors; the configured embedder is local-minilm-l6-v2-int8 (384-d). "
        "Set RETRIEVAL_LAB_EMBEDDER=voyage:voyage-finance-2 (1024-d) or another 1024-d model."
    )
    assert match_label(_deal(1024), LOCAL) == "no: RETRIEVAL_LAB_EMBEDDER=voyage:voyage-finance-2"
    assert "RETRIEVAL_LAB_EMBEDDER=openai:MODEL:768 (768-d)" in (embedder_mismatch(_deal(768), LOCAL) or "")


def test_the_same_size_from_another_recorded_model_is_refused_too() -> None:
    problem = embedder_mismatch(_deal(1536, "text-embedding-3-small"), EmbedderInfo("text-embedding-ada-002", 1536))
    assert problem is not None and "\n" not in problem
    assert problem.endswith("Set RETRIEVAL_LAB_EMBEDDER=openai:text-embedding-3-small.")
    assert setting_for_model("local-minilm-l6-v2-int8", 384) == "local"
    assert setting_for_model("voyage-finance-2", 1024) == "voyage:voyage-finance-2"
    assert setting_for_model("text-embedding-3-small", 512) == "openai:text-embedding-3-small:512"


def test_what_fits() -> None:
    assert embedder_mismatch(_deal(384), LOCAL) is None  # graphiti wrote it, same size: nothing recorded to contradict
    assert embedder_mismatch(_deal(384, LOCAL.model), LOCAL) is None
    assert embedder_mismatch(_deal(None), LOCAL) is None  # no vectors at all
    assert match_label(_deal(384), LOCAL) == "yes"


def test_a_deal_we_did_not_build_is_named_by_its_group() -> None:
    deal = DealInfo.of("3f1c9a52-acme", None, 1536)
    assert (deal.name, deal.source, deal.description, deal.embedder_model) == ("3f1c9a52-acme", "graphiti", "", None)
    assert deal.embedder_label == "unknown embedder (1536-d)" and not deal.read_only
    ours = DealInfo.of("d", DealRecord("d", "Demo", "x", "demo", "m", 384, "h", "t", True), None)
    assert (ours.name, ours.source, ours.embedder_dim, ours.read_only) == ("Demo", "demo", 384, True)


def test_an_old_registry_node_reads_into_a_record() -> None:
    props = {"name": "Old", "source": "demo", "embedder_model": "m", "embedder_dim": "384", "content_hash": 7}
    record = DealRecord.from_legacy_node("g", props)
    assert (record.name, record.embedder_dim, record.content_hash, record.description) == ("Old", 384, "7", None)
    assert DealRecord.from_legacy_node("g", {"embedder_dim": "n/a"}).embedder_dim is None


def test_the_deals_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    assert 7 in store.applied_migrations()
    record = DealRecord("g", "Name", "", "demo", "m", 384, "h1", "2026-01-01T00:00:00+00:00")
    save_deal(store, record)
    assert deal_record(store, "g") == record
    with store.transaction() as tx:
        set_read_only(tx, "g", True)
        set_read_only(tx, "graphiti_only", True)  # a row for the flag alone
    save_deal(store, DealRecord(**{**record.__dict__, "content_hash": "h2"}))  # a rebuild keeps the flag
    assert deal_record(store, "g") == DealRecord(**{**record.__dict__, "content_hash": "h2", "read_only": True})
    assert read_only_groups(store) == {"g", "graphiti_only"}
    assert deal_records(store)["graphiti_only"] == DealRecord("graphiti_only", read_only=True)
    assert not insert_deal_if_absent(store, DealRecord("g", "Legacy"))  # never over our row
    assert insert_deal_if_absent(store, DealRecord("old", "Legacy"))
    forget_content_hash(store, "g")
    assert (deal_record(store, "g") or record).content_hash is None
