"""The sidebar's admin box under brute force: a wrong secret is counted once (not on every rerun while it is
still in the box), audited, and the next try waits, whichever session makes it; the right secret inside
the wait is refused with "try again in N s"."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from pipeline.admin import unlock
from pipeline.admin.unlock import AUDIT_ACTION
from pipeline.audit import audit_log
from pipeline.settings import get_settings
from pipeline.store import open_store
from tests.app.conftest import APP, open_page
from tests.conftest import ADMIN_SECRET

PAGE = "app_pages/deals.py"


def failures() -> int:
    return len(audit_log(open_store(get_settings().resolved_data_dir), action_prefix=AUDIT_ACTION))


def enter(app: AppTest, secret: str) -> list[str]:
    app.text_input(key="admin.name").input("Mallory")
    app.text_input(key="admin.secret").input(secret).run()
    return [e.value for e in app.sidebar.error]


def test_wrong_secrets_are_throttled_across_sessions_and_audited(app: AppTest, monkeypatch) -> None:
    monkeypatch.setattr(unlock, "FIRST_DELAY_S", 60.0)  # a wait no slow machine outlasts between two sessions
    before = failures()
    open_page(app, PAGE, "demo")
    assert enter(app, "guess-1") == ["Wrong admin secret. The next try is possible in 60 s."]
    assert failures() == before + 1
    app.run()  # a rerun with the same wrong value in the box: shown again, not counted again
    assert app.sidebar.error[0].value.startswith("Wrong admin secret.")
    assert failures() == before + 1

    other = open_page(AppTest.from_file(APP, default_timeout=60), PAGE, "demo")  # another session, same data dir
    [refused] = enter(other, ADMIN_SECRET)
    assert refused.startswith("Too many wrong admin secrets: try again in ")
    assert 50 <= int(refused.removeprefix("Too many wrong admin secrets: try again in ").split()[0]) <= 60
    assert "deals.reset" not in {b.key for b in other.button}
    assert failures() == before + 1  # refused unchecked: not a comparison, not a failure
    entry = audit_log(open_store(get_settings().resolved_data_dir), action_prefix=AUDIT_ACTION)[0]
    assert entry.actor == "Mallory" and "guess-1" not in str(entry.details)
