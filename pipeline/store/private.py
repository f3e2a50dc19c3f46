"""The data directory is private to its owner: created 0700, its files 0600.

It holds the SQLite store (runs with fact text, verdicts, the audit log), the graph's RDB and AOF files
and logs; none of it is for other local users. The process's umask becomes 077 so every file created
afterwards (SQLite's WAL and SHM, exports, the server's files) starts private, and what an older version
left readable is tightened once when the directory is opened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE, FILE_MODE, UMASK = 0o700, 0o600, 0o077
_tightened: set[Path] = set()


def make_private_dir(path: Path) -> Path:
    """Create `path` (0700) if needed, set the umask to 077, and tighten what is already in it (files and
    folders we own; others' are left alone). Returns `path`."""
    os.umask(UMASK)
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    key = path.resolve()
    if key not in _tightened:
        _tighten(key)
        _tightened.add(key)
    return path


def _tighten(root: Path) -> None:
    uid = os.getuid()
    for current, dirs, files in os.walk(root):
        _chmod(Path(current), DIR_MODE, uid)
        for name in files:
            _chmod(Path(current) / name, FILE_MODE, uid)
        dirs[:] = [d for d in dirs if not (Path(current) / d).is_symlink()]


def _chmod(path: Path, mode: int, uid: int) -> None:
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or stat.S_ISSOCK(info.st_mode) or info.st_uid != uid:
            return
        if stat.S_IMODE(info.st_mode) & ~mode:
            path.chmod(stat.S_IMODE(info.st_mode) & mode)
    except FileNotFoundError:  # a WAL or socket removed meanwhile
        pass
