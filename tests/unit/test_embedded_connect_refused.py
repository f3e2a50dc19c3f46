"""A server that dies while the embedded backend connects: one line and exit 2, never a stack trace.

The FalkorDB client's constructor sends a blocking INFO; a server killed between `ensure_running` and that
INFO refused it outside the connect's error handling (exit 1, "unexpected ConnectionError", 3 in 27 tries).
Here the constructor refuses every time, so the old code fails deterministically."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from pipeline.cli import main
from pipeline.errors import BackendUnavailable
from pipeline.graph import backend as backend_module
from pipeline.graph.backend import connect
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import get_settings
from tests.conftest import make_settings


def _refusing_client(*_args: object, **_kwargs: object) -> object:
    raise RedisConnectionError("Error 111 connecting to unix socket: falkordb.sock. Connection refused.")


@pytest.fixture
def refused(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    released: list[str] = []
    monkeypatch.setattr(EmbeddedFalkorDB, "ensure_running", lambda self: None)  # "started", then killed
    monkeypatch.setattr(EmbeddedFalkorDB, "release", lambda self: released.append("lease"))
    monkeypatch.setattr(backend_module, "FalkorDB", _refusing_client)
    return released


async def test_a_refused_info_is_backend_unavailable_and_the_lease_is_released(
    tmp_path: Path, refused: list[str]
) -> None:
    with pytest.raises(BackendUnavailable, match=r"^embedded FalkorDB at .*Connection refused"):
        await connect(make_settings(tmp_path))
    assert refused == ["lease"]


def test_the_cli_prints_one_line_and_exits_2(
    tmp_path: Path, refused: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RETRIEVAL_LAB_EMBEDDER", "local")
    get_settings.cache_clear()  # read these variables, not a cached earlier test's
    try:
        assert main(["status"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "Connection refused" in err[0], err
    assert "unexpected" not in err[0]
