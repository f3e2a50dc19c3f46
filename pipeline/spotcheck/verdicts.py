"""Reviewers' verdicts on queue items: record (one transaction each), summarise, export, judge.

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

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from pipeline.csv_cells import dicts_to_csv
from pipeline.errors import InvalidInput
from pipeline.spotcheck.records import VerdictRecord, VerdictRow, clean_name
from pipeline.spotcheck.repo import save_verdict, verdict_rows
from pipeline.store.db import Store

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
    return save_verdict(store, item_id, reviewer, verdict, note)


# --- summaries, exports and judgments ----------------------------------------------------------

CSV_COLUMNS = tuple(VerdictRow.__dataclass_fields__)


def export_csv(rows: Iterable[VerdictRow]) -> str:
    """One CSV row per verdict, with a header (cells made safe for spreadsheets)."""
    return dicts_to_csv((asdict(row) for row in rows), CSV_COLUMNS)


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
                    first.queue_name,
                    first.position,
                    first.query,
                    first.fact,
                    first.document_name,
                    tuple((r.reviewer, r.verdict, r.note) for r in item_rows),
                )
            )
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
