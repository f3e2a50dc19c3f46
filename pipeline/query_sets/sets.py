"""Reading and writing a deal's query sets in the store (the file-based sets of older data directories are
copied in first: `legacy_files`)."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import InvalidInput
from pipeline.query_sets.files import check_references, keyed_qrels, read_qrels, read_queries
from pipeline.query_sets.legacy_files import import_legacy_files
from pipeline.query_sets.records import OWN_SET_NAME, SET_SOURCES, QuerySet, SaveResult, SetInfo
from pipeline.query_sets.repo import delete_set, get_set, list_sets, save_set
from pipeline.store.db import Store
from pipeline.text import printable_line

MAX_SET_NAME = 80


def clean_set_name(name: str) -> str:
    cleaned = printable_line(name or "")
    if not cleaned or len(cleaned) > MAX_SET_NAME:
        raise InvalidInput(f"A query set name must be 1-{MAX_SET_NAME} printable characters; got {name!r}.")
    return cleaned


def load_query_set(store: Store, group_id: str, name: str | None = None) -> QuerySet | None:
    """The deal's set called `name`, or its default set (its own demo / BEIR set, else the oldest judged, else the
    oldest); None if none."""
    import_legacy_files(store)
    return get_set(store, group_id, name)


def list_query_sets(store: Store, group_id: str) -> list[SetInfo]:
    """The deal's sets, the default first."""
    import_legacy_files(store)
    return list_sets(store, group_id)


def delete_query_set(store: Store, group_id: str, name: str) -> bool:
    """Remove one of the deal's sets (the store only; the graph is not touched); False if it had none so named."""
    return delete_set(store, group_id, name)


def save_query_set(store: Store, query_set: QuerySet, created_by: str, replace: bool = False) -> SaveResult:
    """Store the set whole (one transaction): the same content again changes nothing; another set under a used
    name is refused unless `replace`."""
    if query_set.source not in SET_SOURCES:
        raise InvalidInput(f"Unknown query set source {query_set.source!r}; one of: {', '.join(SET_SOURCES)}.")
    import_legacy_files(store)
    clean = QuerySet(
        query_set.group_id, query_set.queries, query_set.qrels, clean_set_name(query_set.name), query_set.source
    )
    return save_set(store, clean, created_by, replace)


def save_keyed_files(
    store: Store, group_id: str, queries_file: Path, qrels_file: Path, source: str, fact_keys: set[str]
) -> SaveResult:
    """A deal's own set from our loaders' files (corpus ids are fact keys, mapped to uuids with `stable_uuid`),
    saved as the deal's set `labelled`, replacing an older version of it."""
    queries, qrels = read_queries(queries_file), read_qrels(qrels_file)
    check_references(queries, qrels, fact_keys, str(queries_file.parent))
    query_set = QuerySet(group_id, tuple(queries), keyed_qrels(group_id, qrels), OWN_SET_NAME, source)
    return save_query_set(store, query_set, created_by=source, replace=True)
