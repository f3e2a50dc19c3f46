"""Query sets on disk in the formats other tools use, read into queries + judgments (`SetRead`), and which
format a path holds. Writing them: `pipeline.query_sets.export`.

- `beir`: a folder with `queries.jsonl` (`_id`, `text`, `type`, `split`) and `qrels.tsv` (`query-id corpus-id
  score`): this tool's own layout (`files`).
- `trec`: a folder with `qrels.txt` (`query-id 0 doc-id grade`, whitespace-separated, trec_eval's qrels) and
  `queries.tsv` (`query-id<TAB>text`, TREC topics as tab-separated lines).
- `quepid`: Quepid's ratings CSV, `query,docid,rating`. It carries no query ids: a query's id comes from its
  text as a log line's does (`logs.text_query_id`), and texts equal once normalised are one query (the first
  spelling). A cell this tool wrote with a `'` in front (`csv_cells.reversible_cell`) is read back without it.
- without judgments: `txt`, `csv`, `jsonl` (`logs`).

A corpus id names a fact or an episode of the deal (`importer`). Malformed lines are one line naming the file
and the line; nothing is stored then.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.csv_cells import undo_reversible_cell
from pipeline.errors import DataFileError
from pipeline.ingest.jsonl import text_lines
from pipeline.numbers import whole_number
from pipeline.query_sets.files import (
    MAX_GRADE,
    QRELS_FILE,
    QUERIES_FILE,
    Judged,
    check_query_ids,
    read_qrels,
    read_queries,
)
from pipeline.query_sets.logs import (
    SetRead,
    column,
    csv_rows,
    normalised,
    read_csv_log,
    read_jsonl_queries,
    read_text_log,
    text_query_id,
)
from pipeline.query_sets.records import LabelledQuery

TREC_QRELS = "qrels.txt"
TREC_QUERIES = "queries.tsv"
QUEPID_HEADER = ("query", "docid", "rating")
UNLABELLED = "unlabelled"  # the type of a query whose file says none (as `files.read_queries`)
JUDGED_FORMATS = ("beir", "trec", "quepid")
FORMATS = (*JUDGED_FORMATS, "txt", "csv", "jsonl")
SHAPES = (
    "a folder with queries.jsonl + qrels.tsv (beir), or qrels.txt + queries.tsv (trec), or queries.jsonl alone; "
    "a .txt query log, a .csv with a 'query' column, a Quepid ratings .csv (query,docid,rating), a queries.jsonl"
)
GRADE_RULE = f"a whole number from -{MAX_GRADE} to {MAX_GRADE}, in digits 0-9"


def _grade(text: str) -> int | None:
    return whole_number(text.strip(), -MAX_GRADE, MAX_GRADE, signed=True)


def read_beir(folder: Path) -> SetRead:
    queries_file, qrels_file = folder / QUERIES_FILE, folder / QRELS_FILE
    queries, qrels = read_queries(queries_file), read_qrels(qrels_file)
    check_query_ids(queries, qrels, str(folder))
    return SetRead(tuple(queries), qrels, "beir", str(folder), str(qrels_file), read=len(queries))


def read_trec_queries(path: Path) -> list[LabelledQuery]:
    """`query-id<TAB>text` lines (blank ones skipped; a lone CR ends a line too): the text is everything after the
    first tab, as it is."""
    queries: list[LabelledQuery] = []
    lines: dict[str, int] = {}
    for number, raw in text_lines(path, lone_cr=True):
        line = (raw.removeprefix("\ufeff") if number == 1 else raw).removesuffix("\n").removesuffix("\r")
        if not line.strip():
            continue
        query_id, tab, text = line.partition("\t")
        if not tab or not query_id.strip() or "\x00" in line:
            raise DataFileError(f"{path.name} line {number}: expected query-id<TAB>text")
        if query_id in lines:
            raise DataFileError(f"{path.name} line {number}: query id {query_id!r} repeats line {lines[query_id]}")
        lines[query_id] = number
        queries.append(LabelledQuery(query_id, text, UNLABELLED))
    if not queries:
        raise DataFileError(f"{path.name}: no queries")
    return queries


def read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    """`query-id iteration doc-id grade` lines (whitespace-separated; the iteration, usually 0, is ignored as
    trec_eval ignores it); a (query, doc) pair given twice: once when the grades agree, refused when they do not."""
    qrels = Judged(path.name)
    for number, raw in text_lines(path):
        fields = (raw.removeprefix("\ufeff") if number == 1 else raw).split()
        if not fields:
            continue
        grade = _grade(fields[3]) if len(fields) == 4 else None
        if grade is None:
            raise DataFileError(f"{path.name} line {number}: expected 'query-id 0 doc-id grade' (grade: {GRADE_RULE})")
        qrels.add(fields[0], fields[2], grade, number)
    return qrels.qrels


def read_trec(folder: Path) -> SetRead:
    queries_file, qrels_file = folder / TREC_QUERIES, folder / TREC_QRELS
    queries, qrels = read_trec_queries(queries_file), read_trec_qrels(qrels_file)
    check_query_ids(queries, qrels, str(folder))
    return SetRead(tuple(queries), qrels, "trec", str(folder), str(qrels_file), read=len(queries))


def is_quepid(header: list[str]) -> bool:
    return all(column(header, name) is not None for name in QUEPID_HEADER)


def read_quepid(path: Path) -> SetRead:
    """Quepid's ratings CSV: one row per (query text, doc id, rating)."""
    header, rows = csv_rows(path)
    if not is_quepid(header):
        found = ", ".join(repr(cell) for cell in header) or "none"
        raise DataFileError(f"{path.name}: not a Quepid ratings CSV (query,docid,rating); columns found: {found}")
    at = [column(header, name) for name in QUEPID_HEADER]
    queries: dict[str, LabelledQuery] = {}  # normalised text -> the query (its first spelling)
    qrels = Judged(path.name)
    rows_read = 0
    for number, row in rows:
        cells = [row[i] if i is not None and i < len(row) else None for i in at]
        text, doc, rating = cells
        grade = _grade(rating) if rating is not None else None
        if text is None or not text.strip() or doc is None or not doc.strip() or grade is None:
            raise DataFileError(f"{path.name} line {number}: expected query,docid,rating (rating: {GRADE_RULE})")
        text, doc = undo_reversible_cell(text), undo_reversible_cell(doc.strip())
        query = queries.setdefault(normalised(text), LabelledQuery(text_query_id(text), text, UNLABELLED))
        qrels.add(query.id, doc, grade, number, query=text)
        rows_read += 1
    if not queries:
        raise DataFileError(f"{path.name}: no ratings")
    return SetRead(tuple(queries.values()), qrels.qrels, "quepid", str(path), str(path), read=rows_read)


def detect_format(path: Path) -> str:
    """Which of `FORMATS` the path holds, by its shape; one line listing the shapes read when none fits."""
    if path.is_dir():
        if (path / QRELS_FILE).is_file():
            return "beir"
        if (path / TREC_QRELS).is_file() or (path / TREC_QUERIES).is_file():
            return "trec"
        if (path / QUERIES_FILE).is_file():
            return "jsonl"
        raise DataFileError(f"{path}: no query files in this folder; give {SHAPES}")
    if not path.is_file():
        raise DataFileError(f"{path}: not a folder or a file (nothing at that path)")
    suffix = path.suffix.lower()
    if path.name.lower() == TREC_QRELS:
        raise DataFileError(f"{path}: a TREC qrels file; give its folder (qrels.txt + queries.tsv)")
    if suffix == ".csv":
        header, _ = csv_rows(path)
        return "quepid" if is_quepid(header) else "csv"
    if suffix in (".txt", ".jsonl"):
        return suffix[1:]
    raise DataFileError(f"{path}: not a file this command reads; give {SHAPES}")


def read_path(path: Path, format: str | None = None) -> SetRead:
    """The queries and judgments at `path`, in `format` (detected when None)."""
    format = format or detect_format(path)
    if format not in FORMATS:
        raise DataFileError(f"unknown format {format!r}; one of: {', '.join(FORMATS)}")
    folder_format = format in ("beir", "trec") or (format == "jsonl" and path.is_dir())
    if folder_format and not path.is_dir():
        raise DataFileError(f"{path}: not a folder (the {format} format is a folder)")
    if not folder_format and not path.is_file():
        raise DataFileError(f"{path}: not a file (the {format} format is one file)")
    if format == "beir":
        _require(path, QUERIES_FILE, QRELS_FILE)
        return read_beir(path)
    if format == "trec":
        _require(path, TREC_QRELS, TREC_QUERIES)
        return read_trec(path)
    if format == "quepid":
        return read_quepid(path)
    if format == "csv":
        return read_csv_log(path)
    if format == "txt":
        return read_text_log(path)
    if path.is_dir():
        _require(path, QUERIES_FILE)
        return read_jsonl_queries(path / QUERIES_FILE)
    return read_jsonl_queries(path)


def _require(folder: Path, *names: str) -> None:
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise DataFileError(f"{folder}: missing {', '.join(missing)}")
