"""The admin gate, page by page: every control that changes the graph (correct a fact, undo a correction,
merge, reject a pair, undo a merge, reset the demo) is absent unless the admin secret is configured AND
entered correctly with a name; otherwise the page says it is read-only (and, when no secret is configured,
how to enable admin actions).

The gate is a UI gate (dashboard/common/admin.py): the pipeline functions behind it only insist on an actor name
for the audit log, so these tests drive the pages, not the pipeline. A positive control (right secret and a
name) shows every action control, so each "absent" assertion below can fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.corrections.actions import CorrectionRequest, correct_fact
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.settings import get_settings
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET

DEAL = "demo_admin_gate"  # our own deal: it gets one correction, so "undo correction" has something to show
ENV = "RETRIEVAL_LAB_ADMIN_SECRET"

# page -> the widget keys of its admin actions (dashboard/timeline/admin.py, dashboard/merges/admin.py,
# app_pages/deals.py)
ACTIONS = {
    "app_pages/timeline.py": {
        "timeline.fix.fact",
        "timeline.fix.statement",
        "timeline.fix.author",
        "timeline.fix.submit",
        "timeline.undo.pick",
        "timeline.undo.submit",
    },
    "app_pages/merges.py": {
        "merges.pair",
        "merges.canonical",
        "merges.alias",
        "merges.merge",
        "merges.reject",
        "merges.undo_pick",
        "merges.undo",
    },
    "app_pages/deals.py": {"deals.reset"},
}
PAGES = list(ACTIONS)
WIDGETS = ("button", "selectbox", "text_input", "text_area", "date_input")
WRONG_SECRETS = ["wrong", ADMIN_SECRET[:-1], ADMIN_SECRET.upper(), f"{ADMIN_SECRET} ", f" {ADMIN_SECRET}"]


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    await correct_fact(
        lab,
        DEAL,
        CorrectionRequest(
            stable_uuid(DEAL, "fact", "f216"),
            "Halcyon's cash balance was $1.45 million.",
            "qa_response",
            "Dana Whitfield (CFO)",
            date(2026, 4, 2),
        ),
        actor="Ana",
    )
    return DEAL


@pytest.fixture
def no_secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No admin secret configured at all (restored afterwards)."""
    monkeypatch.delenv(ENV, raising=False)
    get_settings.cache_clear()
    runtime._lab.clear()
    assert get_settings().admin_secret is None  # nor in .streamlit/secrets.toml
    yield
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def widget_keys(app: AppTest) -> set[str]:
    return {w.key for kind in WIDGETS for w in getattr(app, kind) if w.key}


def open_admin_page(app: AppTest, page: str, deal: str) -> AppTest:
    open_page(app, page, deal)
    if page.endswith("timeline.py"):  # a selection with current facts, so the correction form has a fact
        app.segmented_control(key="timeline.mode").set_value("relation").run()
        app.selectbox(key="timeline.relation").set_value("HAS_CASH").run()
    return app


def enter(app: AppTest, name: str, secret: str) -> AppTest:
    app.text_input(key="admin.name").input(name)
    app.text_input(key="admin.secret").input(secret).run()
    return app


def read_only(app: AppTest) -> bool:
    return any("Read-only" in i.value for i in app.main.info)


def assert_locked(app: AppTest, page: str) -> None:
    assert not app.exception, [e.value for e in app.exception]
    shown = widget_keys(app) & ACTIONS[page]
    assert not shown, f"admin controls visible without the admin secret: {sorted(shown)}"
    assert read_only(app)


@pytest.mark.parametrize("page", PAGES)
def test_the_right_secret_and_a_name_unlock_every_action(app: AppTest, deal: str, page: str) -> None:
    """The positive control: the same page, unlocked, shows every action control the other tests look for."""
    enter(open_admin_page(app, page, deal), "Ana", ADMIN_SECRET)
    no_errors(app)
    assert any(s.value == "Admin actions on for Ana." for s in app.sidebar.success)
    assert ACTIONS[page] <= widget_keys(app)
    assert not read_only(app)


@pytest.mark.parametrize("page", PAGES)
def test_configured_but_not_entered_is_read_only(app: AppTest, deal: str, page: str) -> None:
    open_admin_page(app, page, deal)
    no_errors(app)
    assert_locked(app, page)
    assert any("Enter the admin secret" in c.value for c in app.sidebar.caption)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("secret", WRONG_SECRETS, ids=["wrong", "prefix", "upper", "trailing-space", "leading-space"])
def test_a_wrong_secret_is_an_error_and_stays_read_only(app: AppTest, deal: str, page: str, secret: str) -> None:
    enter(open_admin_page(app, page, deal), "Mallory", secret)
    [error] = [e.value for e in app.sidebar.error]
    assert error.startswith("Wrong admin secret.")  # then when the next try is possible (throttled)
    assert not app.main.error
    assert_locked(app, page)


@pytest.mark.parametrize("page", PAGES)
def test_the_right_secret_without_a_name_stays_read_only(app: AppTest, deal: str, page: str) -> None:
    enter(open_admin_page(app, page, deal), "   ", ADMIN_SECRET)
    no_errors(app)
    assert any("Enter your name" in w.value for w in app.sidebar.warning)
    assert_locked(app, page)


@pytest.mark.parametrize("page", PAGES)
def test_with_no_secret_configured_the_page_says_how_to_enable_admin(
    app: AppTest, deal: str, no_secret: None, page: str
) -> None:
    open_admin_page(app, page, deal)
    no_errors(app)
    assert_locked(app, page)
    assert "admin.secret" not in widget_keys(app)  # nothing to type a secret into
    notes = " ".join(c.value for c in app.sidebar.caption)
    assert "Read-only: admin actions are off. Set `RETRIEVAL_LAB_ADMIN_SECRET` to enable them." in notes
