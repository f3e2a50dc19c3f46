"""Issue 38 on the Spot-check page, in a real browser: a queue build clicked twice in a row (the second click lands
while the first build runs) builds one queue and says so once, with no error, and the picker shows the new queue.
On a demo deal of its own."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from pipeline.audit import audit_log
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.spotcheck.repo import list_queues
from tests.browser.conftest import STUCK_MS, wait_for_app
from tests.browser.test_pages import assert_no_error

DEAL = "demo_browser_build"
NAME = "walk queue 1"


@pytest.fixture
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


@pytest.mark.browser
async def test_a_build_clicked_twice_builds_once_and_says_so_once(
    app_url: str, page: Page, lab: Lab, deal: str
) -> None:
    await page.goto(f"{app_url}/spotcheck?sidebar.deal={deal}&spotcheck.reviewer=Ana+Build&spotcheck.tab=New+queue")
    await wait_for_app(page)
    await expect(page.locator("[role='tab'][aria-selected='true']")).to_have_text("New queue", timeout=STUCK_MS)
    await page.locator(".st-key-spotcheck-new-name input").fill(NAME)
    queries = page.locator(".st-key-spotcheck-new-queries input")
    await queries.fill("4")  # a query-set build of 4 queries: seconds, so the second click lands during it
    await page.locator(".st-key-spotcheck-new-build button").dblclick()
    built = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=f"Built queue {NAME}")
    await built.first.wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await assert_no_error(page)  # no "already exists"
    await expect(built).to_have_count(1)
    await expect(page.locator(".st-key-spotcheck-queue input")).to_have_value(re.compile(re.escape(NAME)))

    [queue] = [q for q in list_queues(lab.store, deal) if q.name == NAME]
    assert [e for e in audit_log(lab.store, deal, "spotcheck.queue_created") if e.target == NAME] != []
    assert len([e for e in audit_log(lab.store, deal, "spotcheck.queue_created") if e.target == NAME]) == 1
    await page.reload()
    await wait_for_app(page)
    await assert_no_error(page)
    assert [q.id for q in list_queues(lab.store, deal) if q.name == NAME] == [queue.id]
