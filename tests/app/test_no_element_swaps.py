"""No run of a page puts a container in a place where that same run first put an element, or the other way round.

The server sends a run's deltas as they come and merges those for one place only while they wait in its queue.
On a quiet machine an element and the container that replaces it leave together, as one. On a busy one the
browser may draw the element first: the container's widgets are then built anew, an expander folds, and what
the user was typing into them is gone (the sidebar's admin box lost a typed secret this way in a loaded run).

This records every delta of each run before the queue merges them, so the swap is seen whatever the timing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.testing.v1 import AppTest

from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET

PAGES = [
    "app_pages/home.py",
    "app_pages/compare.py",
    "app_pages/scores.py",
    "app_pages/timeline.py",
    "app_pages/merges.py",
    "app_pages/latency.py",
    "app_pages/history.py",
    "app_pages/evaluate.py",
    "app_pages/spotcheck.py",
    "app_pages/audit.py",
    "app_pages/deals.py",
]


@pytest.fixture
def deltas(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[tuple[int, ...], str]]]:
    """(place, "element" or "container") of every delta sent, in order, cleared at each run's start."""
    sent: list[tuple[tuple[int, ...], str]] = []
    enqueue, clear = ForwardMsgQueue.enqueue, ForwardMsgQueue.clear

    def recording(self: ForwardMsgQueue, msg: ForwardMsg) -> None:
        if msg.HasField("delta"):
            kind = "container" if msg.delta.HasField("add_block") else "element"
            sent.append((tuple(msg.metadata.delta_path), kind))
        enqueue(self, msg)

    def starting(self: ForwardMsgQueue, *args: Any, **kwargs: Any) -> None:  # a run starts with a clear queue
        sent.clear()
        clear(self, *args, **kwargs)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", recording)
    monkeypatch.setattr(ForwardMsgQueue, "clear", starting)
    yield sent


def swaps(sent: list[tuple[tuple[int, ...], str]]) -> list[tuple[int, ...]]:
    kinds: dict[tuple[int, ...], set[str]] = defaultdict(set)
    for place, kind in sent:
        kinds[place].add(kind)
    return sorted(place for place, seen in kinds.items() if len(seen) > 1)


@pytest.mark.parametrize("page", PAGES)
def test_a_page_never_swaps_an_element_for_a_container_in_one_run(
    app: AppTest, demo: str, page: str, deltas: list[tuple[tuple[int, ...], str]]
) -> None:
    open_page(app, page, demo)
    assert deltas, "nothing recorded: the check would pass whatever the page drew"
    assert swaps(deltas) == []


def test_the_admin_box_is_never_swapped_while_a_name_and_secret_are_typed(
    app: AppTest, demo: str, deltas: list[tuple[tuple[int, ...], str]]
) -> None:
    open_page(app, "app_pages/timeline.py", demo)
    app.text_input(key="admin.name").input("Ana").run()  # the name commits first: a run while the box is open
    assert deltas and swaps(deltas) == []
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)
    assert any(s.value == "Admin actions on for Ana." for s in app.sidebar.success)
    assert swaps(deltas) == []


def test_the_check_sees_a_swap() -> None:
    """The positive control: an element, then a container in its place, as `st.empty().container()` sends."""
    assert swaps([((1, 0), "element"), ((1, 0), "container"), ((1, 1), "element")]) == [(1, 0)]
