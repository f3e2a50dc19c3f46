"""Sweeps as server-side jobs, in two real browser contexts (two users, two sessions): a sweep started in one is seen
with its progress in the other and cancelled from there; a finished sweep is saved without a click and shows the
same result after a reload."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from playwright.async_api import Browser, Page

from pipeline.evaluation.experiments import load_experiment
from pipeline.evaluation.jobs.records import SweepJob
from pipeline.evaluation.jobs.repo import get_job, list_jobs
from pipeline.journal import failpoint
from pipeline.lab import Lab
from pipeline.store.db import Store
from tests.browser.conftest import STUCK_MS, recommendation, screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error


async def add_candidates(page: Page, *values: int) -> None:
    """Pick more N values in the sweep form's multiselect."""
    box = page.locator(".st-key-evaluate-candidates input")
    for value in values:
        await box.click()
        await box.fill(str(value))
        await box.press("Enter")
        await wait_for_app(page)
    await page.locator("h1").first.click()  # close the dropdown
    chosen = await page.locator(".st-key-evaluate-candidates").inner_text()
    assert all(str(v) in chosen for v in values), chosen


async def job_ended(store: Store, job_id: int, within_s: float = 180.0) -> SweepJob:
    """The job once it is no longer active, read from the store as often as it changes."""
    deadline = time.monotonic() + within_s
    while (job := get_job(store, job_id)) is None or job.active:
        state = f"{job.state} ({job.done} of {job.total} queries)" if job else "missing"
        assert time.monotonic() < deadline, f"job #{job_id} still {state} after {within_s} s"
        await asyncio.sleep(0.2)
    return job


async def job_after(store: Store, group_id: str, job_id: int, within_s: float = 60.0) -> int:
    """The id of the deal's first job after `job_id`, once its row is written (the click starts it)."""
    deadline = time.monotonic() + within_s
    while not (newer := [j.id for j in list_jobs(store, group_id, 5) if j.id > job_id]):
        assert time.monotonic() < deadline, f"no job after #{job_id} within {within_s} s"
        await asyncio.sleep(0.1)
    return min(newer)


async def result_text(page: Page) -> list[str]:
    """What the shown result says in words: the recommendation and the captions with its numbers, once the run
    drawing it has ended (until then the previous result's elements can still be on the page)."""
    await wait_for_app(page)
    await recommendation(page).wait_for(timeout=STUCK_MS)
    recommended = await page.locator("[data-testid='stAlertContentSuccess']").all_inner_texts()
    captions = await page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
    return [*recommended, *(c for c in captions if " queries · " in c or c.startswith("Ran on "))]


@pytest.mark.browser
async def test_a_sweep_job_seen_and_cancelled_from_another_session(
    app_url: str, browser: Browser, lab: Lab, demo: str
) -> None:
    store = Store(lab.store.path)
    # the server's sweep waits after each query while this file exists, or until it is cancelled (SWEEP_PAUSE): the
    # job is still running when the second session cancels it, however fast its queries are
    pause = lab.store.path.parent / failpoint.PAUSE_FILE
    first_ctx, second_ctx = await browser.new_context(), await browser.new_context()
    try:
        pause.touch()
        first = await first_ctx.new_page()
        await first.set_viewport_size({"width": 1400, "height": 1000})
        await first.goto(f"{app_url}/evaluate?sidebar.deal={demo}")
        await wait_for_app(first)
        await add_candidates(first, 150, 200)
        before = {j.id for j in list_jobs(store, demo, 1000)}
        await first.locator(".st-key-evaluate-run button").click()
        await first.get_by_text(re.compile(r"Job #\d+ · \d+ of 54 queries")).wait_for(timeout=STUCK_MS)
        job_id = next(j.id for j in list_jobs(store, demo, 5) if j.id not in before)

        # the second user opens the page: the job is there, with its progress, and theirs to cancel
        second = await second_ctx.new_page()
        await second.set_viewport_size({"width": 1400, "height": 1000})
        await second.goto(f"{app_url}/evaluate?sidebar.deal={demo}")
        await second.get_by_text(re.compile(rf"Job #{job_id} · [1-9]\d* of 54 queries · ETA ")).wait_for(
            timeout=180_000
        )
        await screenshot(second, "evaluate-job-seen-from-another-session")
        await second.locator(f".st-key-evaluate-cancel_job_{job_id} button").click()

        # the sweep stops within one query (the job's state, in the store), then the first user's page says so at its
        # next refresh; both bounds are for a stuck job or page only (a loaded machine runs a N=200 query slowly)
        job = await job_ended(store, job_id)
        assert job.state == "cancelled"
        assert job.cancel_at_done is not None and job.done <= job.cancel_at_done + 1
        assert job.done == 1  # held after its first query until the cancel
        pause.unlink()
        # what it finished is kept: the first user's page opens it as a partial experiment, saying so
        assert job.experiment_id is not None
        said = f"Sweep cancelled after {job.done} of 54 queries: the finished queries are saved as partial experiment"
        await first.get_by_text(f"{said} #{job.experiment_id}.").wait_for(timeout=STUCK_MS)
        # the page opens it for the session that started it (a timed refresh of the job list carrying the browser's
        # older "Show" pick cannot undo that: dashboard/common/page_state/url.py, pick_key)
        await first.get_by_text(f"Partial experiment: cancelled after {job.done} of 54 queries.").wait_for(
            timeout=STUCK_MS
        )
        await first.wait_for_url(re.compile(rf"evaluate\.experiment={job.experiment_id}"), timeout=STUCK_MS)
        _info, partial = load_experiment(store, job.experiment_id)
        assert partial.partial == {"reason": "cancelled", "queries": job.done, "of": 54}
        await screenshot(first, "evaluate-partial-experiment")
        await assert_no_error(first)
        await assert_no_error(second)
        # one Cancel on each page while a sweep runs, none once it ended
        assert await first.get_by_role("button", name=re.compile("^Cancel")).count() == 0

        # a small sweep runs to its end: saved as an experiment without a click, named in the URL
        await first.locator(".st-key-evaluate-sample input").fill("3")
        await first.locator(".st-key-evaluate-sample input").press("Enter")
        await wait_for_app(first)
        # Run starts what the form holds: wait until the form says it holds the sample (a loaded machine can show
        # the settled page before the sample's rerun has begun)
        await first.get_by_text(re.compile(r"Run sweep: ~3 queries \(a sample of ")).wait_for(timeout=STUCK_MS)
        await first.locator(".st-key-evaluate-run button").click()
        done = await job_ended(store, await job_after(store, demo, job_id))
        assert done.state == "done" and done.experiment_id is not None
        await first.wait_for_url(re.compile(rf"evaluate\.experiment={done.experiment_id}"), timeout=STUCK_MS)
        info, saved = load_experiment(store, done.experiment_id)
        assert info.name.startswith("sweep 20") and saved.stats.queries == 3
        # the URL names it before the page has drawn it: wait for its own figures, not the cancelled one's
        await first.get_by_text(f"{saved.stats.seconds:.1f} s", exact=False).first.wait_for(timeout=STUCK_MS)
        shown = await result_text(first)
        assert any(f"{saved.stats.seconds:.1f} s" in line for line in shown), shown
        await screenshot(first, "evaluate-job-saved")

        # the same result after a reload
        await first.reload()
        assert await result_text(first) == shown
        await assert_no_error(first)
    finally:
        pause.unlink(missing_ok=True)
        await first_ctx.close()
        await second_ctx.close()
