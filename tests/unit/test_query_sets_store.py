"""Query sets in the SQLite store: whole or absent, idempotent, the default set, the one-time copy of the
file-based sets of older data directories, and how an imported set's episode judgments resolve to facts."""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import QRELS_FILE, QUERIES_FILE
from pipeline.ingest.loading import stable_uuid
from pipeline.query_sets import LabelledQuery, QuerySet, legacy_files, list_query_sets, load_query_set, save_query_set
from pipeline.query_sets.files import keyed_qrels, read_qrels, read_queries
from pipeline.query_sets.importer import resolve_judgments
from pipeline.store.db import DB_NAME, Store
from tests.conftest import FIXTURES

QUERIES = (LabelledQuery("q1", "revenue?", "factual", "test"), LabelledQuery("q2", "who?", "entity"))


def _set(name: str = "mine", source: str = "import", grade: int = 2, **qrels: dict[str, int]) -> QuerySet:
    return QuerySet("deal", QUERIES, qrels or {"q1": {"f1": grade, "f2": 1}}, name, source)


def _store(tmp_path: Path) -> Store:
    return Store(tmp_path / DB_NAME)


def test_a_set_round_trips_and_the_same_content_again_writes_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert save_query_set(store, _set(), "ana").status == "created"
    stored = load_query_set(store, "deal", "mine")
    assert stored is not None and stored.queries == QUERIES and stored.qrels == {"q1": {"f1": 2, "f2": 1}}
    assert (stored.source, stored.created_by) == ("import", "ana")
    again = save_query_set(store, _set(), "ben")
    assert again.status == "unchanged"
    assert load_query_set(store, "deal", "mine") == stored  # created_at and created_by untouched
    with pytest.raises(InvalidInput, match=r"already has a different query set named 'mine'.*--replace"):
        save_query_set(store, _set(grade=1), "ana")
    assert load_query_set(store, "deal", "mine") == stored
    assert save_query_set(store, _set(grade=1), "ana", replace=True).status == "replaced"
    assert load_query_set(store, "deal", "mine").qrels["q1"]["f1"] == 1  # type: ignore[union-attr]
    assert [s.name for s in list_query_sets(store, "deal")] == ["mine"]
    assert load_query_set(store, "other deal") is None and list_query_sets(store, "other deal") == []


def test_a_set_is_whole_or_absent(tmp_path: Path) -> None:
    store = _store(tmp_path)
    broken = _set(q1={"f1": 2}, q9={"f3": 1})  # a judgment of a query the set lacks: the last insert fails
    with pytest.raises(sqlite3.IntegrityError):
        save_query_set(store, broken, "ana")
    assert list_query_sets(store, "deal") == []
    assert store.query("SELECT COUNT(*) FROM query_set_queries")[0][0] == 0
    save_query_set(store, _set(), "ana")
    before = load_query_set(store, "deal", "mine")
    with pytest.raises(sqlite3.IntegrityError):
        save_query_set(store, broken, "ana", replace=True)
    assert load_query_set(store, "deal", "mine") == before  # the old set survives a failed replace


def test_the_default_set_is_the_deals_own_then_the_oldest(tmp_path: Path) -> None:
    store = _store(tmp_path)
    save_query_set(store, _set("analysts"), "ana")
    save_query_set(store, _set("frozen", "verdicts"), "ana")
    assert load_query_set(store, "deal").name == "analysts"  # type: ignore[union-attr]
    save_query_set(store, _set("labelled", "beir"), "import-beir")
    assert load_query_set(store, "deal").name == "labelled"  # type: ignore[union-attr]
    assert [s.name for s in list_query_sets(store, "deal")] == ["labelled", "analysts", "frozen"]
    assert [(s.queries, s.judgments) for s in list_query_sets(store, "deal")] == [(2, 2)] * 3


def test_an_unjudged_set_is_stored_but_a_judged_one_is_the_default(tmp_path: Path) -> None:
    store = _store(tmp_path)
    unjudged = QuerySet("deal", QUERIES, {}, "asked", "import")
    assert save_query_set(store, unjudged, "import-queries (log)").status == "created"
    stored = load_query_set(store, "deal", "asked")
    assert stored is not None and stored.queries == QUERIES and stored.qrels == {} and stored.unjudged == ("q1", "q2")
    assert load_query_set(store, "deal").name == "asked"  # type: ignore[union-attr]  # the only set
    save_query_set(store, _set("judged"), "ana")
    assert load_query_set(store, "deal").name == "judged"  # type: ignore[union-attr]  # newer, but judged
    assert [(s.name, s.judgments) for s in list_query_sets(store, "deal")] == [("judged", 2), ("asked", 0)]
    save_query_set(store, _set("labelled", "demo"), "demo")
    assert load_query_set(store, "deal").name == "labelled"  # type: ignore[union-attr]  # the deal's own first


def test_bad_names_and_sources_are_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(InvalidInput, match="1-80 printable characters"):
        save_query_set(store, _set("   "), "ana")
    with pytest.raises(InvalidInput, match="Unknown query set source"):
        save_query_set(store, _set(source="hearsay"), "ana")
    assert list_query_sets(store, "deal") == []


def _legacy(data_dir: Path, group: str, queries: Path, qrels: Path) -> Path:
    folder = data_dir / "query_sets" / group
    folder.mkdir(parents=True)
    shutil.copyfile(queries, folder / "queries.jsonl")
    shutil.copyfile(qrels, folder / "qrels.tsv")
    return folder


def test_file_based_sets_are_copied_into_the_store_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "data"
    demo = _legacy(data, "demo", QUERIES_FILE, QRELS_FILE)
    mini = _legacy(data, "mini", FIXTURES / "beir_mini" / "queries.jsonl", FIXTURES / "beir_mini" / "qrels.tsv")
    _legacy(data, ".mini-x1y2", QUERIES_FILE, QRELS_FILE)  # a staging folder of the old atomic write
    broken = data / "query_sets" / "broken"
    broken.mkdir()
    (broken / "queries.jsonl").write_text("{not json}\n")
    (broken / "qrels.tsv").write_text("")

    store = Store(data / DB_NAME)
    with caplog.at_level(logging.WARNING):
        stored = load_query_set(store, "demo")
    assert "broken" in caplog.text and "not copied" in caplog.text
    assert stored is not None and (stored.name, stored.source, stored.created_by) == (
        "labelled",
        "demo",
        "file migration",
    )
    assert list(stored.queries) == read_queries(demo / "queries.jsonl")
    assert stored.qrels == keyed_qrels("demo", read_qrels(demo / "qrels.tsv"))
    for query_id, judged in read_qrels(QRELS_FILE).items():  # keys become the demo facts' uuids
        assert stored.qrels[query_id] == {stable_uuid("demo", "fact", key): g for key, g in judged.items()}
    [info] = list_query_sets(store, "mini")
    assert info.source == "beir" and info.queries == len(read_queries(mini / "queries.jsonl"))
    assert list_query_sets(store, ".mini-x1y2") == [] and list_query_sets(store, "broken") == []
    assert (demo / "queries.jsonl").exists() and (mini / "qrels.tsv").exists()  # the files stay

    # once: a set replaced after the copy is not overwritten by the files again, in this process or another
    save_query_set(store, QuerySet("mini", QUERIES, {"q1": {"f1": 1}}, "labelled", "beir"), "import-beir", True)
    replaced = load_query_set(store, "mini")
    legacy_files._checked.clear()  # as a new process would start
    assert legacy_files.import_legacy_files(Store(data / DB_NAME)) == []
    assert load_query_set(store, "mini") == replaced
    caplog.clear()
    load_query_set(store, "demo")
    assert "broken" not in caplog.text  # recorded too: warned once


def test_a_file_based_set_does_not_overwrite_a_stored_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = Store(data / DB_NAME)  # the store first (its scan finds no folder yet) ...
    assert load_query_set(store, "demo") is None
    save_query_set(store, QuerySet("demo", QUERIES, {}, "labelled", "demo"), "seed-demo")
    _legacy(data, "demo", QUERIES_FILE, QRELS_FILE)  # ... then files appear (an older copy of the app ran)
    legacy_files._checked.clear()
    assert legacy_files.import_legacy_files(store) == []
    assert load_query_set(store, "demo").queries == QUERIES  # type: ignore[union-attr]


def test_episode_judgments_resolve_to_every_citing_fact() -> None:
    facts = {"f1", "f2"}
    citing = {"e1": {"f2", "f3", "f4"}, "e2": {"f4", "f5"}}
    qrels = {
        "a": {"f1": 2, "e1": 1},  # a fact and an episode
        "b": {"f2": 0, "e1": 2},  # a fact judged directly keeps its grade over its episode's
        "c": {"e1": 1, "e2": 2},  # a fact reached through two episodes takes the higher grade
        "d": {"e9": 2},  # an episode no fact cites judges nothing
    }
    resolved, via_episodes = resolve_judgments(qrels, facts, citing)
    assert resolved == {
        "a": {"f1": 2, "f2": 1, "f3": 1, "f4": 1},
        "b": {"f2": 0, "f3": 2, "f4": 2},
        "c": {"f2": 1, "f3": 1, "f4": 2, "f5": 2},
    }
    assert via_episodes == 3 + 2 + 4
