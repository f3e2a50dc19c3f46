"""Open every page in a real browser: it renders, shows no error, and leaves a screenshot."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from dashboard.common.navigation import all_pages
from tests.browser.conftest import SERVER_LOG, STUCK_MS, screenshot, wait_for_app

# every page of the app, straight from the navigation, so a new page cannot be left out
PAGES = [(spec.url_path, spec.url_path or "home") for spec in all_pages()]


async def assert_no_error(page: Page) -> None:
    assert await page.locator("[data-testid='stException']").count() == 0
    assert await page.locator("[data-testid='stAlertContentError']").count() == 0


@pytest.mark.browser
@pytest.mark.parametrize(("path", "name"), PAGES)
async def test_page_renders_without_error(app_url: str, page: Page, path: str, name: str) -> None:
    await page.goto(f"{app_url}/{path}")
    await wait_for_app(page)
    shot = await screenshot(page, name)
    await assert_no_error(page)
    assert await page.locator("h1").first.is_visible()
    assert shot.stat().st_size > 10_000


@pytest.mark.browser
async def test_compare_runs_a_query_in_the_browser(app_url: str, page: Page) -> None:
    await page.goto(f"{app_url}/compare")
    await wait_for_app(page)
    box = page.get_by_label("Query")
    await box.fill("What was Halcyon's FY2025 revenue?")
    await box.press("Enter")
    await page.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await screenshot(page, "compare-query")
    await assert_no_error(page)
    # judged: the verdict line, both sides' metrics and a grade on the cards
    await page.get_by_text("relevant fact", exact=False).first.wait_for(timeout=STUCK_MS)
    await page.get_by_text("A: nDCG@10").first.wait_for(timeout=STUCK_MS)
    await page.get_by_text("B: nDCG@10").first.wait_for(timeout=STUCK_MS)
    assert await page.get_by_text("judged 2").count() + await page.get_by_text("judged 1").count() >= 1
    classes = await page.eval_on_selector_all("[class*='st-key-compare']", "els => els.map(e => e.className)")
    print(classes[:5])
    assert "compare.q=" in page.url


@pytest.mark.browser
async def test_the_app_was_warmed_up_before_it_served(app_url: str) -> None:
    # the fixture serves through `python -m dashboard.serve`, as scripts/run.sh does
    log = SERVER_LOG.read_text(encoding="utf-8", errors="replace")
    warmed, listening = log.find("retrieval-lab: warmed up in"), log.find("You can now view")
    assert warmed != -1, log[-2000:]
    assert listening == -1 or warmed < listening, log[-2000:]
    assert "Traceback" not in log and "missing ScriptRunContext" not in log, log[-2000:]
