"""Reviewers' verdicts on queue items: record (one transaction each), resume, summarise, export, judge.

One verdict per (item, reviewer), reviewer names compared case-insensitively. A second verdict by the
same reviewer updates theirs (revision + 1, `updated_at`); every recorded verdict is also appended to
`spotcheck_verdict_history`. Two reviewers never overwrite each other.

Verdicts as relevance judgments (`verdict_judgments`): supported = 2, partially supported = 1,
not supported = 0, wrong source = 0. Several reviewers of one citation: the lowest grade counts
(a disputed citation is not trusted). Several citations of one fact for one query: the highest grade
counts (one supporting source is enough). Queries are keyed by their labelled id ("q01") when the item
came from the labelled query set, else by the query text. Fact samples (no query) give no judgment.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from pipeline.errors import InvalidInput
from pipeline.spotcheck.queue import clean_name
from pipeline.store.db import Store, utc_now

Verdict = Literal["supported", "partially_supported", "not_supported", "wrong_source"]
VERDICTS: dict[str, str] = {
    "supported": "Supported",
    "partially_supported": "Partially supported",
    "not_supported": "Not supported",
    "wrong_source": "Wrong source",
}
GRADES: dict[str, int] = {"supported": 2, "partially_supported": 1, "not_supported": 0, "wrong_source": 0}
MAX_NOTE = 2000
MAX_REVIEWER = 80


@dataclass(frozen=True)
class VerdictRecord:
    id: int
    item_id: int
    reviewer: str
    verdict: str
    note: str
    created_at: str
    updated_at: str
    revision: int


@dataclass(frozen=True)
class Progress:
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


def clean_reviewer(name: str) -> str:
    return clean_name(name, "reviewer name", MAX_REVIEWER)


def record_verdict(store: Store, item_id: int, reviewer: str, verdict: str, note: str = "") -> VerdictRecord:
    """Insert or update this reviewer's verdict on the item, and append it to the history: one transaction."""
    reviewer = clean_reviewer(reviewer)
    if verdict not in VERDICTS:
        raise InvalidInput(f"Unknown verdict {verdict!r}; one of: {', '.join(VERDICTS)}.")
    note = (note or "").strip()
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"The note is {len(note):,} characters long; the limit is {MAX_NOTE:,}.")
    now = utc_now()
    with store.transaction() as conn:
        if not conn.execute("SELECT 1 FROM spotcheck_items WHERE id = ?", (item_id,)).fetchone():
            raise InvalidInput(f"No spot-check item #{item_id}: the queue may have been removed.")
        conn.execute(
            """
            INSERT INTO spotcheck_verdicts (item_id, reviewer, verdict, note, created_at, updated_at, revision)
            VALUES (?, ?, ?, ?, ?, ?, 1)
            ON CONFLICT (item_id, reviewer) DO UPDATE SET
                verdict = excluded.verdict, note = excluded.note, updated_at = excluded.updated_at,
                revision = spotcheck_verdicts.revision + 1
            """,
            (item_id, reviewer, verdict, note, now, now),
        )
        row = conn.execute(
            "SELECT * FROM spotcheck_verdicts WHERE item_id = ? AND reviewer = ?", (item_id, reviewer)
        ).fetchone()
        conn.execute(
            """
            INSERT INTO spotcheck_verdict_history (verdict_id, revision, verdict, note, recorded_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            (row["id"], row["revision"], verdict, note, now),
        )
    return VerdictRecord(**dict(row))


def reviewer_verdicts(store: Store, queue_id: int, reviewer: str) -> dict[int, VerdictRecord]:
    """item id -> this reviewer's verdict, for one queue."""
    rows = store.query(
        """
        SELECT v.* FROM spotcheck_verdicts v JOIN spotcheck_items i ON i.id = v.item_id
        WHERE i.queue_id = ? AND v.reviewer = ?
        """,
        (queue_id, reviewer.strip()),
    )
    return {r["item_id"]: VerdictRecord(**dict(r)) for r in rows}


def progress(store: Store, queue_id: int, reviewer: str) -> Progress:
    row = store.query(
        """
        SELECT COUNT(*) AS total, COUNT(v.id) AS done
        FROM spotcheck_items i LEFT JOIN spotcheck_verdicts v ON v.item_id = i.id AND v.reviewer = ?
        WHERE i.queue_id = ?
        """,
        (reviewer.strip(), queue_id),
    )[0]
    return Progress(int(row["done"]), int(row["total"]))


def resume_position(store: Store, queue_id: int, reviewer: str) -> int | None:
    """1-based position of the reviewer's first item without a verdict; None when all are done."""
    row = store.query(
        """
        SELECT MIN(i.position) FROM spotcheck_items i
        WHERE i.queue_id = ? AND NOT EXISTS (
            SELECT 1 FROM spotcheck_verdicts v WHERE v.item_id = i.id AND v.reviewer = ?)
        """,
        (queue_id, reviewer.strip()),
    )[0]
    return None if row[0] is None else int(row[0])


def next_open_position(store: Store, queue_id: int, reviewer: str, after: int) -> int | None:
    """The first position after `after` without the reviewer's verdict, wrapping round; None when all are done."""
    rows = store.query(
        """
        SELECT i.position FROM spotcheck_items i
        WHERE i.queue_id = ? AND NOT EXISTS (
            SELECT 1 FROM spotcheck_verdicts v WHERE v.item_id = i.id AND v.reviewer = ?)
        ORDER BY i.position
        """,
        (queue_id, reviewer.strip()),
    )
    open_positions = [int(r[0]) for r in rows]
    later = [p for p in open_positions if p > after]
    return (later or open_positions or [None])[0]


def verdict_history(store: Store, verdict_id: int) -> list[tuple[int, str, str, str]]:
    """(revision, verdict, note, recorded_at), oldest first."""
    rows = store.query(
        "SELECT revision, verdict, note, recorded_at FROM spotcheck_verdict_history WHERE verdict_id = ? ORDER BY id",
        (verdict_id,),
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


# --- reading verdicts for summaries, exports and judgments ----------------------------------------


@dataclass(frozen=True)
class VerdictRow:
    """One verdict with its item: one CSV row."""

    queue_id: int
    queue_name: str
    group_id: str
    position: int
    item_id: int
    query_id: str
    query: str
    fact_uuid: str
    fact: str
    rank: int | None
    score: float | None
    episode_uuid: str
    document_name: str
    channel: str
    reviewer: str
    verdict: str
    note: str
    created_at: str
    updated_at: str
    revision: int


def verdict_rows(store: Store, group_id: str, queue_id: int | None = None) -> list[VerdictRow]:
    """Every verdict on the deal (or on one of its queues), by queue, position, reviewer."""
    rows = store.query(
        """
        SELECT q.id AS queue_id, q.name AS queue_name, q.group_id, i.position, i.id AS item_id, i.query_id, i.query,
               i.fact_uuid, i.fact, i.rank, i.score, i.episode_uuid, i.document_name, i.channel,
               v.reviewer, v.verdict, v.note, v.created_at, v.updated_at, v.revision
        FROM spotcheck_verdicts v
        JOIN spotcheck_items i ON i.id = v.item_id
        JOIN spotcheck_queues q ON q.id = i.queue_id
        WHERE q.group_id = :g AND (:q IS NULL OR q.id = :q)
        ORDER BY q.id, i.position, v.reviewer
        """,
        {"g": group_id, "q": queue_id},
    )
    return [VerdictRow(**dict(r)) for r in rows]


CSV_COLUMNS = tuple(VerdictRow.__dataclass_fields__)


def export_csv(rows: Iterable[VerdictRow]) -> str:
    """One CSV row per verdict, with a header."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(asdict(row))
    return out.getvalue()


@dataclass(frozen=True)
class RateRow:
    key: str  # channel or document
    verdicts: int
    counts: dict[str, int]  # verdict -> count

    @property
    def supported_rate(self) -> float:
        return self.counts.get("supported", 0) / self.verdicts if self.verdicts else 0.0


@dataclass(frozen=True)
class Summary:
    verdicts: int
    reviewers: int
    items_reviewed: int
    overall: RateRow
    by_channel: tuple[RateRow, ...]
    by_document: tuple[RateRow, ...]


def _rates(rows: Sequence[VerdictRow], key: str) -> RateRow:
    counts = {v: sum(1 for r in rows if r.verdict == v) for v in VERDICTS}
    return RateRow(key, len(rows), counts)


def summarise(rows: Sequence[VerdictRow]) -> Summary:
    """Supported rate = supported verdicts / all verdicts (each reviewer's verdict counts once)."""
    by_channel: dict[str, list[VerdictRow]] = defaultdict(list)
    by_document: dict[str, list[VerdictRow]] = defaultdict(list)
    for row in rows:
        by_channel[row.channel].append(row)
        by_document[row.document_name or "(no document)"].append(row)
    return Summary(
        verdicts=len(rows),
        reviewers=len({r.reviewer.casefold() for r in rows}),
        items_reviewed=len({r.item_id for r in rows}),
        overall=_rates(rows, "all"),
        by_channel=tuple(_rates(v, k) for k, v in sorted(by_channel.items())),
        by_document=tuple(_rates(v, k) for k, v in sorted(by_document.items())),
    )


@dataclass(frozen=True)
class Disagreement:
    queue_name: str
    position: int
    query: str
    fact: str
    document_name: str
    verdicts: tuple[tuple[str, str, str], ...]  # (reviewer, verdict, note)


def disagreements(rows: Sequence[VerdictRow]) -> list[Disagreement]:
    """Items on which reviewers gave different verdicts."""
    by_item: dict[int, list[VerdictRow]] = defaultdict(list)
    for row in rows:
        by_item[row.item_id].append(row)
    out = []
    for item_rows in by_item.values():
        if len({r.verdict for r in item_rows}) > 1:
            first = item_rows[0]
            out.append(
                Disagreement(
                    first.queue_name, first.position, first.query, first.fact, first.document_name,
                    tuple((r.reviewer, r.verdict, r.note) for r in item_rows),
                )
            )  # fmt: skip
    return sorted(out, key=lambda d: (d.queue_name, d.position))


def verdict_judgments(store: Store, group_id: str) -> dict[str, dict[str, int]]:
    """query id (labelled set) or query text -> {fact uuid: grade}; see the module doc for the rules."""
    per_citation: dict[tuple[str, str, str], int] = {}
    for row in verdict_rows(store, group_id):
        if not row.query:
            continue
        key = (row.query_id or row.query, row.fact_uuid, row.episode_uuid)
        grade = GRADES[row.verdict]
        per_citation[key] = min(grade, per_citation.get(key, grade))
    judgments: dict[str, dict[str, int]] = defaultdict(dict)
    for (query, fact_uuid, _), grade in sorted(per_citation.items()):
        judgments[query][fact_uuid] = max(grade, judgments[query].get(fact_uuid, grade))
    return dict(judgments)
