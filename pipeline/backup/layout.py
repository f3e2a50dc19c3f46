"""What a backup folder holds, and `backup.json`, the list of its files that restore checks first."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import DataFileError
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import FileDigest, digest
from pipeline.store.db import DB_NAME

BACKUP_MANIFEST = "backup.json"
FORMAT = 1
_GRAPH_FILES = ServerFiles(Path("."))
STATE = _GRAPH_FILES.state.name  # falkordb.state.json
AOF_DIR = _GRAPH_FILES.aof_dir.name  # appendonlydir
DUMP = _GRAPH_FILES.rdb.name  # dump.rdb: never written, but a restore must not leave an old one beside new files
STORE_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm")


def allowed(relative: str) -> bool:
    """The names a backup may hold: the store, the state record, and files directly in appendonlydir/."""
    if relative in (DB_NAME, STATE):
        return True
    folder, _, name = relative.partition("/")
    return folder == AOF_DIR and name not in ("", ".", "..") and "/" not in name and "\\" not in name


@dataclass(frozen=True)
class BackupContents:
    created_at: str
    source: str  # the backend it was taken from, e.g. "embedded FalkorDB (unix:///...)"
    graph: bool  # the embedded graph's files are in it (else the store only)
    files: dict[str, FileDigest]  # path inside the backup -> size and sha256

    def write(self, folder: Path) -> None:
        body = {
            "format": FORMAT,
            "created_at": self.created_at,
            "source": self.source,
            "graph": self.graph,
            "files": {k: {"size": v.size, "sha256": v.sha256} for k, v in sorted(self.files.items())},
        }
        target = folder / BACKUP_MANIFEST
        with target.open("w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())

    @classmethod
    def read(cls, folder: Path) -> BackupContents:
        """The backup's list, checked: a known format, known names only, every file there with its size."""
        path = folder / BACKUP_MANIFEST
        if not path.is_file():
            raise DataFileError(
                f"{folder}: not a backup (no {BACKUP_MANIFEST}; make one with python -m pipeline backup)."
            )
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if raw["format"] != FORMAT:
                raise DataFileError(f"{path}: backup format {raw['format']!r} is not {FORMAT}; nothing was changed.")
            files = {str(k): FileDigest(int(v["size"]), str(v["sha256"])) for k, v in raw["files"].items()}
            contents = cls(str(raw["created_at"]), str(raw["source"]), bool(raw["graph"]), files)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):  # deep nesting too
            raise DataFileError(f"{path} is damaged; nothing was changed.") from None
        for name, expected in contents.files.items():
            if not allowed(name):
                raise DataFileError(f"{path} lists {name!r}, which no backup holds; nothing was changed.")
            file = folder / name
            if not file.is_file() or file.stat().st_size != expected.size:
                raise DataFileError(f"{file} is missing or not the size {path.name} records; nothing was changed.")
        if DB_NAME not in contents.files:
            raise DataFileError(f"{path} lists no store ({DB_NAME}); nothing was changed.")
        return contents


def record(folder: Path, relative: str) -> FileDigest:
    return digest(folder / relative)
