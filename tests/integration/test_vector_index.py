"""The vector index option of the first stage, on the real embedded FalkorDB: it keeps graphiti's filters, finds
what exact search finds on the demo deal, is refused in one line where there is no index, and is recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_similarity_search

from pipeline.errors import InvalidInput
from pipeline.history.repo import load_run, save_run
from pipeline.ingest.beir import import_beir
from pipeline.ingest.loading import parse_time, stable_uuid
from pipeline.lab import Lab
from pipeline.retrieval.filters import passes, temporal_filter
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.vector_index.build import ensure_index, has_ready_index
from pipeline.retrieval.vector_index.check import check_recall
from pipeline.store import open_store
from tests.conftest import FIXTURES, make_settings
from tests.integration.test_retrieve import _chain

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ("What was Halcyon's revenue and EBITDA?", "customer concentration risk", "Who is the CEO?")


@pytest.mark.parametrize(
    "search_filter",
    [
        temporal_filter(False, None),
        temporal_filter(True, None),
        temporal_filter(False, datetime(2024, 6, 30, tzinfo=UTC)),
        temporal_filter(False, datetime(2025, 12, 31, tzinfo=UTC)),
    ],
    ids=["current", "everything", "as-of-2024-06", "as-of-2025-12"],
)
async def test_filters_on_index_hits_keep_exactly_what_graphitis_cypher_keeps(
    lab: Lab, demo: str, search_filter: SearchFilters
) -> None:
    driver = lab.backend.driver(demo)
    vector = await lab.embedder.embed_query("revenue")
    every = await edge_similarity_search(driver, vector, None, None, SearchFilters(), [demo], 10_000, -1.0)
    kept = await edge_similarity_search(driver, vector, None, None, search_filter, [demo], 10_000, -1.0)
    assert len(every) > len(kept) or search_filter == SearchFilters()
    assert {e.uuid for e in every if passes(e, search_filter)} == {e.uuid for e in kept}


async def test_the_index_first_stage_finds_what_exact_search_finds_on_the_demo_deal(lab: Lab, demo: str) -> None:
    await ensure_index(lab, demo)
    assert await has_ready_index(lab, demo)
    for query in QUERIES:
        exact = await retrieve(lab, query, demo, 50, 10, "none")
        approx = await retrieve(lab, query, demo, 50, 10, "none", first_stage="vector_index")
        assert approx.first_stage == "vector_index" and exact.first_stage == "exact"
        shared = {c.uuid for c in exact.candidates} & {c.uuid for c in approx.candidates}
        assert len(shared) >= 0.9 * len(exact.candidates), query  # 370 facts: HNSW is all but exact here
        cosine = {c.uuid for c in approx.candidates if c.method_ranks["cosine"]}
        assert cosine and not any(c.superseded for c in approx.candidates)
    check = await check_recall(lab, demo, QUERIES, 50)
    assert check.queries == 3 and check.facts >= 370 and 0.9 <= check.pool_recall <= 1.0
    assert "recall@50" in check.summary()


async def test_the_index_answers_as_of_a_date_with_the_older_value(lab: Lab, demo: str) -> None:
    await ensure_index(lab, demo)
    old, new = _chain()
    old_uuid, new_uuid = stable_uuid(demo, "fact", old["id"]), stable_uuid(demo, "fact", new["id"])
    before = parse_time(new["valid_at"]) - timedelta(days=1)
    then = await retrieve(lab, old["fact"], demo, 50, 10, "none", as_of=before, first_stage="vector_index")
    assert old_uuid in {r.uuid for r in then.results}
    assert new_uuid not in {c.uuid for c in then.candidates}


async def test_a_run_through_the_index_is_recorded_as_such(lab: Lab, demo: str) -> None:
    await ensure_index(lab, demo)
    run = await retrieve(lab, QUERIES[0], demo, 20, 5, "local", first_stage="vector_index")
    stored = load_run(lab.store, save_run(lab.store, run, "cli"))
    assert stored.run.first_stage == "vector_index"
    rows = lab.store.query("SELECT first_stage FROM runs ORDER BY id DESC LIMIT 1")
    assert rows[0]["first_stage"] == "vector_index"


async def test_no_index_is_one_clear_refusal_and_the_cli_creates_and_measures_it(tmp_path: Path) -> None:
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "mini")
        with pytest.raises(InvalidInput, match=r"no ready vector index.*vector-index --group mini"):
            await retrieve(lab, "Northwind net sales", "mini", 8, 3, "none", first_stage="vector_index")
        with pytest.raises(InvalidInput, match="Unknown first stage"):
            await retrieve(lab, "Northwind net sales", "mini", 8, 3, "none", first_stage="approximate")  # type: ignore[arg-type]
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
    env = os.environ | {"RETRIEVAL_LAB_DATA_DIR": str(tmp_path), "RETRIEVAL_LAB_EMBEDDER": "local"}
    command = [sys.executable, "-m", "pipeline", "vector-index", "--group", "mini", "--candidates", "4", "--json"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["created"] is True and report["queries"] >= 1 and 0.0 <= report["pool_recall"] <= 1.0
    assert "vector index of 'mini' created: recall@4" in done.stderr
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and json.loads(again.stdout)["created"] is False
    actions = [r["action"] for r in open_store(tmp_path).query("SELECT action FROM audit_log")]
    assert actions.count("vector_index.create") == 1, actions
    bad = subprocess.run([*command[:5], "nowhere"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


async def test_a_cli_killed_while_the_index_builds_is_audited_when_it_is_run_again(tmp_path: Path) -> None:
    """kill -9 once the index statement has returned (the database builds it; the journal's failpoint at that
    step): the index exists and is used, so the next start completes the change and audits it, and the re-run
    says the index is ready, not created a second time."""
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "mini")
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
    env = os.environ | {"RETRIEVAL_LAB_DATA_DIR": str(tmp_path), "RETRIEVAL_LAB_EMBEDDER": "local"}
    command = [sys.executable, "-m", "pipeline", "vector-index", "--group", "mini", "--candidates", "4", "--json"]
    killed = subprocess.run(
        command,
        cwd=ROOT,
        env=env | {"RETRIEVAL_LAB_FAILPOINT": "vector_index.create:create_index:kill-self"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and json.loads(again.stdout)["created"] is False, again.stderr[-2000:]
    rows = open_store(tmp_path).query("SELECT action, actor, details FROM audit_log ORDER BY id")
    created = [r for r in rows if r["action"] == "vector_index.create"]
    assert len(created) == 1 and created[0]["actor"].startswith("cli"), [dict(r) for r in rows]
    assert json.loads(created[0]["details"])["completed_after_interruption"] is True
    assert [r["action"] for r in rows].count("journal.complete") == 1
    entries = open_store(tmp_path).query("SELECT kind, status FROM admin_journal")
    assert [(e["kind"], e["status"]) for e in entries] == [("vector_index.create", "completed")]
