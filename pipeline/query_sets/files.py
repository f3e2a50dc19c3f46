"""Query sets in the BEIR layout on disk: `queries.jsonl` (`_id` or `id`, `text`, optional `type`, `split`) and
`qrels.tsv` (query-id, corpus-id, score: a whole number in digits 0-9; a header line is optional, and a first
line is one only when it names the columns or holds no digit). Reading only; nothing here writes.

What a corpus-id names depends on who reads the files: a fact key of our own loaders (the demo deal, a BEIR
import: `keyed_qrels` turns keys into fact uuids), or a fact / episode uuid of any graphiti graph
(`pipeline.query_sets.importer`).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from pipeline.errors import DataFileError
from pipeline.ingest.jsonl import read_jsonl, text_field, text_lines
from pipeline.ingest.loading import stable_uuid
from pipeline.numbers import whole_number
from pipeline.query_sets.records import LabelledQuery

QUERIES_FILE = "queries.jsonl"
QRELS_FILE = "qrels.tsv"
MAX_GRADE = 1000  # relevance grades are small; a huge one would not fit the store's integers
HEADER = ["query-id", "corpus-id", "score"]  # BEIR's column names (compared in lower case, "_" read as "-")


def _query(row: Any) -> LabelledQuery:
    """A query row; its id and text must be text (an id may be a whole number), never a list or null stored as
    its Python spelling."""
    query_id = text_field(row, "_id" if "_id" in row else "id", ids=True)
    return LabelledQuery(
        query_id, text_field(row, "text"), text_field(row, "type", "unlabelled"), text_field(row, "split", "")
    )


def read_queries(path: Path) -> list[LabelledQuery]:
    queries: list[LabelledQuery] = []
    seen: set[str] = set()
    for number, query in read_jsonl(path, "query", _query):
        if query.id in seen:
            raise DataFileError(f"{path.name} line {number}: duplicate query id {query.id!r}")
        seen.add(query.id)
        queries.append(query)
    if not queries:
        raise DataFileError(f"{path.name}: no queries")
    return queries


def _is_header(row: list[str]) -> bool:
    """A first line is a header only when it is one: BEIR's column names, or three or more fields none of which
    holds a digit of any script. A line with a grade, however malformed ("1e23", "+3", "٣"), is a judgment
    and is checked as one."""
    if [field.strip().lower().replace("_", "-") for field in row[:3]] == HEADER:
        return True
    return len(row) > 2 and not any(ch.isnumeric() for field in row for ch in field)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """query id -> corpus id -> grade. A pair given twice with the same grade counts once; with two grades it is
    refused (`Judged`): which grade was meant is not for this tool to guess."""
    qrels = Judged(path.name)
    for number, line in text_lines(path):
        try:
            row = next(csv.reader([line.removeprefix("\ufeff").rstrip("\r\n")], delimiter="\t"), [])
        except csv.Error:  # a line break inside a field (a lone carriage return): no judgment line
            raise _not_a_judgment(path, number) from None
        if not row or (number == 1 and _is_header(row)):
            continue  # blank line or header
        grade = whole_number(row[2].strip(), -MAX_GRADE, MAX_GRADE, signed=True) if len(row) > 2 else None
        if grade is None:
            raise _not_a_judgment(path, number)
        qrels.add(row[0], row[1], grade, number)
    return qrels.qrels


def _not_a_judgment(path: Path, number: int) -> DataFileError:
    return DataFileError(
        f"{path.name} line {number}: expected query-id<TAB>corpus-id<TAB>score "
        f"(score: a whole number from -{MAX_GRADE} to {MAX_GRADE}, in digits 0-9)"
    )


class Judged:
    """Judgments as a file gives them, line by line: a (query, doc) pair graded twice differently is one line
    naming both lines (a loader used to keep the last one silently)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.qrels: dict[str, dict[str, int]] = {}
        self._lines: dict[tuple[str, str], int] = {}

    def add(self, query_id: str, doc: str, grade: int, line: int, query: str | None = None) -> None:
        judged = self.qrels.setdefault(query_id, {})
        earlier = judged.get(doc)
        if earlier is not None and earlier != grade:
            first = self._lines[(query_id, doc)]
            raise DataFileError(
                f"{self.file} line {line}: query {query or query_id!r} and doc {doc!r} graded {grade}, but line "
                f"{first} graded the same pair {earlier}; keep one grade per pair"
            )
        judged[doc] = grade
        self._lines.setdefault((query_id, doc), line)


def query_files(folder: Path) -> tuple[Path, Path]:
    """`queries.jsonl` and `qrels.tsv` of a folder, or one line naming what is missing."""
    if not folder.is_dir():
        raise DataFileError(f"{folder}: not a folder")
    files = (folder / QUERIES_FILE, folder / QRELS_FILE)
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise DataFileError(f"{folder}: missing {', '.join(missing)}")
    return files


def check_references(
    queries: list[LabelledQuery], qrels: dict[str, dict[str, int]], fact_keys: set[str], source: str
) -> None:
    """Every judgment must name a known query and a known fact, or nothing is imported."""
    check_query_ids(queries, qrels, source)
    unknown_d = sorted({d for judged in qrels.values() for d in judged} - fact_keys)
    if unknown_d:
        raise DataFileError(f"{source}: qrels name {len(unknown_d)} unknown corpus ids, e.g. {unknown_d[:3]}")


def check_query_ids(queries: list[LabelledQuery], qrels: dict[str, dict[str, int]], source: str) -> None:
    unknown_q = sorted(set(qrels) - {q.id for q in queries})
    if unknown_q:
        raise DataFileError(f"{source}: qrels name {len(unknown_q)} unknown query ids, e.g. {unknown_q[:3]}")


def keyed_qrels(group_id: str, qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Judgments by fact key (our loaders' ids) -> by fact uuid (`stable_uuid(group_id, "fact", key)`)."""
    return {
        query_id: {stable_uuid(group_id, "fact", key): grade for key, grade in judged.items()}
        for query_id, judged in qrels.items()
    }
