"""The app runs offline: a full walk of every page, as a user clicks through the sidebar, sends no request to a
host other than this machine (favicon, fonts, icons, scripts included), and the tab icon is not fetched from
anywhere."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from dashboard.common.navigation import all_pages
from tests.browser.conftest import STUCK_MS, open_as_user, wait_for_app
from tests.support.outbound import leaves_the_machine, watch


async def favicons(page: Page) -> list[str]:
    return await page.eval_on_selector_all("link[rel~='icon']", "els => els.map(e => e.href)")


@pytest.mark.browser
async def test_a_walk_of_every_page_stays_on_this_machine(app_url: str, page: Page) -> None:
    outbound: list[str] = []
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    await watch(page, outbound)

    await page.goto(app_url)
    await wait_for_app(page)
    icons = await favicons(page)
    for spec in all_pages()[1:]:  # through the sidebar's links, as a user moves between pages
        await open_as_user(page, spec)
        await page.wait_for_url(f"**/{spec.url_path}*")
        await wait_for_app(page)
        icons += await favicons(page)
    await page.goto(f"{app_url}/compare?compare.q=What+was+Halcyon%27s+FY2025+revenue%3F")
    await page.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)

    assert len(requests) > 20  # the walk did load things: the recorder saw them
    assert not outbound, f"requests left the machine: {outbound}"
    assert icons and not [href for href in icons if leaves_the_machine(href)], icons
