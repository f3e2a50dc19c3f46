"""Listing a deal's query sets reads their rows only, never their queries or judgments (issue 38: after a
1,000,000-line query log was imported, every Evaluate run took 11 s instead of 1 s, each stored set read whole
to see whether it could be scored). The counts are columns of the set's row (migration 0024), written with it;
a set that cannot be scored (no judgment of grade >= 1) is not read at all by the page's list of sets."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pipeline.evaluation import judgments
from pipeline.evaluation.judgments import available_eval_sets
from pipeline.lab import Lab
from pipeline.query_sets import list_query_sets, load_query_set
from pipeline.query_sets.records import LabelledQuery, QuerySet
from pipeline.query_sets.repo import get_set, list_sets, save_set
from pipeline.query_sets.sets import delete_query_set, save_query_set
from pipeline.store.db import Store
from tests.support.migrations import migrated, store_before

SET_ROWS = {"query_set_queries", "query_set_judgments"}


@contextmanager
def tables_read(store: Store) -> Iterator[set[str]]:
    """The tables SQLite reads for this thread's connection while inside (its authorizer sees every column
    read)."""
    seen: set[str] = set()

    def authorize(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table:
            seen.add(table)
        return sqlite3.SQLITE_OK

    conn = store.connection()
    conn.set_authorizer(authorize)
    try:
        yield seen
    finally:
        conn.set_authorizer(None)


def log_set(group_id: str, name: str, size: int) -> QuerySet:
    queries = tuple(LabelledQuery(f"q-{i}", f"logged question {i}", "log") for i in range(size))
    return QuerySet(group_id, queries, {}, name, "import")


def judged_set(group_id: str, name: str) -> QuerySet:
    queries = (LabelledQuery("a", "revenue?", "t"), LabelledQuery("b", "ceo?", "t"), LabelledQuery("c", "x?", "t"))
    return QuerySet(group_id, queries, {"a": {"f1": 2, "f2": 0}, "b": {"f3": 0}}, name, "import")


def test_a_listing_reads_no_query_or_judgment_row(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    save_set(store, judged_set("acme", "judged"), "Ana")
    save_set(store, log_set("acme", "log", 20_000), "Ana")
    with tables_read(store) as seen:
        infos = {i.name: i for i in list_sets(store, "acme")}
    assert not seen & SET_ROWS, seen
    assert (infos["judged"].queries, infos["judged"].judgments, infos["judged"].scorable) == (3, 3, 1)
    assert (infos["log"].queries, infos["log"].judgments, infos["log"].scorable) == (20_000, 0, 0)
    with tables_read(store) as seen:  # reading a set whole does read them: the check above can fail
        loaded = get_set(store, "acme", "judged")
    assert seen >= SET_ROWS and loaded is not None and len(loaded.queries) == 3


def test_migration_0024_counts_the_sets_already_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = store_before(24, tmp_path, monkeypatch)
    with old.transaction() as conn:  # as the code before 0024 wrote a set: no counts on its row
        conn.execute(
            "INSERT INTO query_sets (group_id, name, source, content_hash, created_at, created_by) "
            "VALUES ('acme', 'judged', 'import', 'h', 'now', 'Ana')"
        )
        conn.executemany("INSERT INTO query_set_queries VALUES (1, ?, ?, ?, 't', '')", [("a", 0, "x?"), ("b", 1, "y?")])
        conn.executemany("INSERT INTO query_set_judgments VALUES (1, ?, ?, ?)", [("a", "f1", 1), ("b", "f2", 0)])
    store = migrated(old, monkeypatch)
    [info] = list_sets(store, "acme")
    assert (info.queries, info.judgments, info.scorable) == (2, 2, 1)
    with tables_read(store) as seen:
        list_sets(store, "acme")
    assert not seen & SET_ROWS


async def test_the_pages_list_of_sets_does_not_read_an_unjudged_log(
    lab: Lab, demo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str | None] = []

    def counting(store: Store, group_id: str, name: str | None = None) -> QuerySet | None:
        loaded.append(name)
        return load_query_set(store, group_id, name)

    monkeypatch.setattr(judgments, "load_query_set", counting)
    save_query_set(lab.store, log_set(demo, "listing-log", 5_000), "Ana")
    save_query_set(lab.store, judged_set(demo, "listing-judged"), "Ana")
    try:
        names = {s.name for s in list_query_sets(lab.store, demo)}
        assert {"listing-log", "listing-judged"} <= names
        sources = {s.source for s in await available_eval_sets(lab, demo)}
        assert "set:listing-log" not in sources and "set:listing-judged" in sources
        assert "listing-log" not in loaded  # never read: the listing's counts say it cannot be scored
        assert "listing-judged" in loaded  # a judged one is read, as before
    finally:
        delete_query_set(lab.store, demo, "listing-log")
        delete_query_set(lab.store, demo, "listing-judged")
