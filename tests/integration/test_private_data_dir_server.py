"""With the embedded server: a fresh data directory holds nothing readable by other users (the store, the
server's RDB, AOF and log), whatever umask the process started with."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pipeline.lab import Lab
from tests.conftest import make_settings


async def test_every_file_in_a_new_data_dir_is_private(tmp_path: Path) -> None:
    os.umask(0o022)
    data_dir = tmp_path / "data"
    lab = await Lab.open(make_settings(data_dir))
    try:
        lab.store.query("SELECT 1")
        assert lab.backend.embedded is not None  # stopping it below writes its snapshot too
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
    found = {p: stat.S_IMODE(p.lstat().st_mode) for p in [data_dir, *data_dir.rglob("*")] if not p.is_socket()}
    assert len(found) > 3, found  # the store, its WAL, the server's files: something to check
    loose = {str(p): oct(m) for p, m in found.items() if m & 0o077}
    assert not loose, f"readable by others: {loose}"
