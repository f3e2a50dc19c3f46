"""A torn tail: the incomplete last command a killed server (kill -9, the OOM killer, a power cut) leaves at
the end of the append-only file it was writing.

redis-server, with `aof-load-truncated no`, refuses such a file; loading it short would silently drop the
cut. Here the cut is made explicit instead: the incomplete bytes after the last whole command (or after the
MULTI of a transaction that never reached its EXEC, which redis would revert anyway) are moved into a file
beside the append-only files, and the file is cut there. Anything that is not an incomplete ending (a bad
byte in the middle, a length that does not fit) is damage, left for the refusal to name.

The parser follows redis's own loader (`loadSingleAppendOnlyFile`): `#` annotation lines between
commands, then `*<argc>` and `argc` bulk strings `$<len>\\r\\n<bytes>\\r\\n`.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.graph.embedded.paths import sync_dir

WHOLE, TORN, DAMAGED = "whole", "torn", "damaged"
_MAX_LINE = 64  # a `*<argc>` or `$<len>` line is a few digits: a longer one is damage, not a tail
_LINE_START = re.compile(rb"(?:[*$][0-9]*\r?)?")  # what the start of such a line can look like
_MAX_PROBES = 10_000


@dataclass(frozen=True)
class Scan:
    state: str  # WHOLE, TORN or DAMAGED
    keep: int  # bytes up to the end of the last whole command outside an open transaction
    size: int


class _Incomplete(Exception):
    """The file ended inside a command."""


class _Damaged(Exception):
    """A byte that no redis writer would write."""


def _line(data: mmap.mmap | bytes, at: int, size: int) -> tuple[bytes, int]:
    """The line starting at `at` without its CRLF, and where the next one starts."""
    end = data.find(b"\r\n", at, min(size, at + _MAX_LINE))
    if end >= 0:
        return bytes(data[at:end]), end + 2
    if _LINE_START.fullmatch(bytes(data[at : min(size, at + _MAX_LINE)])):
        raise _Incomplete  # the file ends within the line
    raise _Damaged


def _number(line: bytes, prefix: bytes) -> int:
    if not line.startswith(prefix) or not line[1:].isdigit():
        raise _Damaged
    return int(line[1:])


def _command(data: mmap.mmap | bytes, at: int, size: int) -> tuple[bytes, int]:
    """The command starting at `at`: its name (upper case) and where the next command starts."""
    line, at = _line(data, at, size)
    argc = _number(line, b"*")
    if argc < 1:
        raise _Damaged
    name = b""
    for index in range(argc):
        line, at = _line(data, at, size)
        length = _number(line, b"$")
        if at + length + 2 > size:
            raise _Incomplete
        if data[at + length : at + length + 2] != b"\r\n":
            raise _Damaged
        if index == 0:
            name = bytes(data[at : at + length]).upper()
        at += length + 2
    return name, at


def _whole_command_within(data: mmap.mmap | bytes, start: int, size: int) -> bool:
    """Whether a whole command starts somewhere after `start`: then the 'tail' is not one, but damage (a
    changed length, say) that would cut off commands after it."""
    at = data.find(b"\r\n*", start)
    for _ in range(_MAX_PROBES):
        if at < 0:
            return False
        with contextlib.suppress(_Incomplete, _Damaged):
            _command(data, at + 2, size)
            return True
        at = data.find(b"\r\n*", at + 2)
    return True  # too many to try: not the ending of one write


def scan(path: Path) -> Scan:
    """Where the file's whole commands end, and whether what follows is a torn tail or damage."""
    size = path.stat().st_size
    if size == 0:
        return Scan(WHOLE, 0, 0)
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = 0
        kept = 0  # the end of the last command outside a transaction
        in_multi = False
        try:
            while at < size:  # `at`: where the command being read starts
                if data[at : at + 1] == b"#":  # an annotation line (aof-timestamp-enabled)
                    end = data.find(b"\n", at)
                    if end < 0:
                        raise _Incomplete
                    at = end + 1
                else:
                    name, at = _command(data, at, size)
                    in_multi = (in_multi or name == b"MULTI") and name != b"EXEC"
                if not in_multi:
                    kept = at
        except _Incomplete:
            if _whole_command_within(data, at, size):
                return Scan(DAMAGED, kept, size)
            return Scan(TORN, kept, size)
        except _Damaged:
            return Scan(DAMAGED, kept, size)
    return Scan(TORN, kept, size) if in_multi else Scan(WHOLE, size, size)


def tail_path(incr: Path, keep: int) -> Path:
    """Where the bytes cut at `keep` are kept: beside the append-only directory, named by file and offset
    (so cutting again after a crash mid-cut writes the same file, not a second one)."""
    return incr.parent.parent / f"falkordb.torn-tail.{incr.name}.at-{keep}.bin"


def keep_tail(incr: Path, keep: int) -> Path:
    """Copy the bytes from `keep` on into their own file, durably, before the cut."""
    target = tail_path(incr, keep)
    with incr.open("rb") as source:
        source.seek(keep)
        tail = source.read()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(tail)
        out.flush()
        os.fsync(out.fileno())
    sync_dir(target.parent)
    return target


def cut(incr: Path, keep: int) -> None:
    with incr.open("r+b") as handle:
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
