"""Evaluate at 1280 x 800 in a real browser (issue 26): the sweep's size and time said before Run, the results table
with the columns that decide first and none of the noise, and Compare experiments with both recommendations."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.async_api import Browser, Page

from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error

WIDTH, HEIGHT = 1280, 800
NOISE = {"In grid", "Cost ($)", "Fallbacks", "Recipe", "Reranker", "N", "K"}


@pytest.fixture
async def laptop(browser: Browser) -> Page:
    page = await browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    yield page
    await page.close()


async def headers_in_view(page: Page, index: int) -> list[str]:
    """The headers of the columns in view of the index-th table (its accessible table lists only those)."""
    grid = page.get_by_test_id("stDataFrame").nth(index)
    await grid.scroll_into_view_if_needed()
    await grid.locator("th").first.wait_for(state="attached", timeout=STUCK_MS)
    return [h.strip() for h in await grid.locator("th").all_text_contents()]


@pytest.mark.browser
async def test_results_and_compare_read_at_a_glance_at_1280(app_url: str, laptop: Page, lab: Lab, demo: str) -> None:
    narrow = await run_sweep(lab, SweepSpec(demo, candidates=(10, 25), top_ks=(5,), sample=30, seed=4))
    wide = await run_sweep(lab, SweepSpec(demo, candidates=(10, 25, 100), top_ks=(5,), sample=30, seed=4))
    a = save_experiment(lab.store, narrow, "1280 narrow grid")
    b = save_experiment(lab.store, wide, "1280 wide grid")
    page = laptop
    await page.goto(f"{app_url}/evaluate?{urlencode({'sidebar.deal': demo, 'evaluate.experiment': b})}")
    await wait_for_app(page)
    await page.get_by_text("Run sweep: ~54 queries x 24 settings").wait_for(timeout=STUCK_MS)

    # the results table (after the query sets and the jobs): what decides first, in view, and no noise column
    await page.get_by_text("Experiment #").first.wait_for(timeout=STUCK_MS)
    tables = page.get_by_test_id("stDataFrame")
    for index in range(await tables.count()):
        if "Recommended" in (headers := await headers_in_view(page, index)):
            break
    else:
        pytest.fail("no results table")
    await screenshot(page, "evaluate-results-1280")
    shown = [h for h in headers if h]
    assert shown[:5] == ["Setting", "Recommended", "ndcg@k", "p ndcg@k (randomization)", "judged@k"], shown
    assert not NOISE & set(shown), shown

    # Compare experiments: both recommendations side by side, and why they can differ
    await page.get_by_text("Compare experiments").scroll_into_view_if_needed()
    for which, experiment in (("a", a), ("b", b)):
        await page.locator(f".st-key-evaluate-cmp_{which}").click()
        await page.get_by_role("option", name=f"#{experiment} ").first.click()
        await wait_for_app(page)
    box = page.locator(".st-key-evaluate-cmp_rec_A")
    await box.wait_for(timeout=STUCK_MS)
    left, right = await box.bounding_box(), await page.locator(".st-key-evaluate-cmp_rec_B").bounding_box()
    assert left is not None and right is not None
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2  # side by side
    assert right["x"] + right["width"] <= WIDTH
    for which, result in (("A", narrow), ("B", wide)):
        text = await page.locator(f".st-key-evaluate-cmp_rec_{which}").inner_text()
        assert f"{which} recommends {result.recommendation().key}" in text and "95% CI " in text, text
    await page.get_by_text("Different grids (N A 10, 25 vs B 10, 25, 100)").wait_for(timeout=STUCK_MS)
    await page.locator(".st-key-evaluate-cmp_rec_A").scroll_into_view_if_needed()
    await screenshot(page, "evaluate-compare-recommendations-1280")
    await assert_no_error(page)
