"""The Adjudicate tab records a final answer only for those allowed to: an unlocked admin or a reviewer listed in
RETRIEVAL_LAB_ADJUDICATORS, never a reviewer who answered the item, and only after an explicit choice."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.lab import Lab
from pipeline.settings import get_settings
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_relevance, record_verdict
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET

PAGE = "app_pages/spotcheck.py"
SAVE = "spotcheck.adj.save"


@pytest.fixture
async def item_id(lab: Lab, demo: str) -> int:
    """An item of the demo deal split on both questions: Ana Gate said 3 / supported, Ben Gate 0 / not supported."""
    name = f"adjudication gate {uuid.uuid4().hex[:8]}"  # a queue of its own: no other test's final answers
    spec = QueueSpec(name, demo, "query_set", 1, 3, "random", "Tess", top_k=1, reranker="none", query_limit=1)
    queue = await build_queue(lab, spec)
    [item] = queue_items(lab.store, queue.id)
    record_relevance(lab.store, item.id, "Ana Gate", 3)
    record_relevance(lab.store, item.id, "Ben Gate", 0)
    record_verdict(lab.store, item.id, "Ana Gate", "supported")
    record_verdict(lab.store, item.id, "Ben Gate", "not_supported")
    return item.id


@pytest.fixture
def adjudicators(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """RETRIEVAL_LAB_ADJUDICATORS lists Cleo Gate and Ana Gate (the app's settings and Lab are read again)."""
    monkeypatch.setenv("RETRIEVAL_LAB_ADJUDICATORS", "Cleo Gate, Ana Gate")
    get_settings.cache_clear()
    runtime._lab.clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def adjudicate_tab(app: AppTest, item_id: int, reviewer: str = "") -> AppTest:
    open_page(app, PAGE)
    if reviewer:
        app.text_input(key="spotcheck.reviewer").input(reviewer).run()
    app.selectbox(key="spotcheck.adj.item").set_value(item_id).run()
    no_errors(app)
    return app


def unlock(app: AppTest, name: str) -> None:
    app.text_input(key="admin.name").input(name)
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)


def can_save(app: AppTest) -> bool:
    return any(b.key == SAVE for b in app.button)


def finals(lab: Lab, item_id: int) -> list[tuple[str, str, str]]:
    rows = lab.store.query(
        "SELECT question, answer, adjudicator FROM spotcheck_adjudications WHERE item_id = ? ORDER BY question",
        (item_id,),
    )
    return [tuple(r) for r in rows]


def test_a_reviewer_neither_admin_nor_listed_gets_no_form(app: AppTest, lab: Lab, item_id: int) -> None:
    adjudicate_tab(app, item_id, "Dee Outsider")
    assert not can_save(app)
    assert any("RETRIEVAL_LAB_ADJUDICATORS" in i.value for i in app.info)
    assert finals(lab, item_id) == []


def test_a_party_cannot_adjudicate_listed_or_admin(app: AppTest, lab: Lab, item_id: int, adjudicators: None) -> None:
    adjudicate_tab(app, item_id, "ana gate")  # listed, but answered the item (names compare case-insensitively)
    assert not can_save(app)
    assert any("a party to the disagreement cannot adjudicate it" in w.value for w in app.warning)
    unlock(app, "Ben Gate")  # an admin who answered the item is a party too
    assert not can_save(app)
    assert any("Ben Gate answered this item" in w.value for w in app.warning)
    assert finals(lab, item_id) == []


def test_a_listed_adjudicator_records_only_an_explicit_choice(
    app: AppTest, lab: Lab, item_id: int, adjudicators: None
) -> None:
    adjudicate_tab(app, item_id, "Cleo Gate")
    assert can_save(app)
    relevance = app.selectbox(key=f"spotcheck.adj.relevance.{item_id}")
    support = app.selectbox(key=f"spotcheck.adj.support.{item_id}")
    assert relevance.value is None and support.value is None  # nothing preselected: one click records nothing
    app.button(key=SAVE).click().run()
    assert any("Pick the final relevance grade" in e.value for e in app.error)
    assert finals(lab, item_id) == []

    app.selectbox(key=f"spotcheck.adj.relevance.{item_id}").set_value(2)
    app.button(key=SAVE).click().run()  # support still unpicked: neither answer is recorded
    assert any("Pick the final support verdict" in e.value for e in app.error)
    assert finals(lab, item_id) == []

    app.selectbox(key=f"spotcheck.adj.relevance.{item_id}").set_value(2)
    app.selectbox(key=f"spotcheck.adj.support.{item_id}").set_value("partially_supported")
    app.button(key=SAVE).click().run()
    no_errors(app)
    assert finals(lab, item_id) == [("relevance", "2", "Cleo Gate"), ("support", "partially_supported", "Cleo Gate")]


def test_an_unlocked_admin_adjudicates_under_the_admin_name(app: AppTest, lab: Lab, item_id: int) -> None:
    adjudicate_tab(app, item_id)  # no reviewer name needed
    assert not can_save(app)
    unlock(app, "Erin Admin")
    assert can_save(app)
    assert any("Adjudicating as Erin Admin (admin)" in c.value for c in app.caption)
    app.selectbox(key=f"spotcheck.adj.relevance.{item_id}").set_value(1)
    app.selectbox(key=f"spotcheck.adj.support.{item_id}").set_value("supported")
    app.button(key=SAVE).click().run()
    no_errors(app)
    assert finals(lab, item_id) == [("relevance", "1", "Erin Admin"), ("support", "supported", "Erin Admin")]
    [actor] = lab.store.query(
        "SELECT actor FROM audit_log WHERE action = 'spotcheck.adjudicated' ORDER BY id DESC LIMIT 1"
    )[0]
    assert actor == "Erin Admin"
