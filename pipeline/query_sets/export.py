"""A stored query set written in the formats `formats` reads back (beir, trec, quepid), so that exporting and
importing again gives the same set.

What each carries: `beir` everything (ids, texts, types, splits, every judgment, unjudged queries); `trec` ids,
texts, judgments and unjudged queries (`queries.tsv` lists every query), not types or splits; `quepid` texts and
judgments only: Quepid's ratings CSV has no query ids and no row for a query without a rating, so unjudged
queries are left out (the report counts them).

A set a format cannot carry exactly is refused in one line before anything is written (a TREC id holding a
space, a text holding a tab or a line break; a line break in a BEIR id). Quepid cells that a spreadsheet would
run as a formula get a `'` in front (`csv_cells.reversible_cell`), which this tool's import removes again.

Output is written whole or not at all: a folder format goes to a new (or empty) folder, through a staging
folder renamed into place; the Quepid file through a temporary file renamed over the target.
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.csv_cells import reversible_cell
from pipeline.errors import InvalidInput
from pipeline.query_sets.files import HEADER, QRELS_FILE, QUERIES_FILE
from pipeline.query_sets.formats import JUDGED_FORMATS, QUEPID_HEADER, TREC_QRELS, TREC_QUERIES
from pipeline.query_sets.logs import normalised
from pipeline.query_sets.records import QuerySet


@dataclass(frozen=True)
class ExportReport:
    format: str
    path: str
    queries: int  # queries written
    judgments: int  # judgments written
    unjudged_written: int  # queries without a judgment the file carries
    unjudged_left_out: int  # queries without a judgment the format cannot carry (Quepid)
    merged_texts: int  # queries whose text equals another's once normalised: Quepid's import makes them one


def _judged(query_set: QuerySet) -> list[tuple[str, str, int]]:
    """(query id, fact uuid, grade) in the set's query order, facts sorted."""
    return [
        (q.id, uuid, grade) for q in query_set.queries for uuid, grade in sorted(query_set.judged_uuids(q.id).items())
    ]


def _refuse(query_set: QuerySet, format: str, what: str, value: str) -> InvalidInput:
    return InvalidInput(
        f"Query set {query_set.name!r}: {what} {value!r} cannot be written as {format} exactly; "
        "export it as beir, which carries it."
    )


def _beir(query_set: QuerySet) -> dict[str, str]:
    for query_id, uuid, _ in _judged(query_set):
        for what, value in (("query id", query_id), ("fact uuid", uuid)):
            if "\n" in value or "\r" in value:
                raise InvalidInput(f"Query set {query_set.name!r}: {what} {value!r} holds a line break.")
    queries = "".join(
        json.dumps({"_id": q.id, "text": q.text, "type": q.type, "split": q.split}, ensure_ascii=False) + "\n"
        for q in query_set.queries
    )
    qrels = io.StringIO()
    writer = csv.writer(qrels, delimiter="\t", lineterminator="\n")  # quotes a field holding a tab or a quote
    writer.writerow(HEADER)
    writer.writerows(_judged(query_set))
    return {QUERIES_FILE: queries, QRELS_FILE: qrels.getvalue()}


def _trec(query_set: QuerySet) -> dict[str, str]:
    for q in query_set.queries:
        if not q.id or any(ch.isspace() for ch in q.id):
            raise _refuse(query_set, "trec", "query id", q.id)
        if any(ch in q.text for ch in "\t\r\n\x00"):
            raise _refuse(query_set, "trec", f"the text of query {q.id!r}", q.text)
    judged = _judged(query_set)
    for _, uuid, _ in judged:
        if not uuid or any(ch.isspace() for ch in uuid):
            raise _refuse(query_set, "trec", "fact uuid", uuid)
    queries = "".join(f"{q.id}\t{q.text}\n" for q in query_set.queries)
    qrels = "".join(f"{query_id} 0 {uuid} {grade}\n" for query_id, uuid, grade in judged)
    return {TREC_QUERIES: queries, TREC_QRELS: qrels}


def _quepid(query_set: QuerySet) -> str:
    texts = {q.id: q.text for q in query_set.queries}
    for q in query_set.queries:
        if not q.text.strip():
            raise _refuse(query_set, "quepid", f"the text of query {q.id!r}", q.text)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")  # quotes a cell holding a comma, a quote or a line break
    writer.writerow(QUEPID_HEADER)
    writer.writerows(
        (reversible_cell(texts[query_id]), reversible_cell(uuid), grade) for query_id, uuid, grade in _judged(query_set)
    )
    return out.getvalue()


def _staging(out: Path) -> Path:
    """A name beside `out` nobody else uses (made with the usual permissions, unlike `tempfile`'s private ones)."""
    return out.parent / f".{out.name}.{secrets.token_hex(6)}.partial"


def _new_folder(out: Path, files: dict[str, str]) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InvalidInput(f"{out}: already exists and is not an empty folder; give a new or empty folder.")
    if not out.parent.is_dir():
        raise InvalidInput(f"{out}: its folder {out.parent} does not exist.")
    staging = _staging(out)
    staging.mkdir()
    try:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8", newline="")
        os.replace(staging, out)  # onto a missing or empty folder: whole or nothing
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _new_file(out: Path, text: str) -> None:
    if out.is_dir() or not out.parent.is_dir():
        raise InvalidInput(f"{out}: cannot be written (give a file path in an existing folder).")
    staging = _staging(out)
    try:
        with staging.open("x", encoding="utf-8", newline="") as file:
            file.write(text)
        os.replace(staging, out)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


def export_query_set(query_set: QuerySet, format: str, out: Path) -> ExportReport:
    """Write `query_set` as `format` to `out` (a folder for beir and trec, a .csv file for quepid)."""
    if format not in JUDGED_FORMATS:
        raise InvalidInput(f"Unknown export format {format!r}; one of: {', '.join(JUDGED_FORMATS)}.")
    unjudged = len(query_set.unjudged)
    if format == "quepid":
        _new_file(out, _quepid(query_set))
        judged = [q for q in query_set.queries if query_set.qrels.get(q.id)]
        merged = len(judged) - len({normalised(q.text) for q in judged})
        return ExportReport(format, str(out), len(judged), query_set.judgments, 0, unjudged, merged)
    _new_folder(out, _beir(query_set) if format == "beir" else _trec(query_set))
    return ExportReport(format, str(out), len(query_set.queries), query_set.judgments, unjudged, 0, 0)
