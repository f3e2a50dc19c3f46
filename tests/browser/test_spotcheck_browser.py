"""Give spot-check verdicts from a real browser (a click, then a keyboard shortcut) and find them in the store."""

from __future__ import annotations

import uuid

import pytest
from playwright.async_api import Page

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items, reviewer_verdicts
from pipeline.store.db import Store
from tests.browser.conftest import screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error

REVIEWER = "Bea Browser"


@pytest.mark.browser
async def test_a_verdict_given_in_the_browser_is_recorded(app_url: str, page: Page, lab: Lab, demo: str) -> None:
    name = f"browser queue {uuid.uuid4().hex[:8]}"
    queue = await build_queue(lab, QueueSpec(name, demo, "fact_sample", 3, 11, "disagreement", "Bea Browser"))
    items = queue_items(lab.store, queue.id)

    await page.goto(f"{app_url}/spotcheck")
    await wait_for_app(page)
    box = page.get_by_role("textbox", name="Your name (reviewer)")
    await box.fill(REVIEWER)
    await box.press("Enter")
    await page.get_by_text(f"0 / 3 reviewed by {REVIEWER}").wait_for(timeout=60_000)
    assert name in await page.locator(".st-key-spotcheck-queue input").input_value()  # the newest queue is open
    assert await page.locator(".spotcheck-episode mark").count() == 1  # the supporting span is highlighted

    await page.locator(".st-key-spotcheck-v-supported button").click()
    await page.get_by_text("Recorded supported for item 1").wait_for(timeout=60_000)
    await wait_for_app(page)
    await page.locator("h1").first.click()  # focus off the text fields: shortcuts do not fire while typing
    await page.keyboard.press("3")
    await page.get_by_text("Recorded not supported for item 2").wait_for(timeout=60_000)
    await wait_for_app(page)
    await screenshot(page, "spotcheck-verdict")
    await assert_no_error(page)
    await page.get_by_text(f"2 / 3 reviewed by {REVIEWER}").wait_for(timeout=10_000)
    await page.locator(".st-key-spotcheck-next").scroll_into_view_if_needed()
    await screenshot(page, "spotcheck-buttons")

    await page.get_by_role("tab", name="Summary").click()
    await page.locator(".st-key-spotcheck-by_channel .js-plotly-plot").wait_for(timeout=30_000)
    await screenshot(page, "spotcheck-summary")
    await assert_no_error(page)

    recorded = reviewer_verdicts(Store(lab.store.path), queue.id, REVIEWER)
    assert {item_id: v.verdict for item_id, v in recorded.items()} == {
        items[0].id: "supported",
        items[1].id: "not_supported",
    }
