"""Admin unlock once per browser session: unlocked on one page, every admin page is unlocked without typing the
name or secret again, and the sidebar says who is admin on every page; "Sign out", the idle timeout and a
changed secret end it. The secret itself does not stay in the session once it has unlocked."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import admin, runtime
from pipeline.settings import get_settings
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET

ADMIN_PAGES = {  # page -> one admin control it shows only when unlocked
    "app_pages/timeline.py": "timeline.fix.submit",
    "app_pages/merges.py": "merges.merge",
    "app_pages/deals.py": "deals.reset",
}
OTHER_PAGES = ["app_pages/home.py", "app_pages/compare.py", "app_pages/history.py", "app_pages/audit.py"]


def unlock(app: AppTest, name: str = "Ana") -> AppTest:
    app.text_input(key="admin.name").input(name)
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)
    return app


def show(app: AppTest, page: str) -> AppTest:
    app.switch_page(page)
    app.run()
    if page.endswith("timeline.py"):  # a selection with current facts, so the correction form is drawn
        app.segmented_control(key="timeline.mode").set_value("relation").run()
        app.selectbox(key="timeline.relation").set_value("HAS_CASH").run()
    no_errors(app)
    return app


def buttons(app: AppTest) -> set[str]:
    return {b.key for b in app.button if b.key}


def signed_in_as(app: AppTest) -> list[str]:
    return [m.value for m in app.sidebar.markdown if "Admin:" in m.value]


def secret_box(app: AppTest) -> bool:
    return any(t.key == admin.SECRET_KEY for t in app.text_input)


def test_unlocked_on_one_page_every_admin_page_is_unlocked(app: AppTest) -> None:
    unlock(open_page(app, "app_pages/merges.py", "demo"))
    assert "merges.merge" in buttons(app)
    assert not secret_box(app)  # the secret's box is gone, and its value with it at the next run
    app.run()
    assert admin.SECRET_KEY not in app.session_state and "merges.merge" in buttons(app)
    for page in [*ADMIN_PAGES, *OTHER_PAGES, "app_pages/merges.py"]:
        show(app, page)
        assert signed_in_as(app) == [":material/admin_panel_settings: Admin: **Ana**"], page
        assert "admin.sign_out" in buttons(app), page
        assert not secret_box(app), page
        if page in ADMIN_PAGES:
            assert ADMIN_PAGES[page] in buttons(app), page
            assert not any("Read-only" in i.value for i in app.main.info), page


def test_sign_out_locks_every_page_and_keeps_the_name(app: AppTest) -> None:
    unlock(open_page(app, "app_pages/deals.py", "demo"))
    assert "deals.reset" in buttons(app)
    app.button(key="admin.sign_out").click().run()
    no_errors(app)
    assert "deals.reset" not in buttons(app) and not signed_in_as(app)
    assert any("Read-only" in i.value for i in app.main.info)
    assert app.text_input(key="admin.name").value == "Ana" and app.text_input(key="admin.secret").value == ""
    show(app, "app_pages/merges.py")
    assert "merges.merge" not in buttons(app)
    unlock(app)  # and the same session can unlock again
    assert "merges.merge" in buttons(app)


def test_an_idle_session_times_out(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_000_000.0]
    monkeypatch.setattr(admin, "_now", lambda: clock[0])
    idle = get_settings().admin_idle_minutes * 60
    unlock(open_page(app, "app_pages/merges.py", "demo"))
    clock[0] += idle - 5  # activity within the timeout keeps it going, and pushes the deadline back
    show(app, "app_pages/deals.py")
    assert "deals.reset" in buttons(app)
    clock[0] += idle - 5
    show(app, "app_pages/merges.py")
    assert "merges.merge" in buttons(app)

    clock[0] += idle + 1
    show(app, "app_pages/deals.py")
    assert "deals.reset" not in buttons(app) and not signed_in_as(app)
    [ended] = [w.value for w in app.sidebar.warning]
    minutes = get_settings().admin_idle_minutes
    assert ended == f"Admin session ended ({minutes:g} min without activity): enter the secret again."
    assert secret_box(app)
    app.run()
    assert not app.sidebar.warning  # said once


def test_a_changed_secret_ends_the_session(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    unlock(open_page(app, "app_pages/deals.py", "demo"))
    monkeypatch.setenv("RETRIEVAL_LAB_ADMIN_SECRET", "another-secret")
    get_settings.cache_clear()
    runtime._lab.clear()
    try:
        app.run()
        assert "deals.reset" not in buttons(app)
        assert any("the admin secret was changed" in w.value for w in app.sidebar.warning)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
        runtime._lab.clear()


def test_confirmation_names_the_change_and_cancel_does_nothing(app: AppTest) -> None:
    unlock(open_page(app, "app_pages/deals.py", "demo"))
    app.button(key="deals.reset").click().run()
    no_errors(app)
    [ask] = [w.value for w in app.main.warning]
    assert ask.startswith("Reset the demo deal: its ") and "facts and" in ask and "open correction(s)" in ask
    app.button(key="deals.reset.cancel").click().run()
    no_errors(app)
    assert not app.main.warning and not app.main.success
    assert "deals.reset.confirm" not in buttons(app)
