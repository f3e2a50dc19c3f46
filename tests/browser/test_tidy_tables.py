"""Tables read at a glance in a real browser at 1280 x 800: the reranker's columns of Scores on screen without
scrolling, and budget breaches on Latency drawn in the warning colour."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import pytest
from playwright.async_api import Browser, Page

from dashboard.latency.charts import BUDGET, OVER_NAME
from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app

QUERY = "What was Halcyon's FY2025 revenue?"
WIDTH, HEIGHT = 1280, 800
SLOW_N = 35  # the over-budget runs' N: a point of its own on "Latency by candidates N"


@pytest.fixture
async def small_page(browser: Browser) -> Page:
    page = await browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    yield page
    await page.close()


@pytest.fixture(scope="module")
async def slow_runs(lab: Lab, demo: str) -> list[int]:
    """Three recorded runs whose hybrid search (900 ms) and end to end (4 s) are over budget."""
    run = await retrieve(lab, f"{QUERY} (tidy tables, slow)", demo, SLOW_N, 5, "none")
    slow = {**run.timings.stages_ms, "hybrid_search": 900.0, "total": 4_000.0}
    slow_run = replace(run, cold=False, timings=replace(run.timings, stages_ms=slow))  # warm: the page shows it
    return [save_run(lab.store, slow_run, "cli") for _ in range(3)]


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.browser
async def test_the_reranker_columns_of_scores_are_on_screen_at_1280(app_url: str, small_page: Page) -> None:
    page = small_page
    params = {"sidebar.deal": "demo", "scores.q": QUERY, "scores.reranker": "local", "scores.n": "50"}
    await page.goto(f"{app_url}/scores?{urlencode(params)}")
    await wait_for_app(page)
    grid = page.get_by_test_id("stDataFrame").first
    await grid.wait_for()
    box = await grid.bounding_box()
    assert box is not None and box["x"] + box["width"] <= WIDTH
    # the grid draws on a canvas; its accessible table lists the header of every column in view, in order,
    # once the grid has laid itself out (after the script has finished): wait for it
    await grid.locator("th").first.wait_for(state="attached", timeout=STUCK_MS)
    headers = await grid.locator("th").all_text_contents()
    await screenshot(page, "tidy-scores-1280")
    assert headers[:5] == ["Rank", "Moved", "Fact", "Reranker (0-1)", "Reranker score"], headers
    # a column after "Reranker score" is in view too, so its right edge is inside the grid, inside 1280 px
    assert len(headers) > 5 and headers[5] == "Judged grade", headers
    assert await page.evaluate("document.scrollingElement.scrollWidth") <= WIDTH  # no page-wide sideways scroll


@pytest.mark.browser
async def test_latency_marks_budget_breaches_in_red(app_url: str, small_page: Page, slow_runs: list[int]) -> None:
    page = small_page
    await page.goto(f"{app_url}/latency?sidebar.deal=demo")
    await wait_for_app(page)
    await page.locator(".js-plotly-plot").nth(2).wait_for()  # latency by candidates N
    await page.wait_for_timeout(1000)
    over = await page.evaluate(
        """(name) => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot =>
            plot.data.filter(t => t.name === name && t.type === 'scatter').map(t => t.x.map(String)))""",
        OVER_NAME,
    )
    assert any(str(SLOW_N) in xs for xs in over), over  # the slow runs' N is marked over budget
    fills = await page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot .scatterlayer path.point')]"
        ".map(p => getComputedStyle(p).fill)"
    )
    await screenshot(page, "tidy-latency-1280")
    assert rgb(BUDGET) in fills  # drawn in the warning colour (and as a cross: the legend says "over budget")
    legend = await page.locator(".js-plotly-plot .legendtext").all_text_contents()
    assert OVER_NAME in legend
