"""Take a backup: the store through SQLite's online backup API, the embedded graph's files at a quiescent point."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.backup.layout import AOF_DIR, STATE, BackupContents, record
from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.graph.backend import GraphBackend
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import parse_manifest
from pipeline.journal.lock import admin_lock
from pipeline.store.db import DB_NAME, store_path
from pipeline.store.private import make_private_dir
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab

COPY_ATTEMPTS = 5  # an AOF rewrite finishing during the copy changes the manifest: copy again
REWRITE_WAIT_S = 120.0
_POLL_S = 0.05


@dataclass(frozen=True)
class BackupResult:
    target: Path
    contents: BackupContents

    @property
    def size(self) -> int:
        return sum(f.size for f in self.contents.files.values())

    def line(self, backend: GraphBackend) -> str:
        what = (
            "the store and the embedded graph's append-only files"
            if self.contents.graph
            else f"the SQLite store only (the graph is on {backend.label} at {backend.location}: back it up with "
            "its own tools)"
        )
        return f"backup written to {self.target}: {what}, {len(self.contents.files)} files, {self.size:,} bytes"


def check_target(target: Path, data_dir: Path) -> None:
    """A backup goes into a new (or empty) folder outside the data directory."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidInput(f"{target}: give a new or empty folder for the backup; nothing was written.")
    if not target.parent.is_dir():
        raise InvalidInput(f"{target}: its parent folder does not exist; nothing was written.")
    if target == data_dir or data_dir in target.parents:
        raise InvalidInput(f"{target} is inside the data directory {data_dir}: a backup must live elsewhere.")


async def back_up(lab: Lab, target: Path) -> BackupResult:
    """Copy the data directory's store (and embedded graph) into `target`, which appears whole or not at all."""
    target = target.absolute()
    data_dir = lab.settings.resolved_data_dir
    check_target(target, data_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        async with admin_lock(data_dir):  # no admin action or loader mid-way: graph and store agree
            await asyncio.to_thread(_copy_store, store_path(data_dir), staging / DB_NAME)
            if lab.backend.embedded is not None:
                await _copy_graph(lab.backend, ServerFiles(data_dir), staging)
        names = [str(p.relative_to(staging)) for p in sorted(staging.rglob("*")) if p.is_file()]
        contents = BackupContents(
            created_at=now_iso(),
            source=lab.backend.describe(),
            graph=lab.backend.embedded is not None,
            files={name: record(staging, name) for name in names},
        )
        make_private_dir(staging)  # 0700 / 0600 like the data directory itself
        contents.write(staging)
        staging.rename(target)  # replaces an empty folder; never a half-written backup under its name
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BackupResult(target, contents)


def _copy_store(source: Path, copy: Path) -> None:
    """One consistent state of the store, whatever other connections write meanwhile."""
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(copy)
        try:
            src.backup(dst)
            dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            dst.close()
    finally:
        src.close()
    for extra in ("-wal", "-shm"):  # a closed copy needs neither
        with contextlib.suppress(FileNotFoundError):
            copy.with_name(copy.name + extra).unlink()


async def _copy_graph(backend: GraphBackend, files: ServerFiles, staging: Path) -> None:
    """The manifest, the files it lists and the state record, with no rewrite running and the manifest the
    same before and after: a quiescent copy (redis writes an acknowledged command to the AOF before it
    replies, so every acknowledged write is in it)."""
    assert backend.falkor is not None
    connection = backend.falkor.connection
    for _ in range(COPY_ATTEMPTS):
        rewrites = await _until_no_rewrite(connection)
        manifest = files.manifest.read_text(encoding="utf-8")
        out = staging / AOF_DIR
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(mode=0o700)
        try:
            if files.state.exists():  # first: the files only grow past what it records
                shutil.copyfile(files.state, staging / STATE)
            for entry in parse_manifest(files, manifest):
                if entry.kind != "h":  # history: files redis is about to delete, not loaded
                    shutil.copyfile(files.aof_dir / entry.name, out / entry.name)
        except FileNotFoundError:  # a rewrite finished and removed a file meanwhile
            continue
        (out / files.manifest.name).write_text(manifest, encoding="utf-8")
        info = await connection.info("persistence")
        if (
            not _rewriting(info)
            and info.get("aof_rewrites") == rewrites
            and files.manifest.read_text(encoding="utf-8") == manifest
        ):
            return
    raise RetrievalLabError(
        f"The embedded graph's append-only files in {files.data_dir} kept being rewritten while they were "
        "copied; no backup was written. Try again."
    )


def _rewriting(info: dict[str, Any]) -> bool:
    return bool(int(info.get("aof_rewrite_in_progress", 0)) or int(info.get("aof_rewrite_scheduled", 0)))


async def _until_no_rewrite(connection: Any) -> Any:
    """Wait until no AOF rewrite runs or is scheduled; the server's count of rewrites then."""
    deadline = time.monotonic() + REWRITE_WAIT_S
    while True:
        info = await connection.info("persistence")
        if not _rewriting(info):
            return info.get("aof_rewrites")
        if time.monotonic() > deadline:
            raise RetrievalLabError(
                f"An AOF rewrite of the embedded graph ran for more than {REWRITE_WAIT_S:.0f} s; no backup was "
                "written. Try again."
            )
        await asyncio.sleep(_POLL_S)
