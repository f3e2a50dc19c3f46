"""A page's state travels in its URL: a link opened in a fresh browser context shows the same view."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import Browser, Page, expect

from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.browser.conftest import wait_for_app

QUERY = "What is Halcyon's headcount? (link test)"


async def in_fresh_context(browser: Browser, url: str, look: Callable[[Page], Awaitable[None]]) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = await context.new_page()
        await page.goto(url)
        await wait_for_app(page)
        await look(page)
    finally:
        await context.close()


@pytest.fixture(scope="module")
async def ids(lab: Lab, demo: str) -> list[int]:
    """Two recorded runs of one query on the demo deal, without and with reranking."""
    return [save_run(lab.store, await retrieve(lab, QUERY, demo, 20, 5, r), "cli") for r in ("none", "local")]


@pytest.mark.browser
async def test_history_links_reopen_the_runs_and_filters(
    app_url: str, page: Page, browser: Browser, ids: list[int]
) -> None:
    await page.goto(f"{app_url}/history")
    await wait_for_app(page)
    await page.get_by_label("Query contains").fill("link test")
    await page.get_by_label("Query contains").press("Enter")
    await wait_for_app(page)
    await page.locator(".st-key-history-open").click()
    await page.get_by_role("option", name=f"#{ids[0]} ·").click()
    await wait_for_app(page)
    await page.get_by_role("heading", name=f"Run #{ids[0]}:").wait_for()
    url = page.url
    assert f"history.open={ids[0]}" in url and "history.text=link" in url, url

    async def same_run(fresh: Page) -> None:
        await fresh.get_by_role("heading", name=f"Run #{ids[0]}:").wait_for(timeout=30_000)
        await expect(fresh.get_by_label("Query contains")).to_have_value("link test")

    await in_fresh_context(browser, url, same_run)


@pytest.mark.browser
async def test_latency_filters_travel_in_the_link(app_url: str, page: Page, browser: Browser, ids: list[int]) -> None:
    await page.goto(f"{app_url}/latency")
    await wait_for_app(page)
    await page.locator(".st-key-latency-rerankers").click()
    await page.get_by_role("option", name="none", exact=True).click()
    await page.keyboard.press("Escape")
    await wait_for_app(page)
    url = page.url
    assert "latency.rerankers=none" in url, url

    async def only_none(fresh: Page) -> None:
        chips = fresh.locator(".st-key-latency-rerankers span[data-tag]")
        await expect(chips).to_have_count(1)
        assert await chips.get_attribute("aria-label") == "none"

    await in_fresh_context(browser, url, only_none)
