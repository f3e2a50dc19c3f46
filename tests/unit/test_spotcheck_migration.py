"""Migration 0012 on a store holding verdicts from before the two questions: every verdict stays, as a support
verdict with its history, and no longer counts as relevance."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.spotcheck.repo_answers import reviewer_verdicts, verdict_history, verdict_rows
from pipeline.spotcheck.verdicts import summarise, verdict_judgments
from pipeline.store.db import Store
from tests.support.migrations import migrated, store_before

CITATION = {
    "episode_uuid": "ep1",
    "document_name": "10-K",
    "location": "p. 3",
    "channel": "document",
    "confidence": 0.9,
    "author": "",
    "snippet": "Revenue was $5.2M.",
    "episode_valid_at": None,
    "relevance_score": 0.0,
    "retrieved_at": "t",
}


def old_store(tmp_path: Path, monkeypatch) -> Store:
    store = store_before(12, tmp_path, monkeypatch)
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO spotcheck_queues (id, name, group_id, source, size, seed, priority, params, created_by, "
            "created_at) VALUES (1, 'old queue', 'deal', 'query_set', 2, 1, 'random', '{}', 'Ana', 't')"
        )
        for item_id, fact in ((1, "f1"), (2, "f2")):
            conn.execute(
                "INSERT INTO spotcheck_items (id, queue_id, position, query_id, query, run_id, fact_uuid, fact, rank, "
                "score, superseded, signals, episode_uuid, channel, document_name, citation) "
                "VALUES (?, 1, ?, 'q01', 'What was revenue?', NULL, ?, 'Revenue was $5.2M.', 1, 0.5, 0, '[]', "
                "'ep1', 'document', '10-K', ?)",
                (item_id, item_id, fact, json.dumps(CITATION)),
            )
        for verdict_id, item_id, reviewer, verdict, revisions in (
            (1, 1, "Ana", "supported", ("not_supported", "supported")),
            (2, 2, "Ben", "wrong_source", ("wrong_source",)),
        ):
            conn.execute(
                "INSERT INTO spotcheck_verdicts VALUES (?, ?, ?, ?, 'a note', 't1', 't2', ?)",
                (verdict_id, item_id, reviewer, verdict, len(revisions)),
            )
            for revision, value in enumerate(revisions, start=1):
                conn.execute(
                    "INSERT INTO spotcheck_verdict_history (verdict_id, revision, verdict, note, recorded_at) "
                    "VALUES (?, ?, ?, 'a note', 't')",
                    (verdict_id, revision, value),
                )
    return migrated(store, monkeypatch)


def test_old_verdicts_become_support_verdicts_and_stop_counting_as_relevance(tmp_path: Path, monkeypatch) -> None:
    store = old_store(tmp_path, monkeypatch)
    assert 12 in store.applied_migrations()
    assert store.query("PRAGMA foreign_key_check") == []

    rows = verdict_rows(store, "deal")
    assert [(r.reviewer, r.support, r.relevance, r.support_revision, r.note) for r in rows] == [
        ("Ana", "supported", None, 2, "a note"),
        ("Ben", "wrong_source", None, 1, "a note"),
    ]
    assert reviewer_verdicts(store, 1, "Ana")[1].verdict == "supported"
    assert [(rev, v) for rev, v, _, _ in verdict_history(store, 1)] == [(1, "not_supported"), (2, "supported")]

    summary = summarise(rows)  # they keep their value as support ...
    assert (summary.overall.verdicts, summary.overall.counts["supported"], summary.relevance.answers) == (2, 1, 0)
    assert verdict_judgments(store, "deal") == {}  # ... and are no relevance judgments any more
