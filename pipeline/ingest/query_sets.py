"""Labelled query sets in the BEIR layout: `queries.jsonl` + `qrels.tsv` (query-id, corpus-id, score).

`corpus-id` is a fact key (a demo fact id, or an imported passage id); a fact's uuid is derived from
its deal and key, so judgments map to facts without a lookup. Each deal's set is kept under
`<data dir>/query_sets/<deal>/`, written whole or not at all.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import DataFileError
from pipeline.ingest.jsonl import read_jsonl
from pipeline.ingest.loading import stable_uuid


@dataclass(frozen=True)
class LabelledQuery:
    id: str
    text: str
    type: str
    split: str = ""  # e.g. TAT-QA's dev / test


@dataclass(frozen=True)
class QuerySet:
    group_id: str
    queries: tuple[LabelledQuery, ...]
    qrels: dict[str, dict[str, int]]  # query id -> fact key -> grade

    def judged_uuids(self, query_id: str) -> dict[str, int]:
        """query id -> {fact uuid: grade}"""
        return {stable_uuid(self.group_id, "fact", key): grade for key, grade in self.qrels.get(query_id, {}).items()}

    @property
    def type_mix(self) -> dict[str, int]:
        return dict(Counter(q.type for q in self.queries))


def _query(row: Any) -> LabelledQuery:
    query_id, text = str(row["_id"] if "_id" in row else row["id"]), str(row["text"])
    return LabelledQuery(query_id, text, str(row.get("type") or "unlabelled"), str(row.get("split") or ""))


def read_queries(path: Path) -> list[LabelledQuery]:
    queries = [query for _, query in read_jsonl(path, "query", _query)]
    if not queries:
        raise DataFileError(f"{path.name}: no queries")
    return queries


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
            if not row or (number == 1 and len(row) > 2 and not row[2].strip().lstrip("-").isdigit()):
                continue  # blank line or header (query-id / query_id ...)
            try:
                query_id, doc_id, grade = row[0], row[1], int(row[2])
            except (IndexError, ValueError):
                raise DataFileError(f"{path.name} line {number}: expected query-id<TAB>corpus-id<TAB>score") from None
            qrels.setdefault(query_id, {})[doc_id] = grade
    return qrels


def check_references(
    queries: list[LabelledQuery], qrels: dict[str, dict[str, int]], fact_keys: set[str], source: str
) -> None:
    """Every judgment must name a known query and a known fact, or nothing is imported."""
    query_ids = {q.id for q in queries}
    unknown_q = sorted(set(qrels) - query_ids)
    unknown_d = sorted({d for judged in qrels.values() for d in judged} - fact_keys)
    if unknown_q:
        raise DataFileError(f"{source}: qrels name {len(unknown_q)} unknown query ids, e.g. {unknown_q[:3]}")
    if unknown_d:
        raise DataFileError(f"{source}: qrels name {len(unknown_d)} unknown corpus ids, e.g. {unknown_d[:3]}")


def save_query_set(data_dir: Path, group_id: str, queries_file: Path, qrels_file: Path) -> None:
    """Copy both files into the deal's folder atomically (a temp folder renamed into place)."""
    root = data_dir / "query_sets"
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{group_id}-", dir=root))
    shutil.copyfile(queries_file, staging / "queries.jsonl")
    shutil.copyfile(qrels_file, staging / "qrels.tsv")
    target = root / group_id
    if target.exists():
        old = root / f".{group_id}.old"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
        os.replace(staging, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, target)


def load_query_set(data_dir: Path, group_id: str) -> QuerySet | None:
    folder = data_dir / "query_sets" / group_id
    if not (folder / "queries.jsonl").exists():
        return None
    return QuerySet(
        group_id=group_id,
        queries=tuple(read_queries(folder / "queries.jsonl")),
        qrels=read_qrels(folder / "qrels.tsv"),
    )
