"""The dashboard on a data directory whose append-only files were damaged: one line saying which file and
what to do, no traceback, and the files left exactly as they were."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import get_settings


def _files(data: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (data / "appendonlydir").iterdir()}


@pytest.fixture
def damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    server.stop()  # a clean stop: files and counts recorded
    (base,) = (data / "appendonlydir").glob("*.base.rdb")
    raw = bytearray(base.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    base.write_bytes(bytes(raw))
    monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(data))
    get_settings.cache_clear()
    runtime._lab.clear()
    yield data
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def test_a_damaged_file_is_one_line_on_the_page(app: AppTest, damaged: Path) -> None:
    before = _files(damaged)
    app.run()
    assert not app.exception
    [error] = [e.value for e in app.main.error]
    assert error.startswith("embedded FalkorDB refused to start:") and ".base.rdb was changed" in error
    assert "\n" not in error
    assert _files(damaged) == before
    assert not EmbeddedFalkorDB(damaged).is_running()
