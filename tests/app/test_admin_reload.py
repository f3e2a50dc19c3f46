"""An unlock survives a reload: a reload is a new Streamlit session, which reads the signed, expiring admin
cookie the unlocked one wrote (dashboard/common/admin.py); a forged, expired or revoked token, or one signed
under another secret, unlocks nothing, and "Sign out" clears the cookie (issue 38)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import admin
from pipeline.admin.token import sign, verify
from pipeline.settings import get_settings
from tests.app.conftest import APP, no_errors, open_page
from tests.conftest import ADMIN_SECRET

PAGE = "app_pages/deals.py"
TOKEN = re.compile(r'document\.cookie = "retrieval_lab_admin=([A-Za-z0-9_.-]*); Max-Age=(\d+);')


def cookie_written(app: AppTest) -> tuple[str, int] | None:
    """What the last run's script wrote to the admin cookie: (value, max-age), or None when it wrote nothing."""
    found = [m for h in app.sidebar.get("html") if (m := TOKEN.search(h.proto.body))]
    assert len(found) <= 1
    return (found[0][1], int(found[0][2])) if found else None


def reload_with(monkeypatch: pytest.MonkeyPatch, cookie: str | None) -> AppTest:
    """A new session (a reload) whose browser sends `cookie`."""
    monkeypatch.setattr(admin, "_cookie", lambda: cookie)
    return open_page(AppTest.from_file(APP, default_timeout=60), PAGE, "demo")


def unlocked(app: AppTest) -> bool:
    return "deals.reset" in {b.key for b in app.button if b.key}


def test_a_reload_keeps_the_unlock_until_sign_out(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    open_page(app, PAGE, "demo")
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)
    written = cookie_written(app)
    assert written is not None and unlocked(app)
    token, max_age = written
    idle = get_settings().admin_idle_minutes * 60
    assert idle - 5 <= max_age <= idle and ADMIN_SECRET not in token
    assert verify(token, ADMIN_SECRET, admin._now()).name == "Ana"
    app.run()
    assert cookie_written(app) is None  # written once, not on every run

    again = reload_with(monkeypatch, token)
    no_errors(again)
    assert unlocked(again) and any("Admin: **Ana**" in m.value for m in again.sidebar.markdown)
    assert admin.SECRET_KEY not in {t.key for t in again.text_input}

    again.button(key="admin.sign_out").click().run()
    assert not unlocked(again) and cookie_written(again) == ("", 0)  # cleared in the browser
    again.run()
    assert not unlocked(again)  # the cookie this session began with is not taken again


@pytest.mark.parametrize(
    "cookie",
    [
        sign("Ana", 4_000_000_000.0, "another-secret"),  # signed under another secret
        sign("Ana", 1_000.0, ADMIN_SECRET),  # expired
        sign("Ana", 4_000_000_000.0, ADMIN_SECRET)[:-2] + "xx",  # tampered
        "not-a-token",
        ADMIN_SECRET,  # the secret itself is no token
    ],
    ids=["other-secret", "expired", "tampered", "garbage", "secret"],
)
def test_a_bad_cookie_unlocks_nothing(monkeypatch: pytest.MonkeyPatch, cookie: str, demo: str) -> None:
    app = reload_with(monkeypatch, cookie)
    no_errors(app)
    assert not unlocked(app) and any(t.key == admin.SECRET_KEY for t in app.text_input)
