"""AppTest drives the real Streamlit script in-process, against the session's embedded FalkorDB."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "streamlit_app.py")


@pytest.fixture
def app(demo: str) -> AppTest:
    """The app, on the demo deal, before its first run."""
    return AppTest.from_file(APP, default_timeout=60)


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
