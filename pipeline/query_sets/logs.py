"""Queries without judgments: a query log (`.txt`, one query a line), a `.csv` with a `query` column, a
`queries.jsonl` alone, or the queries a deal's History recorded. They become an unjudged set, to be judged later.

Queries are de-duplicated on their normalised text (whitespace collapsed, case-folded): the first occurrence
wins and the order is kept. A query without an id of its own gets one from its normalised text
(`q-` + 12 hex digits of its sha256), so importing the same log again gives the same ids. A seeded sample
picks each query by a hash of the seed and its id, not by Python's `random`: the same seed picks the same
queries on any machine and any Python, and a query's fate does not depend on the others'.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline.errors import DataFileError
from pipeline.ingest.jsonl import text_lines
from pipeline.query_sets.files import read_queries
from pipeline.query_sets.records import LabelledQuery

LOG_TYPE = "log"
DEDUPED_FORMATS = ("txt", "csv", "jsonl", "history")  # queries without judgments: repeats are dropped
MAX_QUERY_CHARS = 10_000  # a longer "line" is a blob of data, not a question someone typed


def normalised(text: str) -> str:
    """What makes two queries the same: whitespace runs collapsed, ends trimmed, case folded."""
    return " ".join(text.split()).casefold()


def text_query_id(text: str) -> str:
    """A query's id from its text: stable across imports, and the same for texts equal once normalised."""
    return _id_of(normalised(text))


def _id_of(key: str) -> str:
    return "q-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def _digest(key: str) -> bytes:
    """16 bytes standing for a normalised text: what a large log keeps per query to find repeats (not the text)."""
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).digest()


@dataclass(frozen=True)
class SetRead:
    """Queries and judgments as read from files (or History), before they are checked against a deal."""

    queries: tuple[LabelledQuery, ...]
    qrels: dict[str, dict[str, int]] = field(repr=False)  # query id -> fact or episode uuid -> grade
    format: str  # "beir", "trec", "quepid", "txt", "csv", "jsonl", "history"
    where: str  # the file or folder read, for messages
    judgments_file: str = ""  # the file the judgments came from, for messages naming it
    read: int = 0  # queries read (lines, rows, recorded runs) before de-duplication
    duplicates: int = 0  # dropped as repeats of an earlier query
    sampled_from: int | None = None  # queries there were before a sample was drawn

    @property
    def judgments(self) -> int:
        return sum(len(judged) for judged in self.qrels.values())


def dedupe(queries: Iterable[LabelledQuery]) -> tuple[tuple[LabelledQuery, ...], int]:
    """The queries without later repeats of a normalised text (order kept), and how many were dropped."""
    kept: list[LabelledQuery] = []
    seen: set[str] = set()
    dropped = 0
    for query in queries:
        key = normalised(query.text)
        if key in seen:
            dropped += 1
            continue
        seen.add(key)
        kept.append(query)
    return tuple(kept), dropped


def _pick(seed: int, query_id: str) -> str:
    return hashlib.sha256(f"{seed}\n{query_id}".encode()).hexdigest()


def sample(read: SetRead, size: int, seed: int) -> SetRead:
    """`size` of the queries, chosen by `seed` (the same seed picks the same ones), in their order; judgments
    of the queries left out go with them. All of them when there are no more than `size`."""
    if size < 1:
        raise ValueError("a sample holds at least one query")
    chosen = {q.id for q in sorted(read.queries, key=lambda q: (_pick(seed, q.id), q.id))[:size]}
    queries = tuple(q for q in read.queries if q.id in chosen)
    qrels = {q: judged for q, judged in read.qrels.items() if q in chosen}
    return replace(read, queries=queries, qrels=qrels, sampled_from=len(read.queries))


def _log_queries(path: Path, rows: Iterable[tuple[int, str | None, str]], format: str, what: str) -> SetRead:
    """(line number, id or None, text) rows -> a de-duplicated unjudged set, as `dedupe` keeps it. An id the file
    gives twice for different texts is one line naming both lines. Streamed: each text is normalised once, and
    only the queries kept and a 16-byte digest per distinct text stay in memory (a million-line log)."""
    kept: list[LabelledQuery] = []
    first: dict[str, tuple[int, bytes]] = {}  # query id -> (the line it was first read on, its text's digest)
    seen: set[bytes] = set()  # digests of the normalised texts kept
    read = 0
    for number, given_id, text in rows:
        if len(text) > MAX_QUERY_CHARS:
            raise DataFileError(
                f"{path.name} line {number}: a query of {len(text):,} characters (at most {MAX_QUERY_CHARS:,})"
            )
        key = normalised(text)
        digest = _digest(key)
        query_id = given_id or _id_of(key)
        line, earlier = first.setdefault(query_id, (number, digest))
        if earlier != digest:
            raise DataFileError(f"{path.name} line {number}: query id {query_id!r} already names line {line}'s query")
        read += 1
        if digest not in seen:
            seen.add(digest)
            kept.append(LabelledQuery(query_id, text, LOG_TYPE))
    if not read:
        raise DataFileError(f"{path.name}: no queries ({what})")
    return SetRead(tuple(kept), {}, format, str(path), read=read, duplicates=read - len(kept))


def read_text_log(path: Path) -> SetRead:
    """A `.txt` query log: one query a line (a line ends at LF, CRLF or a lone CR), whitespace stripped, blank
    lines skipped; UTF-8 text only."""

    def rows() -> Iterable[tuple[int, str | None, str]]:
        for number, line in text_lines(path, lone_cr=True):
            if "\x00" in line:
                raise DataFileError(f"{path.name} line {number}: not text (a NUL byte); a query log is UTF-8 text")
            text = (line.removeprefix("\ufeff") if number == 1 else line).strip()
            if text:
                yield number, None, text

    return _log_queries(path, rows(), "txt", "the file holds no non-blank line")


def _decoded(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataFileError(
            f"{path.name} line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None


def csv_rows(path: Path) -> tuple[list[str], Iterable[tuple[int, list[str]]]]:
    """A CSV file's header (as written) and its (line number, row) pairs; blank rows skipped. A byte order mark
    is tolerated; bytes that are not UTF-8, a NUL or a malformed quote are one line naming where."""
    text = _decoded(path)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise DataFileError(f"{path.name} line {line}: not text (a NUL byte)")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)  # a field may hold a line break
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise DataFileError(f"{path.name} line {reader.line_num}: not CSV ({exc})") from None
    if header is None:
        raise DataFileError(f"{path.name}: empty file (a header line is expected)")

    def rows() -> Iterable[tuple[int, list[str]]]:
        try:
            for row in reader:
                if any(cell.strip() for cell in row):
                    yield reader.line_num, row
        except csv.Error as exc:
            raise DataFileError(f"{path.name} line {reader.line_num}: not CSV ({exc})") from None

    return header, rows()


def column(header: list[str], name: str) -> int | None:
    """The index of the column called `name` (case and surrounding spaces ignored), None if there is none."""
    names = [cell.strip().lower() for cell in header]
    return names.index(name) if name in names else None


def read_csv_log(path: Path) -> SetRead:
    """A `.csv` with a `query` column (and an optional `id` column; other columns are ignored)."""
    header, rows = csv_rows(path)
    text_at, id_at = column(header, "query"), column(header, "id")
    if text_at is None:
        found = ", ".join(repr(cell) for cell in header) or "none"
        raise DataFileError(f"{path.name}: no 'query' column (columns found: {found})")

    def queries() -> Iterable[tuple[int, str | None, str]]:
        for number, row in rows:
            if text_at >= len(row):
                raise DataFileError(f"{path.name} line {number}: {len(row)} cells, no 'query' cell")
            text = row[text_at].strip()
            given = row[id_at].strip() if id_at is not None and id_at < len(row) else ""
            if text:
                yield number, given or None, text

    return _log_queries(path, queries(), "csv", "no row has a query")


def read_jsonl_queries(path: Path) -> SetRead:
    """A `queries.jsonl` without judgments: its own ids, types and splits, de-duplicated like a log."""
    queries = read_queries(path)
    kept, dropped = dedupe(queries)
    return SetRead(kept, {}, "jsonl", str(path), read=len(queries), duplicates=dropped)


def history_read(texts: Iterable[tuple[str, int]], group_id: str, limit: int) -> SetRead:
    """(query text, how many runs asked it) of a deal's History, newest first -> an unjudged set of the newest
    `limit` distinct queries (texts equal once normalised are one query: the newest spelling)."""
    queries: list[LabelledQuery] = []
    seen: set[str] = set()
    runs = 0
    for text, asked in texts:
        if len(queries) == limit:
            break
        runs += asked
        if normalised(text) not in seen and text.strip():
            seen.add(normalised(text))
            queries.append(LabelledQuery(text_query_id(text), text.strip(), LOG_TYPE))
    where = f"the History of deal {group_id!r}"
    return SetRead(tuple(queries), {}, "history", where, read=runs, duplicates=runs - len(queries))
