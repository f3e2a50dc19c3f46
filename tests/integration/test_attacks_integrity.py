"""Damaged or hostile input is refused in one line, never stored as something else (issue 38, item 10 and the
nesting half of 11).

- A store with 4 KB overwritten in the middle is refused when it is opened (exit 2, one line naming it), not
  when a command reaches the damaged record; a packed record that no longer unpacks names that record.
- A (query, doc) pair graded twice with different grades (TREC, BEIR, Quepid) is refused naming both lines.
- A non-text `_id` / `text` / `type` in JSONL is refused, not stored as its Python spelling.
- A CR-only `.txt` log is many queries, not one.
- `pool build` with a reranker that has no key is refused instead of pooling first-stage order under its name.
- `restore` checks the store itself (garbage, a newer schema), not only the digests.
- JSON nested thousands deep in a data file or a backup's record is one line, not a RecursionError.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from pipeline.backup.layout import BackupContents
from pipeline.backup.restore import restore_backup
from pipeline.errors import DataFileError, InvalidInput, StoreUnavailable
from pipeline.evaluation.cache import FirstStageCache
from pipeline.graph.embedded.persistence import digest
from pipeline.ingest.beir import read_corpus
from pipeline.lab import Lab
from pipeline.pools.build import build_pool
from pipeline.pools.records import PoolSpec
from pipeline.pools.repo import list_pools
from pipeline.query_sets.files import read_queries
from pipeline.query_sets.formats import read_path, read_quepid
from pipeline.retrieval.setting import Setting
from pipeline.settings import PROJECT_ROOT
from pipeline.store.db import DB_NAME, Store, newest_migration
from tests.support.pools import pool_of

DEEP = "[" * 100_000 + "]" * 100_000


def pipeline_cli(data: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m pipeline ...` as a person runs it, in a process of its own, on `data`."""
    environment = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *argv],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr, done.stderr
    return lines[0]


QUERIES = [f"query {i}" for i in range(300)]


def filled_store(data: Path) -> Path:
    """A store of a few hundred KB: cached first-stage pools (packed, several KB each), as a sweep leaves them."""
    store = Store(data / DB_NAME)
    cache = FirstStageCache(store, "acme", "fp", "")
    for query in QUERIES:
        facts = tuple(f"{query} fact {j}: {os.urandom(24).hex()}" for j in range(50))
        cache.put_many(query, {("vector", 50): pool_of(tuple(f"u{j}" for j in range(50)), facts, 1.0)})
    store.close()
    return data / DB_NAME


def overwrite_middle(path: Path, fill: bytes) -> bytes:
    raw = bytearray(path.read_bytes())
    middle = len(raw) // 2 + 1000  # not on a page boundary: 4 KB across two pages
    raw[middle : middle + 4096] = fill
    path.write_bytes(bytes(raw))
    return bytes(raw)


@pytest.mark.parametrize("fill", ["random", "zeros"])
def test_a_store_damaged_mid_file_is_refused_at_open(tmp_path: Path, fill: str) -> None:
    data = tmp_path / "data"
    path = filled_store(data)
    damaged = overwrite_middle(path, os.urandom(4096) if fill == "random" else bytes(4096))
    with pytest.raises(StoreUnavailable, match="is damaged") as error:
        # SQLite's quick check at open finds damaged pages; zeros inside a blob's pages leave every page sound,
        # and then reading the record names it (zlib's checksum), never "Error -3 while decompressing"
        store = Store(path)
        cache = FirstStageCache(store, "acme", "fp", "")
        for query in QUERIES:
            cache.get("vector", 50, query)
    line = str(error.value)
    assert "\n" not in line and "python -m pipeline restore" in line and str(path) in line
    if fill == "random":  # pages damaged: the command is refused before it does anything
        line = one_line(pipeline_cli(data, "status"))
        assert str(path) in line and "is damaged" in line and "python -m pipeline restore" in line
    else:
        assert "the cached first-stage candidates of query 'query " in line
    assert path.read_bytes() == damaged  # left as it was


def test_a_packed_record_that_no_longer_unpacks_names_it(tmp_path: Path) -> None:
    store = Store(tmp_path / DB_NAME)
    cache = FirstStageCache(store, "acme", "fp", "")
    cache.put_many("What was revenue?", {("vector", 50): pool_of(("u1",), ("Revenue was 5",), 1.0)})
    assert cache.get("vector", 50, "What was revenue?") is not None
    with store.transaction() as conn:  # the bytes of one blob changed, the pages still sound
        conn.execute("UPDATE eval_first_stage SET payload = ?", (zlib.compress(b"x")[:4] + b"garbage",))
    with pytest.raises(StoreUnavailable) as error:
        cache.get("vector", 50, "What was revenue?")
    line = str(error.value)
    assert "is damaged" in line and "'What was revenue?'" in line and "(vector, N=50)" in line and "\n" not in line


# --- judgments graded twice ----------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_pair_graded_twice_differently_is_refused_in_every_judged_format(tmp_path: Path) -> None:
    trec = tmp_path / "trec"
    _write(trec / "queries.tsv", "q01\tWhat was revenue?\n")
    _write(trec / "qrels.txt", "q01 0 U 1\nq01 0 V 2\nq01 0 U 3\n")
    with pytest.raises(DataFileError, match=r"qrels\.txt line 3: .*'U' graded 3, but line 1 graded the same pair 1"):
        read_path(trec)
    _write(trec / "qrels.txt", "q01 0 U 1\nq01 0 U 1\n")  # the same grade twice: no conflict
    assert read_path(trec).qrels == {"q01": {"U": 1}}

    beir = tmp_path / "beir"
    _write(beir / "queries.jsonl", '{"_id": "q01", "text": "What was revenue?"}\n')
    _write(beir / "qrels.tsv", "query-id\tcorpus-id\tscore\nq01\tU\t1\nq01\tU\t3\n")
    with pytest.raises(DataFileError, match=r"qrels\.tsv line 3: .*graded 3, but line 2 graded the same pair 1"):
        read_path(beir)

    ratings = _write(tmp_path / "ratings.csv", "query,docid,rating\nWhat was revenue?,U,1\nwhat was REVENUE?,U,3\n")
    with pytest.raises(DataFileError, match=r"ratings\.csv line 3: .*graded 3, but line 2 graded the same pair 1"):
        read_quepid(ratings)


# --- JSONL fields that are not text ----------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [
        {"_id": None, "text": "What was revenue?"},
        {"_id": "q1", "text": ["x"]},
        {"_id": ["q1"], "text": "What was revenue?"},
        {"_id": "q1", "text": None},
        {"_id": "q1", "text": "What was revenue?", "type": {"a": 1}},
        {"_id": True, "text": "What was revenue?"},
        {"_id": 1.5, "text": "What was revenue?"},
    ],
)
def test_a_non_text_id_or_text_is_refused_not_stored_as_its_repr(tmp_path: Path, row: dict[str, object]) -> None:
    queries = _write(tmp_path / "queries.jsonl", json.dumps({"_id": "q0", "text": "ok"}) + "\n" + json.dumps(row))
    with pytest.raises(DataFileError, match=r"queries\.jsonl line 2: ") as error:
        read_queries(queries)
    assert "'None'" not in str(error.value) and "\n" not in str(error.value)
    if "type" not in row:  # a passage has no type
        corpus = _write(tmp_path / "corpus.jsonl", json.dumps({"_id": "p0", "text": "ok"}) + "\n" + json.dumps(row))
        with pytest.raises(DataFileError, match=r"corpus\.jsonl line 2: "):
            read_corpus(corpus)


def test_whole_number_ids_are_still_taken(tmp_path: Path) -> None:
    queries = _write(tmp_path / "queries.jsonl", '{"_id": 7, "text": "What was revenue?", "type": null}\n')
    [query] = read_queries(queries)
    assert (query.id, query.text, query.type) == ("7", "What was revenue?", "unlabelled")


# --- line ends ------------------------------------------------------------------------------------------


def test_a_cr_only_log_is_one_query_a_line(tmp_path: Path) -> None:
    log = _write(tmp_path / "log.txt", "What was revenue?\rWho is the CEO?\r\rHow large is the revolver?\r")
    read = read_path(log)
    assert [q.text for q in read.queries] == ["What was revenue?", "Who is the CEO?", "How large is the revolver?"]
    mixed = _write(tmp_path / "mixed.txt", "a one\r\nb two\rc three\n")
    assert [q.text for q in read_path(mixed).queries] == ["a one", "b two", "c three"]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\rnot \xff utf-8\r")
    with pytest.raises(DataFileError, match=r"bad\.txt line 2: not UTF-8"):
        read_path(bad)
    trec = tmp_path / "trec"
    _write(trec / "queries.tsv", "q1\tWhat was revenue?\rq2\tWho is the CEO?\r")
    _write(trec / "qrels.txt", "q1 0 U 1\n")
    assert [(q.id, q.text) for q in read_path(trec).queries] == [("q1", "What was revenue?"), ("q2", "Who is the CEO?")]


# --- nesting ------------------------------------------------------------------------------------------


def test_deeply_nested_json_in_a_data_file_is_one_line(tmp_path: Path) -> None:
    queries = _write(tmp_path / "queries.jsonl", '{"_id": "q1", "text": "ok"}\n{"_id": "q2", "text": ' + DEEP + "}\n")
    with pytest.raises(DataFileError, match=r"queries\.jsonl line 2: .*nests arrays or objects more than 64 deep"):
        read_queries(queries)
    line = one_line(pipeline_cli(tmp_path / "data", "import-queries", str(queries), "--group", "acme"))
    assert "queries.jsonl line 2" in line and "nests" in line


# --- restore checks the store itself -------------------------------------------------------------------


def _backup_of(folder: Path, store_bytes: bytes) -> Path:
    folder.mkdir()
    (folder / DB_NAME).write_bytes(store_bytes)
    BackupContents("2026-11-28T00:00:00Z", "test", False, {DB_NAME: digest(folder / DB_NAME)}).write(folder)
    return folder


def _store_bytes(tmp_path: Path, version: int | None) -> bytes:
    path = tmp_path / "made" / DB_NAME
    Store(path).close()
    if version is not None:
        conn = sqlite3.connect(path)
        conn.execute("INSERT INTO schema_migrations VALUES (?, 'later')", (version,))
        conn.execute(f"PRAGMA user_version = {version}")
        conn.commit()
        conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["garbage", "newer schema", "plain sqlite", "deep record"])
def test_restore_checks_the_store_not_only_its_digests(tmp_path: Path, kind: str) -> None:
    if kind == "garbage":
        backup = _backup_of(tmp_path / "backup", os.urandom(65536))
        expected = "is not a readable store"
    elif kind == "newer schema":
        backup = _backup_of(tmp_path / "backup", _store_bytes(tmp_path, 9999))
        expected = f"a store of schema 9999, newer than this version of Retrieval Lab knows ({newest_migration()})"
    elif kind == "plain sqlite":
        plain = tmp_path / "plain.sqlite3"
        sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.commit()
        backup = _backup_of(tmp_path / "backup", plain.read_bytes())
        expected = "not a Retrieval Lab store"
    else:
        backup = _backup_of(tmp_path / "backup", _store_bytes(tmp_path, None))
        (backup / "backup.json").write_text('{"format": 1, "created_at": ' + DEEP + "}")
        expected = "backup.json is damaged"
    data = tmp_path / "data"
    with pytest.raises(DataFileError, match=re.escape(expected)):
        restore_backup(backup, data)
    assert not (data / DB_NAME).exists()
    line = one_line(pipeline_cli(data, "restore", str(backup)))
    assert expected.split(" (")[0] in line and "restored" not in line
    assert not (data / DB_NAME).exists()
    assert not [p for p in data.iterdir() if p.name.startswith(".restore-")] if data.exists() else True
    sound = _backup_of(tmp_path / "sound", _store_bytes(tmp_path / "again", None))  # a sound one still restores
    assert "restored the SQLite store" in restore_backup(sound, tmp_path / "fresh").line()


# --- a pool of a reranker that cannot run ----------------------------------------------------------------


async def test_pool_build_without_the_rerankers_key_is_refused(lab: Lab, demo: str) -> None:
    keyless = Lab(lab.settings.model_copy(update={"voyage_api_key": None}), lab.backend, lab.embedder)
    before = len(list_pools(keyless.store, demo))
    spec = PoolSpec("keyless", demo, None, (Setting.parse("vector:voyage:50:10", "--setting"),), "Ana")
    with pytest.raises(InvalidInput, match=r"Setting 'vector:voyage:50:10' cannot be pooled here: no API key"):
        await build_pool(keyless, spec)
    assert len(list_pools(keyless.store, demo)) == before  # nothing written
