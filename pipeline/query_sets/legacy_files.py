"""Query sets kept as files (`<data dir>/query_sets/<deal>/queries.jsonl` + `qrels.tsv`, the layout before the
store held them) are copied into the store once, on the first load of a set from that data directory.

Each folder is recorded in `query_set_file_imports` with its copy, in one transaction, so it is copied once
even with several processes; a set the deal already has under the same name is kept. The files stay where
they are (nothing reads them afterwards; they can be deleted). A folder whose files cannot be read is
recorded too, with a warning, and skipped.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pipeline.errors import DataFileError
from pipeline.ingest.demo import QRELS_FILE as DEMO_QRELS
from pipeline.ingest.demo import QUERIES_FILE as DEMO_QUERIES
from pipeline.query_sets.files import QRELS_FILE, QUERIES_FILE, check_query_ids, keyed_qrels, read_qrels, read_queries
from pipeline.query_sets.records import OWN_SET_NAME, QuerySet
from pipeline.query_sets.repo import import_file_set, imported_folders
from pipeline.store.db import Store

LEGACY_DIR = "query_sets"
MIGRATED_BY = "file migration"
log = logging.getLogger(__name__)
_checked: set[Path] = set()  # stores whose data directory was scanned by this process


def _source(folder: Path) -> str:
    """Only the demo seed and the BEIR import wrote these folders: the demo's are byte-identical copies of its
    bundled files."""
    same = all(
        (folder / name).read_bytes() == demo.read_bytes()
        for name, demo in (
            (QUERIES_FILE, DEMO_QUERIES),
            (QRELS_FILE, DEMO_QRELS),
        )
    )
    return "demo" if same else "beir"


def read_folder(folder: Path, group_id: str) -> QuerySet:
    queries, qrels = read_queries(folder / QUERIES_FILE), read_qrels(folder / QRELS_FILE)
    check_query_ids(queries, qrels, str(folder))
    return QuerySet(group_id, tuple(queries), keyed_qrels(group_id, qrels), OWN_SET_NAME, _source(folder))


def import_legacy_files(store: Store) -> list[str]:
    """Copy every file-based set of the store's data directory not copied yet; the deals whose set was copied."""
    if store.path in _checked:
        return []
    root = store.path.parent / LEGACY_DIR
    copied: list[str] = []
    if root.is_dir():
        done = imported_folders(store)
        for folder in sorted(root.iterdir()):
            group_id = folder.name
            if group_id.startswith(".") or group_id in done or not (folder / QUERIES_FILE).is_file():
                continue  # staging folders of the old atomic write start with a dot
            query_set: QuerySet | None
            try:
                query_set = read_folder(folder, group_id)
            except (DataFileError, OSError) as exc:
                log.warning("query set files in %s not copied into the store: %s", folder, exc)
                query_set = None
            if import_file_set(store, group_id, str(folder), query_set, MIGRATED_BY):
                copied.append(group_id)
    _checked.add(store.path)
    return copied
