"""Restore a backup into the data directory: checked first, staged inside it, then renamed into place.

Nothing is changed unless the whole backup checks out (every file's sha256 as `backup.json` records it).
Into a data directory that already holds data only with `force`, and then only while no process uses it: no
client holds the embedded server's lease (`falkordb.lease`), no server runs (`falkordb.server.lock`), no
admin action holds `admin.lock`; the start lock and the lease are held exclusively throughout, so nothing
starts a server on half-restored files. The files are renamed into place in an order whose every
intermediate state the next start refuses (the state record first, which then names files not there yet;
the append-only files last). What it replaces is moved into `.replaced-<time>-*/` inside the data directory
and kept there: the tool never deletes data; remove it yourself once the restored directory is what you want.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.backup.layout import AOF_DIR, DUMP, STATE, STORE_FILES, BackupContents, record
from pipeline.errors import DataFileError, InvalidInput
from pipeline.graph.embedded.locks import FileLock, is_free
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.journal.lock import try_admin_lock
from pipeline.store.db import DB_NAME, newest_migration
from pipeline.store.integrity import store_absent, store_file_problem
from pipeline.store.private import make_private_dir

SERVER_GONE_S = 15.0  # a server whose last client left stops about 2 s later
_POLL_S = 0.05


@dataclass(frozen=True)
class RestoreResult:
    data_dir: Path
    contents: BackupContents
    replaced: tuple[str, ...]  # what the data directory held before (with --force)
    kept: Path | None  # where that is now: never deleted by the tool

    def line(self) -> str:
        what = "the store and the embedded graph" if self.contents.graph else "the SQLite store"
        replaced = f"; what it replaced ({', '.join(self.replaced)}) is kept in {self.kept}" if self.kept else ""
        return f"restored {what} from the backup of {self.contents.created_at} into {self.data_dir}{replaced}"


def data_present(data_dir: Path) -> tuple[str, ...]:
    """What of a data directory's data is there: the store, the graph's files."""
    found = [name for name in (STATE, AOF_DIR, DUMP) if (data_dir / name).exists()]
    if not store_absent(data_dir / DB_NAME) or (data_dir / f"{DB_NAME}-wal").exists():
        found.insert(0, DB_NAME)
    return tuple(found)


def restore_backup(source: Path, data_dir: Path, force: bool = False) -> RestoreResult:
    contents = BackupContents.read(source)
    _refuse_unless_forced(data_dir, force)
    make_private_dir(data_dir)
    with _unused(ServerFiles(data_dir)):
        present = _refuse_unless_forced(data_dir, force)  # again, now that nothing can start on it
        staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=data_dir))
        try:
            _stage(source, contents, staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        replaced = Path(tempfile.mkdtemp(prefix=f".replaced-{stamp}-", dir=data_dir))
        _swap(data_dir, staging, replaced, contents.graph)  # on a failure both stay, for the person to look at
        shutil.rmtree(staging, ignore_errors=True)
        kept: Path | None = replaced
        if not any(replaced.iterdir()):
            replaced.rmdir()
            kept = None
    return RestoreResult(data_dir, contents, present, kept)


def _refuse_unless_forced(data_dir: Path, force: bool) -> tuple[str, ...]:
    present = data_present(data_dir) if data_dir.exists() else ()
    if present and not force:
        raise InvalidInput(
            f"{data_dir} already holds data ({', '.join(present)}); nothing was changed. Restore into an empty "
            "data directory (RETRIEVAL_LAB_DATA_DIR), or pass --force to replace it."
        )
    return present


@contextlib.contextmanager
def _unused(files: ServerFiles) -> Iterator[None]:
    """Hold the data directory so that no client, server or admin action uses it; refuse if one does."""
    busy = f"{files.data_dir} is in use by a dashboard or a command; stop it, then restore. Nothing was changed."
    with try_admin_lock(files.data_dir) as taken:
        if not taken or not is_free(files.lease):
            raise InvalidInput(busy)
        deadline = time.monotonic() + SERVER_GONE_S
        while not is_free(files.server_lock):  # its last client has just left: the server is stopping
            if time.monotonic() > deadline:
                raise InvalidInput(busy)
            time.sleep(_POLL_S)
        start, lease = FileLock(files.start_lock), FileLock(files.lease)
        try:
            if not (start.try_acquire() and lease.try_acquire() and is_free(files.server_lock)):
                raise InvalidInput(busy)
            yield
        finally:
            lease.release()
            start.release()


def _stage(source: Path, contents: BackupContents, staging: Path) -> None:
    for name, expected in sorted(contents.files.items()):
        copy = staging / name
        copy.parent.mkdir(mode=0o700, exist_ok=True)
        shutil.copyfile(source / name, copy)
        if record(staging, name) != expected:
            raise DataFileError(
                f"{source / name} is not the file the backup recorded (sha256 differs); nothing was changed."
            )
        _fsync(copy)
    # digests only say the files are those the backup recorded, not that they are a store: check the store itself
    problem = store_file_problem(staging / DB_NAME, newest_migration())
    if problem is not None:
        raise DataFileError(f"{source / DB_NAME} is {problem}; nothing was changed.")
    _fsync(staging / AOF_DIR if (staging / AOF_DIR).is_dir() else staging)


def _swap(data_dir: Path, staging: Path, replaced: Path, graph: bool) -> None:
    """Old data out, new data in; every state in between is refused at the next start (see the module)."""

    def out(name: str) -> None:
        if (data_dir / name).exists():
            (data_dir / name).rename(replaced / name)

    if graph:
        out(AOF_DIR)  # the old state record still names its files: refused until the new ones are in
        out(DUMP)
    for name in STORE_FILES:  # an old WAL beside a new store would be replayed into it
        out(name)
    if graph and (staging / STATE).exists():  # replaced in one step: never a moment without a record
        if (data_dir / STATE).exists():
            shutil.copy2(data_dir / STATE, replaced / STATE)
        os.replace(staging / STATE, data_dir / STATE)
    elif graph:
        out(STATE)
    (staging / DB_NAME).rename(data_dir / DB_NAME)
    if graph:
        (staging / AOF_DIR).rename(data_dir / AOF_DIR)
    _fsync(data_dir)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
