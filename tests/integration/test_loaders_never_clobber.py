"""Loaders never clobber (issue 15, item 4): seed-demo and import-beir refuse, in one line with nothing
written, to rebuild a deal of another source or one an admin changed; `--replace` says what is lost, audits
it (`deal.replace`) and closes the deal's open corrections as discarded; an unchanged re-import stays a no-op."""

from __future__ import annotations

import asyncio
import shutil
from datetime import date
from pathlib import Path

import pytest

from pipeline.audit import audit_log
from pipeline.cli import main
from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRefused, CorrectionRequest
from pipeline.corrections.repo import get_correction
from pipeline.deals import deal_record
from pipeline.deals.replace import ACTION_REPLACE
from pipeline.ingest.beir import import_beir
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.journal.lock import admin_lock
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities
from pipeline.query_sets.sets import list_query_sets
from tests.conftest import FIXTURES
from tests.support.dump import dump_deal

MINI = FIXTURES / "beir_mini"


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


def one_error_line(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def changed_copy(tmp_path: Path, extra: str = "p99") -> Path:
    """beir_mini with one more passage, under the same folder name (same source, new content)."""
    folder = tmp_path / "beir_mini"
    shutil.copytree(MINI, folder)
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(f'{{"_id": "{extra}", "text": "An added passage about Northwind freight costs."}}\n')
    return folder


async def correct(lab: Lab, group: str, key: str) -> str:
    request = CorrectionRequest(
        stable_uuid(group, "fact", key), "A corrected statement.", "qa_response", "Dana (CFO)", date(2026, 4, 2)
    )
    return (await correct_fact(lab, group, request, actor="Ana")).id


async def test_seed_demo_refuses_a_beir_deal_and_import_beir_the_demo_deal(
    lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    data = lab.settings.resolved_data_dir
    beir, demo = "clobber_beir", "clobber_demo"
    await import_beir(lab.backend, lab.embedder, data, MINI, beir)
    await seed_demo(lab.backend, lab.embedder, data, group_id=demo)
    before = {g: (await dump_deal(lab.backend, g), deal_record(lab.store, g)) for g in (beir, demo)}
    sets = {g: list_query_sets(lab.store, g) for g in (beir, demo)}

    for argv in (
        ("seed-demo", "--group", beir),
        ("seed-demo", "--group", beir, "--force"),
        ("import-beir", str(MINI), "--group", demo),
    ):
        capsys.readouterr()
        assert await cli(*argv) == 2, argv
        one_error_line(capsys.readouterr().err, "was built by", "--replace", "Nothing was written")
    for group in (beir, demo):
        assert (await dump_deal(lab.backend, group), deal_record(lab.store, group)) == before[group]
        assert list_query_sets(lab.store, group) == sets[group]
    assert not audit_log(lab.store, beir, ACTION_REPLACE)

    # --replace: the loss is said first, then done and audited with its counts
    capsys.readouterr()
    assert await cli("seed-demo", "--group", beir, "--replace") == 0
    err = capsys.readouterr().err
    assert "warning: replacing deal 'clobber_beir' (beir:beir_mini) with demo discards" in err
    record = deal_record(lab.store, beir)
    assert record is not None and record.source == "demo" and record.content_hash
    [entry] = audit_log(lab.store, beir, ACTION_REPLACE)
    assert entry.details["source"] == "beir:beir_mini" and entry.details["new_source"] == "demo"
    assert entry.details["facts"] == 8 and entry.details["corrections"] == 0
    assert entry.details["query_sets"] == ["labelled"] and entry.actor.startswith("cli")
    for group in (beir, demo):
        await lab.backend.delete_graph(group)


async def test_a_changed_folder_over_a_corrected_deal_needs_replace_and_closes_the_correction(
    lab: Lab, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, group = lab.settings.resolved_data_dir, "clobber_fixed"
    await import_beir(lab.backend, lab.embedder, data, MINI, group)
    correction_id = await correct(lab, group, "p1")
    before, record = await dump_deal(lab.backend, group), deal_record(lab.store, group)

    # the same unchanged folder: still a no-op, correction kept
    assert (await import_beir(lab.backend, lab.embedder, data, MINI, group)).skipped
    changed = changed_copy(tmp_path)
    capsys.readouterr()
    assert await cli("import-beir", str(changed), "--group", group) == 2
    one_error_line(capsys.readouterr().err, "has 1 open admin correction", "--replace")
    assert await dump_deal(lab.backend, group) == before and deal_record(lab.store, group) == record
    open_record = get_correction(lab.store, correction_id)
    assert open_record is not None and not open_record.undone

    assert await cli("import-beir", str(changed), "--group", group, "--replace") == 0
    err = capsys.readouterr().err
    assert "1 open correction" in err and "9 passages" in err
    [entry] = audit_log(lab.store, group, ACTION_REPLACE)
    assert entry.details["corrections"] == 1 and entry.details["correction_ids"] == [correction_id]
    closed = get_correction(lab.store, correction_id)
    assert closed is not None and closed.undone and closed.undo_audit_id == entry.id
    assert closed.undone_by is not None and closed.undone_by.startswith(ACTION_REPLACE)
    with pytest.raises(CorrectionRefused, match=r"already undone by deal\.replace"):
        await undo_correction(lab, group, correction_id, actor="Ana")
    facts = await lab.backend.cypher.facts(group)
    assert len(facts) == 9 and all(f["fact"] != "A corrected statement." for f in facts)
    await lab.backend.delete_graph(group)


async def test_an_admin_merge_on_the_demo_deal_stops_a_forced_reseed(
    lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    data, group = lab.settings.resolved_data_dir, "clobber_merged"
    await seed_demo(lab.backend, lab.embedder, data, group_id=group)
    # the demo's own seeded merges are not an admin's: a forced reseed of an untouched demo deal goes ahead
    assert not (await seed_demo(lab.backend, lab.embedder, data, group_id=group, force=True)).skipped
    entities = [e for e in await lab.backend.cypher.dump_nodes(group) if "Entity" in e["labels"]]
    merged = {r["alias_uuid"] for r in await lab.backend.cypher.merge_records(group)}
    canonical_of = {r["canonical_uuid"] for r in await lab.backend.cypher.merge_records(group)}
    a, b = [e["props"]["uuid"] for e in entities if e["props"]["uuid"] not in merged | canonical_of][:2]
    merge = await merge_entities(lab, group, a, b, "Ana")
    before = await dump_deal(lab.backend, group)

    capsys.readouterr()
    assert await cli("seed-demo", "--group", group, "--force") == 2
    one_error_line(capsys.readouterr().err, "has 1 admin merge", "seed-demo would discard it")
    assert await dump_deal(lab.backend, group) == before
    # unchanged, not forced: a no-op that keeps the merge
    assert (await seed_demo(lab.backend, lab.embedder, data, group_id=group)).skipped

    assert await cli("seed-demo", "--group", group, "--force", "--replace") == 0
    assert "1 admin merge" in capsys.readouterr().err
    [entry] = audit_log(lab.store, group, ACTION_REPLACE)
    assert entry.details["merge_uuids"] == [merge.uuid] and entry.details["source"] == "demo"
    assert merge.uuid not in {r["m"]["uuid"] for r in await lab.backend.cypher.merge_records(group)}
    await lab.backend.delete_graph(group)


async def test_a_changed_folder_without_admin_changes_still_rebuilds(lab: Lab, tmp_path: Path) -> None:
    data, group = lab.settings.resolved_data_dir, "clobber_plain"
    await import_beir(lab.backend, lab.embedder, data, MINI, group)
    result = await import_beir(lab.backend, lab.embedder, data, changed_copy(tmp_path), group)
    assert not result.skipped and result.passages == 9
    assert len(await lab.backend.cypher.facts(group)) == 9
    assert not audit_log(lab.store, group, ACTION_REPLACE)
    await lab.backend.delete_graph(group)


async def test_a_loader_waits_while_an_admin_action_holds_the_data_dir(lab: Lab) -> None:
    """The clobber check and the rebuild run under the admin lock: no correction or merge lands in between."""
    group = "waits-for-admin"
    async with admin_lock(lab.settings.resolved_data_dir):  # an admin action in progress (any process)
        loader = asyncio.create_task(cli("import-beir", str(MINI), "--group", group))
        await asyncio.sleep(5)  # beir_mini imports in well under this when nothing holds the lock
        assert not loader.done() and deal_record(lab.store, group) is None
    assert await loader == 0
    assert deal_record(lab.store, group) is not None
