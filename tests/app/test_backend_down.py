"""Neo4j configured but unreachable: a clear error on graph pages, the store pages still usable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.settings import get_settings
from tests.support.shown import shown


@pytest.fixture
def neo4j_down(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:9")
    monkeypatch.setenv("RETRIEVAL_LAB_CONNECT_TIMEOUT_S", "2")
    get_settings.cache_clear()
    runtime._lab.clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def test_graph_pages_say_why_and_store_pages_still_work(app: AppTest, neo4j_down: None) -> None:
    app.run()
    assert not app.exception
    [error] = [shown(e.value) for e in app.main.error]
    assert error.startswith("Neo4j at bolt://127.0.0.1:9:") and "\n" not in error
    assert any("Graph backend unavailable" in e.value for e in app.sidebar.error)
    assert not app.metric  # no deal counts without a graph

    app.switch_page("app_pages/history.py")
    app.run()
    assert not app.exception
    assert app.title[0].value == "History"
    assert not app.main.error
    assert any("showing recorded runs only" in w.value for w in app.main.warning)
