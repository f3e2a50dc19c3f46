"""The torn-tail scanner: where an append-only file's whole commands end, and whether what follows is the
incomplete ending a killed writer leaves (cut off) or damage (left for the refusal to name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.graph.embedded.torn_tail import DAMAGED, TORN, WHOLE, cut, keep_tail, scan, tail_path


def resp(*args: bytes) -> bytes:
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


QUERY = resp(b"GRAPH.QUERY", b"deal", b"CREATE (:N {text: 'a\r\nb *3 $9'})")  # CRLF and markers inside a value
SELECT = resp(b"SELECT", b"0")
TXN = resp(b"MULTI") + resp(b"SET", b"k", b"v") + resp(b"EXEC")


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "appendonly.aof.2.incr.aof"
    path.write_bytes(data)
    return path


def test_whole_files_are_whole(tmp_path: Path) -> None:
    for data in (b"", SELECT + QUERY, SELECT + TXN + QUERY, b"#TS:1700000000\r\n" + QUERY):
        found = scan(write(tmp_path, data))
        assert (found.state, found.keep, found.size) == (WHOLE, len(data), len(data))


@given(st.integers(min_value=1, max_value=len(QUERY) - 1))
def test_every_cut_inside_the_last_command_is_a_torn_tail(tmp_path_factory: pytest.TempPathFactory, at: int) -> None:
    head = SELECT + QUERY
    found = scan(write(tmp_path_factory.mktemp("torn"), head + QUERY[:at]))
    assert (found.state, found.keep) == (TORN, len(head))


def test_an_open_transaction_is_cut_before_its_multi(tmp_path: Path) -> None:
    head = SELECT + QUERY
    for tail in (resp(b"MULTI") + resp(b"SET", b"k", b"v"), TXN[: len(TXN) - 3]):
        found = scan(write(tmp_path, head + tail))
        assert (found.state, found.keep) == (TORN, len(head))


def test_damage_is_not_a_tail(tmp_path: Path) -> None:
    cases = {
        "a letter for a length": SELECT + QUERY.replace(b"$4\r\ndeal", b"$x\r\ndeal") + QUERY,
        "garbage after commands": SELECT + QUERY + b"hello world\r\n",
        "a longer length mid-file": SELECT + QUERY.replace(b"$4\r\ndeal", b"$9\r\ndeal") + QUERY + QUERY,
        # a length that runs past the end looks like a tail, but whole commands follow it: damage, no cut
        "a length past the end mid-file": SELECT.replace(b"$6\r\nSELECT", b"$9999\r\nSELECT") + QUERY + QUERY,
        "a shorter length mid-file": SELECT + QUERY.replace(b"$4\r\ndeal", b"$3\r\ndeal") + QUERY,
    }
    for name, data in cases.items():
        assert scan(write(tmp_path, data)).state == DAMAGED, name


def test_the_cut_keeps_the_bytes_beside_the_files(tmp_path: Path) -> None:
    aof_dir = tmp_path / "appendonlydir"
    aof_dir.mkdir()
    path = aof_dir / "appendonly.aof.1.incr.aof"
    head, tail = SELECT + QUERY, QUERY[:20]
    path.write_bytes(head + tail)
    kept = keep_tail(path, len(head))
    assert kept == tail_path(path, len(head)) and kept.parent == tmp_path
    assert kept.read_bytes() == tail and kept.stat().st_mode & 0o777 == 0o600
    cut(path, len(head))
    assert path.read_bytes() == head and scan(path).state == WHOLE
