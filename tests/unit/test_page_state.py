"""The one page-state mechanism (dashboard/common/page_state), on tiny Streamlit scripts run by AppTest."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common.page_state import url


def memo_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.memo import SessionMemo

    memo = SessionMemo("test.memo", keep=3)
    computed = st.session_state.setdefault("computed", [])
    for key in st.session_state.get("asked", []):
        memo.get(key, lambda key=key: computed.append(key) or key * 10)
    st.session_state["kept"] = list(st.session_state["test.memo"])


def test_the_memo_keeps_the_most_recently_used_and_computes_each_once() -> None:
    at = AppTest.from_function(memo_script)
    at.session_state["asked"] = [1, 2, 3, 1, 4]  # 1 used again before 4 arrives: 2 is the least recently used
    at.run()
    assert at.session_state["computed"] == [1, 2, 3, 4]
    assert at.session_state["kept"] == [3, 1, 4]
    at.session_state["asked"] = [2, 4]
    at.run()
    assert at.session_state["computed"] == [1, 2, 3, 4, 2]  # dropped, so computed again; 4 was kept
    assert at.session_state["kept"] == [1, 2, 4]


def pick_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.url import publish_id, restore_id, user_changes_only

    records = {7: "seven", 8: "eight", 9: "nine"}
    if st.button("Open nine", key="open_nine"):  # the page picks a record itself, as a finished sweep is opened
        st.session_state["pick"] = 9
    restore_id("pick", records, "record", "a record of this page")
    picked = st.selectbox("Record", [0, *records], key="pick", on_change=user_changes_only, args=("pick", 0))
    publish_id("pick", picked or None)


def test_a_link_is_read_whenever_the_url_changes_under_the_page_and_never_undoes_a_pick() -> None:
    at = AppTest.from_function(pick_script)
    at.query_params["pick"] = "8"
    at.run()
    assert at.selectbox(key="pick").value == 8
    at.selectbox(key="pick").set_value(7).run()  # the user's pick wins over the URL it replaces
    assert at.selectbox(key="pick").value == 7 and at.query_params["pick"] == "7"
    at.query_params["pick"] = "8"  # an in-app link to another record, later in the same session
    at.run()
    assert at.selectbox(key="pick").value == 8
    at.query_params["pick"] = "nope"
    at.run()
    assert at.selectbox(key="pick").value == 8 and at.query_params["pick"] == "8"
    assert [w.value for w in at.warning] == ["The link's record “nope” is not a record of this page: left out."]


def test_a_stale_pick_sent_with_a_fragment_run_is_undone_and_a_users_pick_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = AppTest.from_function(pick_script)
    at.run()
    at.button(key="open_nine").click().run()
    assert at.selectbox(key="pick").value == 9 and at.query_params["pick"] == "9"
    # a timed fragment run carrying the browser's copy from before the page picked nine
    monkeypatch.setattr(url, "get_script_run_ctx", lambda: SimpleNamespace(fragment_ids_this_run=["timer"]))
    at.selectbox(key="pick").set_value(0).run()
    assert at.selectbox(key="pick").value == 9 and at.query_params["pick"] == "9"
    monkeypatch.undo()  # a run of the whole page: the user's own change
    at.selectbox(key="pick").set_value(0).run()
    assert at.selectbox(key="pick").value == 0 and "pick" not in at.query_params


def flash_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.flash import show_flash

    show_flash("test.flash")
    st.text_input("Typed after the message", key="test.after")


def test_a_flash_message_coming_and_going_leaves_the_widgets_after_it_in_place() -> None:
    """The widgets after a flash keep their place in the page's element tree whether or not it shows a message:
    a widget that moves is rebuilt by the browser, and what was being typed into it is lost."""
    at = AppTest.from_function(flash_script)
    at.session_state["test.flash"] = ("success", "Corrected.")
    at.run()
    assert [box.value for box in at.success] == ["Corrected."]
    with_message = [i for i, node in at.main.children.items() if node.type == "text_input"]
    at.run()  # shown once: gone on the next run
    assert not at.success
    assert [i for i, node in at.main.children.items() if node.type == "text_input"] == with_message
