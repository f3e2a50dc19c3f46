"""Persistence that refuses to lose data: the server starts only from the files it last left behind.

The append-only files (a base RDB plus an incremental AOF, listed by a manifest) are the only persistence:
RDB snapshots are off (`save ""`), so nothing ever writes `dump.rdb` and no shutdown can replace a
snapshot with a dataset that was never loaded. The supervisor records each file's size and sha256 (and,
at a clean stop, every graph's node and edge counts) in `falkordb.state.json`:

- when the server is ready (the files as they were loaded), as the incremental file grows (GrowthDigest),
  after each AOF rewrite, and at a clean stop;
- before the next start it checks them: a file recorded whole must be byte-identical; the incremental
  file only ever grows, so its recorded prefix must be (a kill -9 leaves more, never different bytes);
  files of a newer rewrite than the record are left to redis's own checks (RDB checksums,
  `aof-load-truncated no`);
- after a crash (no clean stop recorded), a torn tail of the newest incremental file, the incomplete last
  command a killed server leaves, is cut off and its bytes kept beside it (torn_tail.py), and one line says so;
- after a clean stop with the files untouched, the loaded counts must equal the recorded ones.

Anything else is refused with one line naming the file, what is intact and what to do, before redis-server
starts (so nothing is written) or, for counts, by stopping it without saving.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import BackendUnavailable
from pipeline.graph.embedded import torn_tail
from pipeline.graph.embedded.paths import ServerFiles, sync_dir

STATE_VERSION = 1
_CHUNK = 1 << 20


class PersistenceRefused(BackendUnavailable):
    """The embedded server's files are not the ones it left behind: it will not start from them."""


def refusal(files: ServerFiles, what: str, damaged: Path | None = None) -> PersistenceRefused:
    """One line: what is wrong, what is intact, and what to do; never advice that drops intact data."""
    intact = ""
    if damaged is not None:
        others = [name for name in _listed_files(files) if name != damaged.name]
        if others:
            intact = f"; intact: {', '.join(others)}"
    return PersistenceRefused(
        f"embedded FalkorDB refused to start: {what}; nothing was changed{intact}. Keep {files.data_dir} as it "
        f"is and restore it from a backup (python -m pipeline restore BACKUP_DIR --force), or repair it as "
        f"docs/recovery.md says"
    )


def _listed_files(files: ServerFiles) -> list[str]:
    """The files the manifest lists (none if it cannot be read)."""
    try:
        return [e.name for e in parse_manifest(files, files.manifest.read_text(encoding="utf-8")) if e.kind != "h"]
    except (OSError, UnicodeDecodeError, PersistenceRefused):
        return []


@dataclass(frozen=True)
class AofFile:
    name: str
    kind: str  # b (base RDB), i (incremental), h (history, about to be deleted)
    seq: int


@dataclass(frozen=True)
class FileDigest:
    size: int
    sha256: str


@dataclass
class Snapshot:
    """The append-only files as they are on disk now."""

    manifest: str  # its text
    files: dict[str, FileDigest]  # by file name, base and incremental files only
    base_seq: int


@dataclass
class Record:
    """What `falkordb.state.json` says."""

    clean: bool  # written at a clean stop: files complete and counts taken
    manifest: str
    files: dict[str, FileDigest]
    base_seq: int
    counts: dict[str, list[int]] | None = None  # graph -> [nodes, edges], at a clean stop only
    recorded_at: str = ""


@dataclass
class Verdict:
    """The pre-start check's outcome: the files (to record once loaded), and whether counts must match."""

    snapshot: Snapshot | None  # None: a fresh directory, nothing to check
    expected_counts: dict[str, list[int]] | None = None
    notes: list[str] = field(default_factory=list)


def parse_manifest(files: ServerFiles, text: str) -> list[AofFile]:
    entries: list[AofFile] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        words = line.split()
        pairs = dict(zip(words[::2], words[1::2], strict=False)) if len(words) % 2 == 0 else {}
        if not {"file", "seq", "type"} <= pairs.keys() or pairs["type"] not in ("b", "i", "h"):
            raise refusal(files, f"{files.manifest} line {number} is not a manifest entry (damaged manifest)")
        name = pairs["file"]
        if "/" in name or name in (".", ".."):
            raise refusal(files, f"{files.manifest} line {number} names a file outside {files.aof_dir.name}/")
        try:
            seq = int(pairs["seq"])
        except ValueError:
            raise refusal(files, f"{files.manifest} line {number}: seq {pairs['seq']!r} is not a number") from None
        entries.append(AofFile(name=name, kind=pairs["type"], seq=seq))
    if not any(e.kind == "b" for e in entries) and not any(e.kind == "i" for e in entries):
        raise refusal(files, f"{files.manifest} lists no append-only file (damaged manifest)")
    return entries


def digest(path: Path, size: int | None = None) -> FileDigest:
    """sha256 of the file's first `size` bytes (all of it when None)."""
    sha = hashlib.sha256()
    left = path.stat().st_size if size is None else size
    total = left
    with path.open("rb") as handle:
        while left > 0:
            chunk = handle.read(min(_CHUNK, left))
            if not chunk:
                break
            sha.update(chunk)
            left -= len(chunk)
    return FileDigest(size=total - left, sha256=sha.hexdigest())


def take_snapshot(files: ServerFiles) -> Snapshot | None:
    """The append-only files now; None when there are none at all. Refuses a manifest that is missing or
    damaged, or that lists a file that is not there."""
    if not files.aof_dir.exists():
        return None
    if not files.manifest.is_file():
        raise refusal(files, f"{files.manifest} is missing but {files.aof_dir.name}/ exists")
    try:
        text = files.manifest.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise refusal(files, f"{files.manifest} cannot be read ({type(exc).__name__})") from None
    entries = parse_manifest(files, text)
    found: dict[str, FileDigest] = {}
    for entry in entries:
        if entry.kind == "h":
            continue
        path = files.aof_dir / entry.name
        if not path.is_file():
            raise refusal(files, f"{path} is listed in the manifest but missing", path)
        found[entry.name] = digest(path)  # size read first: an incremental file only ever grows past it
    base_seq = max((e.seq for e in entries if e.kind == "b"), default=0)
    return Snapshot(manifest=text, files=found, base_seq=base_seq)


def read_record(files: ServerFiles) -> Record | None:
    if not files.state.exists():
        return None
    try:
        raw = json.loads(files.state.read_text(encoding="utf-8"))
        return Record(
            clean=bool(raw["clean"]),
            manifest=str(raw["manifest"]),
            files={k: FileDigest(int(v["size"]), str(v["sha256"])) for k, v in raw["files"].items()},
            base_seq=int(raw["base_seq"]),
            counts={str(k): [int(x) for x in v] for k, v in raw["counts"].items()} if raw["counts"] else None,
            recorded_at=str(raw.get("recorded_at", "")),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise refusal(files, f"{files.state} is damaged") from None


def write_record(files: ServerFiles, snapshot: Snapshot, clean: bool, counts: dict[str, list[int]] | None) -> None:
    """Replace the record atomically (a kill -9 leaves the old one or the new one, never half)."""
    body: dict[str, Any] = {
        "version": STATE_VERSION,
        "clean": clean,
        "manifest": snapshot.manifest,
        "files": {k: {"size": v.size, "sha256": v.sha256} for k, v in snapshot.files.items()},
        "base_seq": snapshot.base_seq,
        "counts": counts,
        "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    fd, tmp = tempfile.mkstemp(prefix=".falkordb.state.", dir=files.data_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, files.state)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sync_dir(files.data_dir)


def check_before_start(files: ServerFiles) -> Verdict:
    """Refuse (PersistenceRefused) unless the files on disk are the ones last recorded, or their growth."""
    record = read_record(files)
    snapshot = take_snapshot(files)
    if snapshot is None:
        if files.rdb.exists():
            raise refusal(
                files, f"{files.rdb} exists but {files.aof_dir}/ (the append-only files, the real data) is missing"
            )
        if record is not None and record.files:
            raise refusal(files, f"{files.aof_dir}/ is missing, but {files.state} records its files")
        return Verdict(snapshot=None)
    if record is None:
        return Verdict(snapshot=snapshot, notes=_cut_torn_tail(files, snapshot, None))
    exact = record.clean
    for name, recorded in record.files.items():
        path = files.aof_dir / name
        current = snapshot.files.get(name)
        if current is None:
            if snapshot.base_seq > record.base_seq:
                exact = False  # a rewrite finished after the record: its files are newer, not damaged
                continue
            raise refusal(files, f"{path} (recorded {recorded.size} bytes) is missing from the manifest", path)
        if current.size < recorded.size:
            raise refusal(files, f"{path} is shorter than recorded ({current.size} < {recorded.size} bytes)", path)
        same = current if current.size == recorded.size else digest(path, recorded.size)
        if same.sha256 != recorded.sha256:
            changed = "changed" if current.size == recorded.size else "changed within its recorded part"
            raise refusal(files, f"{path} was {changed} since it was recorded (sha256 differs)", path)
        if current.size != recorded.size:
            if name.endswith(".rdb") or record.clean:
                raise refusal(files, f"{path} grew after a clean stop ({recorded.size} -> {current.size} bytes)", path)
            exact = False
    if set(snapshot.files) != set(record.files):
        exact = False
    notes = [] if record.clean else _cut_torn_tail(files, snapshot, record)
    return Verdict(snapshot=snapshot, expected_counts=record.counts if exact else None, notes=notes)


def _cut_torn_tail(files: ServerFiles, snapshot: Snapshot, record: Record | None) -> list[str]:
    """After a crash: cut the newest incremental file's torn tail (its bytes kept beside it); what was done.

    The record is moved to the cut first: a crash between the two steps leaves a file longer than recorded
    (allowed after a crash), never shorter."""
    incr = [e for e in parse_manifest(files, snapshot.manifest) if e.kind == "i"]
    if not incr:
        return []
    path = files.aof_dir / max(incr, key=lambda e: e.seq).name
    found = torn_tail.scan(path)
    if found.state != torn_tail.TORN:
        return []  # whole, or damage that redis-server's load then names
    kept = torn_tail.keep_tail(path, found.keep)
    snapshot.files[path.name] = digest(path, found.keep)
    if record is not None:
        write_record(files, snapshot, clean=False, counts=None)
    torn_tail.cut(path, found.keep)
    return [
        f"a crash left an incomplete last command in {path}: its {found.size - found.keep} bytes were moved to "
        f"{kept} and the file cut there; every whole command before it loads"
    ]


def compare_counts(files: ServerFiles, expected: dict[str, list[int]], loaded: dict[str, list[int]]) -> None:
    """Refuse when the loaded graphs are not the ones counted at the last clean stop."""
    for graph in sorted(set(expected) | set(loaded)):
        want, got = expected.get(graph), loaded.get(graph)
        if want != got:

            def show(c: list[int] | None) -> str:
                return "absent" if c is None else f"{c[0]} nodes, {c[1]} edges"

            raise refusal(
                files,
                f"graph {graph!r} loaded from {files.aof_dir}/ has {show(got)}, "
                f"but {show(want)} were recorded at the last clean stop",
            )


class GrowthDigest:
    """The incremental file's sha256 carried forward as redis appends to it, so a crash leaves little
    unrecorded tail: each `advance` takes in the bytes that were already there at the previous call
    (fsynced, with `appendfsync always`, so a power cut cannot leave the file shorter than the record)
    and returns the snapshot to record, or None when nothing grew."""

    def __init__(self, files: ServerFiles, snapshot: Snapshot) -> None:
        self.files = files
        self.snapshot = snapshot
        incr = [e for e in parse_manifest(files, snapshot.manifest) if e.kind == "i"]
        self.name = max(incr, key=lambda e: e.seq).name if incr else None
        self.hasher = hashlib.sha256()
        self.offset = 0
        if self.name is not None:
            self._take_in(self.snapshot.files[self.name].size)
        self.seen = self.offset

    def _take_in(self, upto: int) -> None:
        assert self.name is not None
        with (self.files.aof_dir / self.name).open("rb") as handle:
            handle.seek(self.offset)
            while self.offset < upto:
                chunk = handle.read(min(_CHUNK, upto - self.offset))
                if not chunk:
                    break
                self.hasher.update(chunk)
                self.offset += len(chunk)

    def advance(self) -> Snapshot | None:
        if self.name is None:
            return None
        target, self.seen = self.seen, (self.files.aof_dir / self.name).stat().st_size
        if target <= self.offset:
            return None
        self._take_in(target)
        self.snapshot.files[self.name] = FileDigest(self.offset, self.hasher.copy().hexdigest())
        return self.snapshot
