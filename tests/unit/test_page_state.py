"""The one page-state mechanism (dashboard/common/page_state), on tiny Streamlit scripts run by AppTest."""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Selectbox


def memo_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.memo import SessionMemo

    memo = SessionMemo("test.memo", keep=3)
    computed = st.session_state.setdefault("computed", [])
    for key in st.session_state.get("peeked", []):
        memo.peek(key)
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
    at.session_state["peeked"], at.session_state["asked"] = [1], [5]  # a peek is a use: 2 goes, not 1
    at.run()
    assert at.session_state["kept"] == [4, 1, 5] and at.session_state["computed"][-1] == 5


def pick_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.url import publish_id, restore_id

    records = {7: "seven", 8: "eight", 9: "nine"}
    restore_id("pick", records, "record", "a record of this page")
    picked = st.selectbox("Record", [0, *records], key="pick")
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


def own_pick_script() -> None:
    import streamlit as st

    from dashboard.common.page_state.url import linked_id, pick_key, publish_id, set_pick

    records = {7: "seven", 8: "eight", 9: "nine"}
    if st.button("Open nine", key="open_nine"):  # the page picks a record itself, as a finished sweep is opened
        set_pick("pick", 9)
    if (linked := linked_id("pick", records, "record", "a record of this page")) is not None:
        set_pick("pick", linked)
    picked = st.selectbox("Record", [0, *records], key=pick_key("pick"))
    publish_id("pick", picked or None)


def record_picker(at: AppTest) -> Selectbox[Any]:
    return next(box for box in at.selectbox if box.label == "Record")


def test_a_pick_the_page_made_itself_is_not_undone_by_the_browsers_older_copy_and_a_users_pick_is_kept() -> None:
    """The browser's copy of the picker from before the page picked nine arrives with a later run (a timed fragment
    run, or a run of the whole page it was folded into): it must not undo the page's pick."""
    at = AppTest.from_function(own_pick_script)
    at.run()
    record_picker(at).set_value(8).run()
    older = at._tree.get_widget_states()  # what the browser holds: 8 picked, nine not yet opened
    at.button(key="open_nine").click().run()
    assert record_picker(at).value == 9 and at.query_params["pick"] == "9"
    at._run(older)
    assert record_picker(at).value == 9 and at.query_params["pick"] == "9"
    record_picker(at).set_value(0).run()  # the user's own change, on the picker they see
    assert record_picker(at).value == 0 and "pick" not in at.query_params
    at.query_params["pick"] = "7"  # a link read later opens its record the same way
    at.run()
    assert record_picker(at).value == 7


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
