"""Adjudicate in a real browser (issue 26): picking an item and recording its final answer keep the page on the
Adjudicate tab, the picker then says the item is adjudicated, and a support disagreement shows the cited source
(document, page / chunk, the highlighted passage) beside the two answers."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.async_api import Page, expect

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_verdict
from tests.browser.conftest import STUCK_MS, choose, screenshot, unlock_admin, wait_for_app
from tests.browser.test_pages import assert_no_error
from tests.conftest import ADMIN_SECRET


async def on_adjudicate(page: Page) -> None:
    await expect(page.get_by_role("tab", name="Adjudicate")).to_have_attribute("aria-selected", "true")


@pytest.mark.browser
async def test_adjudicating_stays_on_its_tab_and_shows_the_source(
    app_url: str, page: Page, lab: Lab, demo: str
) -> None:
    name = f"adjudicate {uuid.uuid4().hex[:8]}"
    queue = await build_queue(lab, QueueSpec(name, demo, "fact_sample", 2, 5, "random", "Tess"))
    items = queue_items(lab.store, queue.id)
    for item in items:  # split on support, both items
        record_verdict(lab.store, item.id, "Ana Split", "supported")
        record_verdict(lab.store, item.id, "Ben Split", "not_supported")
    second = items[1]

    await page.goto(f"{app_url}/spotcheck?spotcheck.queue={queue.id}")
    await wait_for_app(page)
    await unlock_admin(page, "Cleo Judge", ADMIN_SECRET)
    await wait_for_app(page)
    await page.get_by_role("tab", name="Adjudicate").click()
    await on_adjudicate(page)

    option = page.get_by_role("option", name=re.compile(rf"^open · {re.escape(name)} #2 "))
    await choose(page, "spotcheck.adj.item", option)
    await wait_for_app(page)
    await on_adjudicate(page)  # picking an item keeps the tab
    card = page.locator(".st-key-spotcheck-adj-card")
    await expect(card.get_by_text("Ana Split")).to_be_visible()
    await expect(card.get_by_text("Citation")).to_be_visible()  # the cited source, not only the two answers
    await expect(card.get_by_text(second.citation.document_name or "(no document)").first).to_be_visible()
    await expect(card.locator(".spotcheck-episode")).to_have_count(1)

    await choose(page, f"spotcheck.adj.support.{second.id}", page.get_by_role("option", name="supported", exact=True))
    await page.locator(".st-key-spotcheck-adj-save button").click()
    await page.get_by_text(f"Recorded the final answer for item 2 of {name}").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await on_adjudicate(page)  # recording keeps the tab too
    picked = await page.locator(".st-key-spotcheck-adj-item input").input_value()
    assert picked.startswith(f"adjudicated · {name} #2"), picked  # the picker says what the item is now
    await screenshot(page, "spotcheck-adjudicate")
    await assert_no_error(page)
