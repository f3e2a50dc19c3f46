"""A link whose id is not one, or names nothing: dropped from the URL with one line, and the page still draws.

Python's `int()` reads other scripts' digits ("٣" is 3) and raises on "²" or on more than 4,300 digits; an id
beyond SQLite's 64-bit integers names no row. Only digits 0-9 within range are an id in a link.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import list_queues
from tests.app.conftest import APP, no_errors, show_picker

BAD_IDS = ["²", "٣", "9" * 4_301, str(2**63)]
QUEUE_NAME = "bad links queue"


@pytest.fixture
async def queue_id(lab: Lab, demo: str) -> int:
    """A 4-card queue of the demo deal, built once per test session."""
    for queue in list_queues(lab.store, demo):
        if queue.name == QUEUE_NAME:
            return queue.id
    queue = await build_queue(lab, QueueSpec(QUEUE_NAME, demo, "fact_sample", 4, 5, "random", "Tess"))
    return queue.id


@pytest.fixture
def a_run(demo: str) -> None:
    """History lists its picker only when a run is recorded."""
    assert main(["query", "revenue", "--group", demo, "--candidates", "10", "--top-k", "3"]) == 0


def opened(page: str, params: dict[str, str]) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update(params)
    app.run()
    app.switch_page(page)
    app.run()
    no_errors(app)
    return app


def dropped_in_one_line(app: AppTest, key: str, raw: str) -> None:
    assert app.query_params.get(key) != raw  # absent, or the page's own pick
    lines = [w.value for w in app.warning if "left out" in w.value]
    assert len(lines) == 1, lines
    assert f"“{raw[:10]}" in lines[0] and len(lines[0]) < 200, lines[0]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_a_bad_experiment_id(demo: str, bad: str) -> None:
    app = opened("app_pages/evaluate.py", {"evaluate.experiment": bad})
    dropped_in_one_line(app, "evaluate.experiment", bad)
    assert show_picker(app).value is not None  # the page drew its picker: nothing opened


@pytest.mark.parametrize("bad", BAD_IDS)
def test_a_bad_queue_id(queue_id: int, bad: str) -> None:
    app = opened("app_pages/spotcheck.py", {"spotcheck.queue": bad})
    dropped_in_one_line(app, "spotcheck.queue", bad)
    assert app.selectbox(key="spotcheck.queue").value is not None  # the newest queue, as without a link


@pytest.mark.parametrize("bad", BAD_IDS)
def test_a_bad_card_number(queue_id: int, bad: str) -> None:
    app = opened("app_pages/spotcheck.py", {"spotcheck.queue": str(queue_id), "spotcheck.item": bad})
    assert app.selectbox(key="spotcheck.queue").value == queue_id
    dropped_in_one_line(app, "spotcheck.item", bad)
    [item] = [m.value for m in app.metric if m.label == "Item"]
    assert item == "1 / 4"  # "٣" is not card 3: the queue opens where the reviewer would resume


@pytest.mark.parametrize("bad", BAD_IDS)
def test_a_bad_run_id(a_run: None, bad: str) -> None:
    app = opened("app_pages/history.py", {"history.open": bad})
    dropped_in_one_line(app, "history.open", bad)
    assert app.selectbox(key="history.open").value is None


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_n_and_k_in_an_old_compare_link(demo: str, bad: str) -> None:
    app = opened("app_pages/compare.py", {"compare.n": bad, "compare.k": bad})
    assert "compare.n" not in app.query_params and "compare.k" not in app.query_params
    lines = [w.value for w in app.warning if "left out" in w.value]
    assert len(lines) == 2 and all(f"“{bad[:10]}" in line for line in lines), lines
    assert app.slider(key="compare.a.n").value == 50 and app.slider(key="compare.b.k").value == 10  # defaults


def test_a_good_link_still_opens_its_card(queue_id: int) -> None:
    app = opened("app_pages/spotcheck.py", {"spotcheck.queue": str(queue_id), "spotcheck.item": "3"})
    no_errors(app)
    assert not [w.value for w in app.warning if "left out" in w.value]
    [item] = [m.value for m in app.metric if m.label == "Item"]
    assert item == "3 / 4"
