"""The admin gate on a graph attached read-only: even with the right secret and a name, no action control is
shown, and the page and the sidebar say why (RETRIEVAL_LAB_READ_ONLY, or the deal's read-only setting)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.settings import get_settings
from tests.app.conftest import no_errors
from tests.app.test_admin_gate import ACTIONS, PAGES, enter, open_admin_page, widget_keys
from tests.conftest import ADMIN_SECRET

WHOLE_GRAPH = "Read-only: this graph is attached read-only (RETRIEVAL_LAB_READ_ONLY); admin actions are off."
ONE_DEAL = (
    "Read-only: this graph is attached read-only (the deal's read-only setting; python -m pipeline deals --writable "
    "demo lifts it); admin actions are off."
)


def _fresh_lab() -> None:
    get_settings.cache_clear()
    runtime._lab.clear()


@pytest.fixture
def read_only_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RETRIEVAL_LAB_READ_ONLY", "1")
    _fresh_lab()
    yield
    monkeypatch.undo()
    _fresh_lab()


def _locked(app: AppTest, page: str, says: str) -> None:
    no_errors(app)
    assert not widget_keys(app) & ACTIONS[page]
    assert any(says == c.value for c in app.sidebar.caption), [c.value for c in app.sidebar.caption]
    assert any(says == i.value for i in app.main.info), [i.value for i in app.main.info]


@pytest.mark.parametrize("page", PAGES)
def test_read_only_graph_locks_every_action_even_for_the_admin(
    app: AppTest, demo: str, read_only_env: None, page: str
) -> None:
    open_admin_page(app, page, demo)
    assert "admin.secret" not in widget_keys(app)  # nothing to unlock: the secret is not even asked for
    _locked(app, page, WHOLE_GRAPH)


def test_a_read_only_deal_locks_its_actions(app: AppTest, demo: str) -> None:
    _fresh_lab()
    page = "app_pages/merges.py"
    enter(open_admin_page(app, page, demo), "Ana", ADMIN_SECRET)
    assert ACTIONS[page] <= widget_keys(app)  # unlocked: the positive control
    lab = runtime._lab()  # the dashboard's Lab (same process, cached resource)
    runtime.run(lab.set_read_only(demo, True, "tester"))  # the per-deal setting, kept in the store
    try:
        app.run()
        _locked(app, page, ONE_DEAL)
    finally:
        runtime.run(lab.set_read_only(demo, False, "tester"))
        _fresh_lab()
