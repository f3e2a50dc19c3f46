"""A queue build sent twice (a double click, a click the browser sends again while the first build runs) builds
one queue and reports success both times, with the new queue picked; the same name with other settings, or after
the replay window, is still refused (issue 38)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.audit import audit_log
from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.spotcheck.queue import REPLAY_S, build_queue, same_build
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import list_queues
from tests.app.conftest import no_errors, open_page

PAGE = "app_pages/spotcheck.py"
DEAL = "demo_build_twice"


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


def submit(app: AppTest, name: str, size: int) -> None:
    app.text_input(key="spotcheck.new.name").input(name)
    app.selectbox(key="spotcheck.new.source").set_value("fact_sample")
    app.number_input(key="spotcheck.new.size").set_value(size)
    app.button(key="spotcheck.new.build").click().run()


def test_the_same_submission_twice_reports_success_once_built(app: AppTest, lab: Lab, deal: str) -> None:
    open_page(app, PAGE, deal)
    app.text_input(key="spotcheck.reviewer").input("Ana Twice").run()
    submit(app, "walk queue 1", 5)
    no_errors(app)
    [queue] = [q for q in list_queues(lab.store, deal) if q.name == "walk queue 1"]
    submit(app, "walk queue 1", 5)  # the same click again, its form as it was
    no_errors(app)
    assert [s.value for s in app.success if "Built queue" in s.value] == ["Built queue **walk queue 1** with 5 items."]
    assert app.selectbox(key="spotcheck.queue").value == queue.id
    assert [q.id for q in list_queues(lab.store, deal) if q.name == "walk queue 1"] == [queue.id]
    created = [e for e in audit_log(lab.store, deal, "spotcheck.queue_created") if e.target == "walk queue 1"]
    assert len(created) == 1

    submit(app, "walk queue 1", 6)  # another build under a taken name: refused, in one line
    assert any("already exists" in e.value for e in app.error)
    assert not app.success


async def test_two_builds_at_once_make_one_queue(lab: Lab, deal: str) -> None:
    spec = QueueSpec("at once", deal, "fact_sample", 4, 7, "random", "Ben Twice")
    one, two = await asyncio.gather(*(build_queue(lab, spec, replay_within_s=REPLAY_S) for _ in range(2)))
    assert one.id == two.id
    assert [q.id for q in list_queues(lab.store, deal) if q.name == "at once"] == [one.id]
    with pytest.raises(InvalidInput, match="already exists"):  # without the replay window: a clash, as before
        await build_queue(lab, spec)
    with pytest.raises(InvalidInput, match="already exists"):  # by someone else: a clash
        await build_queue(lab, replace(spec, created_by="Cy Twice"), replay_within_s=REPLAY_S)
    later = datetime.fromisoformat(one.created_at).astimezone(UTC) + timedelta(seconds=REPLAY_S + 1)
    assert same_build(one, spec, "ben twice", REPLAY_S) and not same_build(one, spec, "Ben Twice", REPLAY_S, later)
