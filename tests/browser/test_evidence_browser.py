"""The evidence view in Chromium: opened from a card on Compare, it shows the fact, its two entities and its
superseded version on the picture; a click on an entity's node lands on that entity's neighbourhood, and the URL
says so. Screenshots at 1440 and 1280 px (artifacts/screenshots/evidence-1440.png, evidence-1280.png)."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from dashboard.common.links import compare_url
from pipeline.lab import Lab
from pipeline.retrieval.setting import setting
from pipeline.temporal.records import Neighbourhood
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app
from tests.browser.test_admin_journey import key
from tests.browser.test_pages import assert_no_error

QUERY = "How fast did revenue grow from FY2024 to FY2025?"
SIDES = (setting("graphiti-default", 50, "none", 10), setting("graphiti-default", 50, "local", 10))
CHART = "[data-testid='stMain'] .js-plotly-plot"
# the trace and point of a node: by the uuid in its customdata (a click on it is the chart's click)
NODE = """uuid => {
  const data = document.querySelector("[data-testid='stMain'] .js-plotly-plot")._fullData;
  for (let t = 0; t < data.length; t++) {
    const j = (data[t].customdata || []).findIndex(c => c[1] === uuid);
    if (j >= 0) return [t, j, data[t].name];
  }
  return null;
}"""


@pytest.fixture(scope="module")
async def linked(lab: Lab, demo: str) -> Neighbourhood:
    """The first fact on Compare's reranked side with a superseded version: the card the test opens."""
    _, reranked = await lab.retrieval.rank(QUERY, demo, list(SIDES))
    facts = await lab.temporal.load_facts(demo)
    for result in reranked.results:
        nb = await lab.temporal.neighbourhood(demo, result.uuid, facts)
        if any(f.superseded for f in nb.chain):
            return nb
    raise AssertionError("no fact of the demo query's top k has a superseded version")


async def node(page: Page, uuid: str) -> tuple[int, int, str]:
    found = await page.evaluate(NODE, uuid)
    assert found is not None, uuid
    return found[0], found[1], found[2]


@pytest.mark.browser
async def test_the_evidence_view_opens_from_compare_and_moves_to_an_entity(
    app_url: str, browser: Browser, demo: str, linked: Neighbourhood
) -> None:
    fact = linked.fact
    assert fact is not None
    old = next(f for f in linked.chain if f.superseded)
    context = await browser.new_context(viewport={"width": 1440, "height": 1100})
    try:
        page = await context.new_page()
        await page.goto(f"{app_url}/{compare_url(demo, QUERY, *SIDES)}")
        await wait_for_app(page)
        card = page.locator(key(f"compare.b.{fact.uuid}"))
        await card.get_by_role("link", name="Evidence").click()
        await page.get_by_role("heading", name="Evidence", level=1).wait_for(timeout=STUCK_MS)
        await wait_for_app(page)
        await assert_no_error(page)
        assert f"evidence.fact={fact.uuid}" in page.url and "evidence.q=" in page.url, page.url
        await expect(page.locator(key("evidence.focus"))).to_contain_text(fact.fact)
        # where the query found it, under Compare's reranked setting
        await page.get_by_text("kept in the top k").first.wait_for(timeout=STUCK_MS)
        # the picture: the fact, its two entities (named) and its superseded version
        await page.locator(f"{CHART} .scatterlayer .point").first.wait_for(timeout=STUCK_MS)
        assert (await node(page, fact.uuid))[2] == "this fact"
        assert (await node(page, old.uuid))[2] == "superseded fact"
        for entity in linked.entities:
            assert (await node(page, entity.uuid))[2] == "focus entity"
            await page.get_by_text(entity.name, exact=True).first.wait_for(timeout=STUCK_MS)
        await screenshot(page, "evidence-1440")

        # a click on the fact's target entity: its own neighbourhood
        target = linked.entities[-1]
        trace, point, _ = await node(page, target.uuid)
        dot = page.locator(f"{CHART} .scatterlayer .trace").nth(trace).locator(".point").nth(point)
        await dot.scroll_into_view_if_needed()
        box = await dot.bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await expect(page).to_have_url(re.compile(rf"/evidence\?.*evidence\.entity={target.uuid}"), timeout=STUCK_MS)
        await wait_for_app(page)
        await expect(page.locator("[data-testid='stMain'] h3").first).to_have_text(target.name, timeout=STUCK_MS)
        assert "evidence.fact=" not in page.url
        await assert_no_error(page)
    finally:
        await context.close()

    laptop = await browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = await laptop.new_page()
        await page.goto(f"{app_url}/evidence?evidence.fact={fact.uuid}")
        await wait_for_app(page)
        await page.locator(f"{CHART} .scatterlayer .point").first.wait_for(timeout=STUCK_MS)
        await assert_no_error(page)
        # nothing runs off the side at a laptop's width
        overflow = await page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth")
        width = await page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').clientWidth")
        assert overflow <= width, (overflow, width)
        await screenshot(page, "evidence-1280")
    finally:
        await laptop.close()
