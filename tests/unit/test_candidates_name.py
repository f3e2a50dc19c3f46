"""N is `candidates` in the records, while what is already stored keeps its first name, `num_candidates`: old
spot-check queue parameters and vector index checks load, and the `vector-index --json` key stays."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.retrieval.vector_index.records import RecallCheck
from pipeline.retrieval.vector_index.repo import latest_check, save_check
from pipeline.spotcheck import repo as spot
from pipeline.spotcheck.records import QueueSpec
from pipeline.store.db import open_store
from tests.unit.test_spotcheck_sampling import draft


def test_a_queue_stored_with_the_old_key_loads_under_the_new_one(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    old = {"num_candidates": 30, "query_limit": None, "reranker": "local", "top_k": 3}  # as queues were stored
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO spotcheck_queues (id, name, group_id, source, size, seed, priority, params, created_by, "
            "created_at) VALUES (1, 'old queue', 'deal', 'query_set', 2, 1, 'random', ?, 'Ana', 't')",
            (json.dumps(old),),
        )
    assert spot.get_queue(store, 1).params == {"candidates": 30, "query_limit": None, "reranker": "local", "top_k": 3}
    spec = QueueSpec("new queue", "deal", "query_set", 1, 1, "random", "Ana", candidates=40)
    made = spot.insert_queue(store, spec, [draft(1)], "new queue", "Ana")
    assert made.params["candidates"] == 40 and "num_candidates" not in made.params


def test_a_recall_check_stored_in_the_old_column_loads_and_its_json_key_stays(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with store.transaction() as conn:  # a row as an older store holds it, under the column's first name
        conn.execute(
            "INSERT INTO vector_index_checks (group_id, created_at, facts, queries, num_candidates, pool_recall, "
            "cosine_recall, exact_ms_p50, index_ms_p50) VALUES ('deal', '2026-01-02T00:00:00', 400, 20, 50, 0.96, "
            "0.9, 12.0, 3.0)"
        )
    check = latest_check(store, "deal")
    assert check is not None and check.candidates == 50 and check.pool_recall == 0.96
    newer = RecallCheck("deal", "2026-01-03T00:00:00", 410, 10, 25, 0.9, 0.8, 11.0, 2.0)
    save_check(store, newer)
    assert latest_check(store, "deal") == newer
    assert store.query("SELECT num_candidates FROM vector_index_checks ORDER BY id")[-1][0] == 25
    printed = newer.to_dict()  # what `vector-index --json` prints: scripts read `num_candidates`
    assert printed["num_candidates"] == 25 and "candidates" not in printed
