"""Spot-check SQL, answers: reviewers' answers to both questions (support verdicts and relevance grades:
upserted, every revision also kept in a history table), adjudications (upserted with an audit entry each), and
what they add up to (a reviewer's progress, where they resume, every answer on a deal). Queues and their items
are `repo.py`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.audit import record_audit
from pipeline.deals.access import access_of
from pipeline.errors import InvalidInput
from pipeline.spotcheck.records import (
    AdjudicationRecord,
    Progress,
    RelevanceRecord,
    VerdictRecord,
    VerdictRow,
)
from pipeline.spotcheck.repo import require_item, require_queue
from pipeline.store.db import Store, utc_now


@dataclass(frozen=True)
class _AnswerTables:
    """Where one question's answers live: one row per (item, reviewer), every revision in its history."""

    table: str
    history: str
    history_key: str  # the history's column naming the answer row
    value: str  # the answer's column: the support verdict or the relevance grade


_SUPPORT = _AnswerTables("spotcheck_verdicts", "spotcheck_verdict_history", "verdict_id", "verdict")
_RELEVANCE = _AnswerTables("spotcheck_relevance", "spotcheck_relevance_history", "relevance_id", "grade")


def _save_answer(
    conn: sqlite3.Connection, t: _AnswerTables, item_id: int, reviewer: str, value: object, note: str
) -> sqlite3.Row:
    """Insert or update this reviewer's answer (revision + 1) and append it to the history, in `conn`'s
    transaction; the answer's row. Table names are the constants above, never user text."""
    now = utc_now()
    conn.execute(
        f"""
        INSERT INTO {t.table} (item_id, reviewer, {t.value}, note, created_at, updated_at, revision)
        VALUES (?, ?, ?, ?, ?, ?, 1)
        ON CONFLICT (item_id, reviewer) DO UPDATE SET
            {t.value} = excluded.{t.value}, note = excluded.note, updated_at = excluded.updated_at,
            revision = {t.table}.revision + 1
        """,
        (item_id, reviewer, value, note, now, now),
    )
    row = conn.execute(f"SELECT * FROM {t.table} WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)).fetchone()
    conn.execute(
        f"INSERT INTO {t.history} ({t.history_key}, revision, {t.value}, note, recorded_at) VALUES (?, ?, ?, ?, ?)",
        (row["id"], row["revision"], value, note, now),
    )
    return row


def save_verdict(store: Store, item_id: int, reviewer: str, verdict: str, note: str) -> VerdictRecord:
    """Insert or update this reviewer's support verdict on the item, and append it to the history: one
    transaction."""
    with store.transaction() as conn:
        require_item(store, conn, item_id)
        row = _save_answer(conn, _SUPPORT, item_id, reviewer, verdict, note)
    return VerdictRecord.from_row(row)


def save_relevance(store: Store, item_id: int, reviewer: str, grade: int, note: str) -> RelevanceRecord:
    """Insert or update this reviewer's relevance grade on the item, and append it to the history: one
    transaction. Fact-sample items (no query) have no relevance question."""
    with store.transaction() as conn:
        item = require_item(store, conn, item_id)
        if not item["query"]:
            raise InvalidInput("A fact-sample item has no query: only the support question applies to it.")
        row = _save_answer(conn, _RELEVANCE, item_id, reviewer, grade, note)
    return RelevanceRecord.from_row(row)


def save_relevances(store: Store, reviewer: str, grades: Sequence[tuple[int, int, str]]) -> int:
    """Many (item id, grade, note) answers of one reviewer (an LLM judge's run) in one transaction, each with
    its history; an answer equal to the one on record is left as it is. How many were written."""
    written = 0
    with store.transaction() as conn:
        for item_id, grade, note in grades:
            item = require_item(store, conn, item_id)
            if not item["query"]:
                raise InvalidInput("A fact-sample item has no query: only the support question applies to it.")
            same = conn.execute(
                "SELECT 1 FROM spotcheck_relevance WHERE item_id = ? AND reviewer = ? AND grade = ? AND note = ?",
                (item_id, reviewer, grade, note),
            ).fetchone()
            if not same:
                _save_answer(conn, _RELEVANCE, item_id, reviewer, grade, note)
                written += 1
    return written


def _answered(conn: sqlite3.Connection, item_id: int, reviewer: str) -> bool:
    """Whether `reviewer` answered either question on the item (names compared as the answer tables do)."""
    return any(
        conn.execute(f"SELECT 1 FROM {t.table} WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)).fetchone()
        for t in (_SUPPORT, _RELEVANCE)
    )


def save_adjudication(
    store: Store, item_id: int, question: str, answer: str, adjudicator: str, note: str
) -> AdjudicationRecord:
    """Record (or revise) the final answer to one question on the item, with its audit entry: one transaction.
    A reviewer who answered the item is a party to its disagreement and is refused (checked in the transaction)."""
    now = utc_now()
    with store.transaction() as conn:
        item = require_item(store, conn, item_id)
        access_of(store).require(item["group_id"], "adjudicate a spot-check item")
        if _answered(conn, item_id, adjudicator):
            raise InvalidInput(
                f"{adjudicator} answered this item: a party to the disagreement cannot adjudicate it; "
                "ask another adjudicator."
            )
        before = conn.execute(
            "SELECT answer FROM spotcheck_adjudications WHERE item_id = ? AND question = ?", (item_id, question)
        ).fetchone()
        conn.execute(
            """
            INSERT INTO spotcheck_adjudications
                (item_id, question, answer, adjudicator, note, created_at, updated_at, revision)
            VALUES (?, ?, ?, ?, ?, ?, ?, 1)
            ON CONFLICT (item_id, question) DO UPDATE SET
                answer = excluded.answer, adjudicator = excluded.adjudicator, note = excluded.note,
                updated_at = excluded.updated_at, revision = spotcheck_adjudications.revision + 1
            """,
            (item_id, question, answer, adjudicator, note, now, now),
        )
        row = conn.execute(
            "SELECT * FROM spotcheck_adjudications WHERE item_id = ? AND question = ?", (item_id, question)
        ).fetchone()
        details = {
            "queue_id": item["queue_id"],
            "item_id": item_id,
            "position": item["position"],
            "question": question,
            "answer": answer,
            "previous": before["answer"] if before else None,
            "revision": row["revision"],
            "note": note,
        }
        target = f"item {item['position']} of queue #{item['queue_id']}"
        record_audit(store, adjudicator, "spotcheck.adjudicated", item["group_id"], target, details, conn=conn)
    return AdjudicationRecord.from_row(row)


def adjudications(
    store: Store, group_id: str, queue_id: int | None = None
) -> dict[tuple[int, str], AdjudicationRecord]:
    """(item id, question) -> the final answer, for the deal (or one of its queues)."""
    access_of(store).require(group_id)
    rows = store.query(
        """
        SELECT a.* FROM spotcheck_adjudications a
        JOIN spotcheck_items i ON i.id = a.item_id JOIN spotcheck_queues q ON q.id = i.queue_id
        WHERE q.group_id = :g AND (:q IS NULL OR q.id = :q)
        """,
        {"g": group_id, "q": queue_id},
    )
    return {(r["item_id"], r["question"]): AdjudicationRecord.from_row(r) for r in rows}


def _reviewer_answers(store: Store, t: _AnswerTables, queue_id: int, reviewer: str) -> list[sqlite3.Row]:
    """This reviewer's answer rows to one question, for one queue (`t` is a constant above, never user text)."""
    require_queue(store, queue_id)
    return store.query(
        f"""
        SELECT a.* FROM {t.table} a JOIN spotcheck_items i ON i.id = a.item_id
        WHERE i.queue_id = ? AND a.reviewer = ?
        """,
        (queue_id, reviewer.strip()),
    )


def _answer_history(store: Store, t: _AnswerTables, answer_id: int) -> list[tuple[int, Any, str, str]]:
    """(revision, answer, note, recorded_at) of one answer row, oldest first."""
    rows = store.query(
        f"SELECT revision, {t.value}, note, recorded_at FROM {t.history} WHERE {t.history_key} = ? ORDER BY id",
        (answer_id,),
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


def reviewer_relevance(store: Store, queue_id: int, reviewer: str) -> dict[int, RelevanceRecord]:
    """item id -> this reviewer's relevance grade, for one queue."""
    return {r["item_id"]: RelevanceRecord.from_row(r) for r in _reviewer_answers(store, _RELEVANCE, queue_id, reviewer)}


def relevance_history(store: Store, relevance_id: int) -> list[tuple[int, int, str, str]]:
    """(revision, grade, note, recorded_at), oldest first."""
    return _answer_history(store, _RELEVANCE, relevance_id)


# an item this reviewer has answered (either question): what progress and resuming count
ANSWERED = """(
    EXISTS (SELECT 1 FROM spotcheck_verdicts v WHERE v.item_id = i.id AND v.reviewer = :r)
    OR EXISTS (SELECT 1 FROM spotcheck_relevance r WHERE r.item_id = i.id AND r.reviewer = :r))"""


def reviewer_verdicts(store: Store, queue_id: int, reviewer: str) -> dict[int, VerdictRecord]:
    """item id -> this reviewer's support verdict, for one queue."""
    return {r["item_id"]: VerdictRecord.from_row(r) for r in _reviewer_answers(store, _SUPPORT, queue_id, reviewer)}


def progress(store: Store, queue_id: int, reviewer: str) -> Progress:
    """Items the reviewer has answered (one question or both) out of the queue's items."""
    require_queue(store, queue_id)
    row = store.query(
        f"SELECT COUNT(*) AS total, COALESCE(SUM({ANSWERED}), 0) AS done FROM spotcheck_items i WHERE i.queue_id = :q",
        {"r": reviewer.strip(), "q": queue_id},
    )[0]
    return Progress(int(row["done"]), int(row["total"]))


def resume_position(store: Store, queue_id: int, reviewer: str) -> int | None:
    """1-based position of the reviewer's first item without an answer; None when all are done."""
    require_queue(store, queue_id)
    row = store.query(
        f"SELECT MIN(i.position) FROM spotcheck_items i WHERE i.queue_id = :q AND NOT {ANSWERED}",
        {"q": queue_id, "r": reviewer.strip()},
    )[0]
    return None if row[0] is None else int(row[0])


def verdict_history(store: Store, verdict_id: int) -> list[tuple[int, str, str, str]]:
    """(revision, verdict, note, recorded_at), oldest first."""
    return _answer_history(store, _SUPPORT, verdict_id)


def verdict_rows(store: Store, group_id: str, queue_id: int | None = None) -> list[VerdictRow]:
    """Every reviewer's answers on the deal (or on one of its queues): one row per (item, reviewer) with a
    support verdict and / or a relevance grade, and the item's adjudicated answers; by queue, position, reviewer."""
    access_of(store).require(group_id)
    rows = store.query(
        """
        WITH answered AS (
            SELECT item_id, reviewer FROM spotcheck_verdicts
            UNION
            SELECT item_id, reviewer FROM spotcheck_relevance
        )
        SELECT q.id AS queue_id, q.name AS queue_name, q.group_id, i.position, i.id AS item_id, i.query_id, i.query,
               i.fact_uuid, i.fact, i.rank, i.score, i.episode_uuid, i.document_name, i.channel,
               COALESCE(r.reviewer, v.reviewer) AS reviewer, r.grade AS relevance, v.verdict AS support,
               r.note AS relevance_note, v.note AS support_note,
               r.revision AS relevance_revision, v.revision AS support_revision,
               MIN(COALESCE(r.created_at, v.created_at), COALESCE(v.created_at, r.created_at)) AS created_at,
               MAX(COALESCE(r.updated_at, v.updated_at), COALESCE(v.updated_at, r.updated_at)) AS updated_at,
               ar.answer AS final_relevance, av.answer AS final_support
        FROM answered a
        JOIN spotcheck_items i ON i.id = a.item_id
        JOIN spotcheck_queues q ON q.id = i.queue_id
        LEFT JOIN spotcheck_relevance r ON r.item_id = a.item_id AND r.reviewer = a.reviewer COLLATE NOCASE
        LEFT JOIN spotcheck_verdicts v ON v.item_id = a.item_id AND v.reviewer = a.reviewer COLLATE NOCASE
        LEFT JOIN spotcheck_adjudications ar ON ar.item_id = a.item_id AND ar.question = 'relevance'
        LEFT JOIN spotcheck_adjudications av ON av.item_id = a.item_id AND av.question = 'support'
        WHERE q.group_id = :g AND (:q IS NULL OR q.id = :q)
        ORDER BY q.id, i.position, reviewer COLLATE NOCASE
        """,
        {"g": group_id, "q": queue_id},
    )
    return [VerdictRow.from_row(r) for r in rows]
