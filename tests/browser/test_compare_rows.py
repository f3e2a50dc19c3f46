"""Compare's result cards in rows, at a laptop's 1280 px and a desktop's 1440 px: rank i of A beside rank i of B,
the two cards of a row starting at the same height and as tall as each other, whatever either side's text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page

from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app

QUERY = "What was Halcyon's FY2025 revenue?"

# each card's box: a card is the container keyed compare.<side>.<fact uuid> (its grade buttons' keys go on from it)
CARD_BOXES = r"""
() => [...document.querySelectorAll("[class*='st-key-compare-']")].flatMap(el => {
  const key = [...el.classList].find(c => /^st-key-compare-[ab]-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(c));
  if (!key) return [];
  const box = el.getBoundingClientRect();
  const rank = el.querySelector("strong").textContent.trim();
  return [{side: key.split('-')[3], rank, top: box.top, left: box.left, height: box.height}];
})
"""


@pytest.fixture(params=[1280, 1440], ids=["1280px", "1440px"])
async def window(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    page = await browser.new_page(viewport={"width": request.param, "height": 900})
    yield page
    await page.close()


@pytest.mark.browser
async def test_cards_of_a_and_b_are_row_aligned(app_url: str, window: Page) -> None:
    await window.goto(f"{app_url}/compare?compare.q={quote(QUERY)}")
    await window.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
    await wait_for_app(window)
    width = window.viewport_size["width"] if window.viewport_size else 0
    cards = await window.evaluate(CARD_BOXES)
    a = [c for c in cards if c["side"] == "a"]
    b = [c for c in cards if c["side"] == "b"]
    assert [c["rank"] for c in a] == [f"#{i}" for i in range(1, 11)] == [c["rank"] for c in b], cards
    heights = {round(c["height"]) for c in cards}
    assert len(heights) > 1, heights  # the cards differ in height: alignment is not an accident of equal texts
    for left, right in zip(a, b, strict=True):
        assert left["left"] < right["left"], (left, right)  # A on the left, B on the right
        assert abs(left["top"] - right["top"]) <= 1, (left, right)
        assert abs(left["height"] - right["height"]) <= 1, (left, right)
    await window.set_viewport_size({"width": width, "height": 4000})  # the page scrolls inside: show it whole
    await wait_for_app(window)
    await screenshot(window, f"compare-rows-{width}")
