"""RETRIEVAL_LAB_EMBEDDER in the dashboard: the sidebar names the configured embedder with its dimension;
a value that names no embedder is one line, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.settings import get_settings
from tests.support.shown import shown


@pytest.fixture
def embedder_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    get_settings.cache_clear()
    runtime._lab.clear()
    yield monkeypatch
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def test_the_sidebar_names_an_openai_embedder_and_its_dimension(app: AppTest, embedder_env: pytest.MonkeyPatch) -> None:
    embedder_env.setenv("RETRIEVAL_LAB_EMBEDDER", "openai:text-embedding-3-small:512")
    embedder_env.delenv("OPENAI_API_KEY", raising=False)  # not needed to start: it is asked for on first use
    app.run()
    assert not app.exception
    captions = [c.value for c in app.sidebar.caption]
    assert "**Embedder:** openai:text-embedding-3-small (512-d)" in captions


def test_an_invalid_embedder_setting_is_one_line(app: AppTest, embedder_env: pytest.MonkeyPatch) -> None:
    embedder_env.setenv("RETRIEVAL_LAB_EMBEDDER", "openai:my-model")
    app.run()
    assert not app.exception
    [error] = [shown(e.value) for e in app.main.error]
    assert error.startswith("RETRIEVAL_LAB_EMBEDDER='openai:my-model': the dimension of openai model 'my-model'")
    assert "openai:my-model:DIM" in error and "\n" not in error
