"""AppTest drives the real Streamlit script in-process, against the session's embedded FalkorDB."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Selectbox

from dashboard.common import runtime
from pipeline.admin.repo import clear_failures
from pipeline.evaluation.experiments import load_experiment
from pipeline.evaluation.jobs import SweepJob
from pipeline.evaluation.jobs.repo import get_job, list_jobs
from pipeline.evaluation.records import SweepResult
from pipeline.settings import get_settings
from pipeline.store import open_store

APP = str(Path(__file__).resolve().parents[2] / "streamlit_app.py")


@pytest.fixture
def app(demo: str) -> AppTest:
    """The app, on the demo deal, before its first run."""
    return AppTest.from_file(APP, default_timeout=60)


@contextmanager
def app_env(monkeypatch: pytest.MonkeyPatch, **variables: str) -> Iterator[None]:
    """The app configured as a user would configure it, by environment variables, for the duration: the settings
    and the app's Lab are rebuilt from them, and again from the restored environment afterwards."""
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    runtime._lab.clear()
    try:
        yield
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
        runtime._lab.clear()


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def show_picker(app: AppTest) -> Selectbox[Any]:
    """Evaluate's "Show" picker (its widget key changes whenever the page opens an experiment itself)."""
    return next(box for box in app.selectbox if box.label == "Show")


def open_page(app: AppTest, page: str, deal: str | None = None) -> AppTest:
    """Run the app, switch to `page` (a path under app_pages/), select `deal` if given; no error shown."""
    app.run()
    app.switch_page(page)
    app.run()
    if deal is not None and app.selectbox(key="sidebar.deal").value != deal:
        app.selectbox(key="sidebar.deal").set_value(deal).run()
    no_errors(app)
    return app


def finish_sweep(app: AppTest, group_id: str, timeout: float = 120) -> SweepJob:
    """After Run sweep: wait for the deal's newest job (it runs on the app's loop, beside the test; a quick one may
    have ended already) to end, then run the page again, which opens the saved experiment; the job as it ended."""
    store = open_store(get_settings().resolved_data_dir)
    job_id = list_jobs(store, group_id, 1)[0].id
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = get_job(store, job_id)
        if job is not None and not job.active:
            app.run()
            return job
        time.sleep(0.1)
    raise AssertionError(f"sweep job #{job_id} still running after {timeout} s")


def sweep_from_page(app: AppTest, group_id: str) -> tuple[SweepJob, SweepResult]:
    """Click Run sweep on the open Evaluate page and wait for the job; the job and its saved experiment."""
    app.button(key="evaluate.run").click()
    app.run()
    no_errors(app)
    job = finish_sweep(app, group_id)
    no_errors(app)
    assert job.state == "done" and job.experiment_id is not None, job
    _info, result = load_experiment(open_store(get_settings().resolved_data_dir), job.experiment_id)
    return job, result


@pytest.fixture(autouse=True)
def _clear_unlock_throttle() -> Iterator[None]:
    """Failed unlocks are throttled per data directory (pipeline/admin/unlock.py): no test waits for the
    wrong secrets another test typed. test_admin_throttle.py checks the throttle itself."""
    yield
    store = open_store(get_settings().resolved_data_dir)
    with store.transaction() as conn:
        clear_failures(conn)
