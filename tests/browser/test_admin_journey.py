"""The admin journey in a real browser, in one session: unlock once on the Timeline, correct a fact and undo it
(the relation and the tab stay as they were), merge a candidate pair and undo it on Entity merges, reset the
demo deal on Deals & data, each after a confirmation naming what will change, without typing the secret
again; then read every one of those actions in the Audit log (its CSV), and sign out.

It changes the session's demo deal and ends by resetting it, which restores the bundled data."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import STUCK_MS, admin_shown, choose, key, screenshot, unlock_admin, wait_for_app
from tests.browser.test_pages import assert_no_error
from tests.conftest import ADMIN_SECRET

ADMIN = "Ana Journey"
FIX_TAB = "Correct a fact"
LONG = 90_000  # ms: a correction or a reset on a loaded 2-core machine


async def go(page: Page, title: str) -> None:
    """Another page through the sidebar's navigation: the same browser session, as a person does."""
    await page.locator("[data-testid='stSidebarNav'] a", has_text=title).first.click()
    await page.get_by_role("heading", name=title, level=1).wait_for(timeout=STUCK_MS)
    await wait_for_app(page)


async def pick(page: Page, widget: str, text: str, typed: str | None = None) -> None:
    """Choose the option of a select box that contains `text` (typing `typed` first: long lists are virtual)."""
    await choose(page, widget, page.get_by_role("option").filter(has_text=text), typed or text)
    await wait_for_app(page)


async def confirm(page: Page, action: str, asked: str, done: str) -> None:
    """Click the action, read what it will change, confirm, wait for its outcome."""
    await page.locator(f"{key(action)} button").click()
    question = page.locator("[data-testid='stAlertContentWarning']").filter(has_text=asked)
    await question.wait_for(timeout=STUCK_MS)
    await page.locator(f"{key(action + '.confirm')} button").click()
    await page.get_by_text(done).first.wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await assert_no_error(page)


BAR_OF = """status => {
  const chart = document.querySelector("[data-testid='stMain'] .js-plotly-plot");
  const trace = chart._fullData.findIndex(t => t.type === "bar" && t.name.endsWith(status));
  return trace < 0 ? null : [trace, chart._fullData[trace].customdata[0][0]];
}"""


async def click_bar(page: Page, status: str) -> str:
    """Click the first bar of a trace of that status (current / superseded) on the Timeline's chart; its fact."""
    await page.locator("[data-testid='stMain'] .barlayer .trace .point path").first.wait_for(timeout=STUCK_MS)
    found = await page.evaluate(BAR_OF, status)
    assert found is not None, status
    trace, fact = found
    bar = page.locator("[data-testid='stMain'] .barlayer .trace").nth(trace).locator(".point path").first
    await bar.scroll_into_view_if_needed()
    box = await bar.bounding_box()
    assert box is not None
    # a click where the bar is drawn: Plotly's drag layer lies over the bars and turns it into the chart's click
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await wait_for_app(page)
    return html.unescape(fact)  # as the chart escapes it for Plotly


async def relation_and_tab(page: Page) -> tuple[str, str]:
    relation = await page.locator(f"{key('timeline.relation')} input").input_value()
    tab = await page.locator("[role='tab'][aria-selected='true']").inner_text()
    return relation, tab


@pytest.mark.browser
async def test_the_admin_journey_unlocks_once_and_every_action_is_in_the_audit_log(
    app_url: str, page: Page, demo: str, tmp_path: Path
) -> None:
    await page.goto(f"{app_url}/timeline")
    await wait_for_app(page)

    # unlock once, on the Timeline
    await unlock_admin(page, ADMIN, ADMIN_SECRET)
    await admin_shown(page, ADMIN)

    # correct a fact of the cash relation, then undo it: the relation and the tab stay
    await page.locator(key("timeline.mode")).get_by_text("Relation", exact=True).click()
    await wait_for_app(page)
    await pick(page, "timeline.relation", "HAS_CASH")
    # the fact to correct is picked from its bar: a superseded one says it cannot be, a current one opens the form
    await click_bar(page, "superseded")
    await page.get_by_text("is superseded: only a current fact can be corrected").wait_for(timeout=STUCK_MS)
    assert (await relation_and_tab(page))[1] != FIX_TAB
    fact = await click_bar(page, "current")
    await page.get_by_text("Picked for correction:").wait_for(timeout=STUCK_MS)
    # no settling wait before typing: what is typed while the run ends must stay (the message's slot is stable)
    await expect(page.locator("[role='tab'][aria-selected='true']")).to_have_text(FIX_TAB, timeout=STUCK_MS)
    picked = page.locator(f"{key('timeline.fix.fact')} input")
    await expect(picked).to_have_value(re.compile("^HAS_CASH · " + re.escape(fact[:40])), timeout=STUCK_MS)
    await page.locator(f"{key('timeline.fix.statement')} textarea").fill("Halcyon's cash was $9.99 million (journey).")
    author = page.locator(f"{key('timeline.fix.author')} input")
    await author.fill("Dana Whitfield (CFO)")
    await author.press("Enter")
    await wait_for_app(page)
    before = await relation_and_tab(page)
    assert before[0].startswith("HAS_CASH") and before[1] == FIX_TAB
    await confirm(page, "timeline.fix.submit", "is superseded from", "Corrected:")
    assert (await relation_and_tab(page))[1] == FIX_TAB
    assert (await relation_and_tab(page))[0].startswith("HAS_CASH")
    await confirm(page, "timeline.undo.submit", "Undo the correction of", "Undone:")
    after = await relation_and_tab(page)
    assert after[0].startswith("HAS_CASH") and after[1] == FIX_TAB, after
    await screenshot(page, "admin-journey-timeline")

    # merge a candidate pair and undo it, on another page, still unlocked
    await go(page, "Entity merges")
    await admin_shown(page, ADMIN)
    await pick(page, "merges.pair", "Greyfield Venture Partners → Greyfield Ventures", "Greyfield Venture Partners")
    await confirm(page, "merges.merge", "Merge 'Greyfield Venture Partners' into 'Greyfield Ventures'", "Merged ")
    picker = page.locator(".st-key-merges-pair input[role='combobox']")  # the merged pair: not left picked,
    await expect(picker).not_to_have_value(re.compile("Greyfield"))  # nor offered again
    await expect(picker).to_have_attribute("placeholder", re.compile("^Pick a candidate"))
    await picker.click()
    await expect(page.get_by_role("option", name=re.compile("Pick a candidate"))).to_be_visible()
    await expect(page.get_by_role("option", name=re.compile("Greyfield Venture Partners →"))).to_have_count(0)
    await page.keyboard.press("Escape")
    await pick(page, "merges.undo_pick", "Greyfield Venture Partners → Greyfield Ventures (manual", "Greyfield")
    await confirm(page, "merges.undo", "Undo the merge of 'Greyfield Venture Partners'", "Undid the merge")
    await screenshot(page, "admin-journey-merges")

    # reset the demo deal, after the confirmation says what is lost
    await go(page, "Deals & data")
    await admin_shown(page, ADMIN)
    await confirm(page, "deals.reset", "Reset the demo deal: its ", "Demo deal reset")

    # each action is in the audit log, by this admin
    await go(page, "Audit log")
    await admin_shown(page, ADMIN)
    await page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=STUCK_MS)
    await screenshot(page, "admin-journey-audit")
    async with page.expect_download() as download:
        await page.locator(f"{key('audit.csv')} button").click()
    saved = tmp_path / "audit.csv"
    await (await download.value).save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    mine = [r["Action"] for r in rows if r["Who"] == ADMIN and r["Deal"] == demo and r["Action"] != "Deal replaced"]
    assert mine[:5] == [
        "Demo deal reset",
        "Merge undone",
        "Entities merged",
        "Correction undone",
        "Fact corrected",
    ], mine
    fixed = next(r for r in rows if r["Who"] == ADMIN and r["Action"] == "Fact corrected")
    assert "$9.99 million (journey)" in fixed["After"] and fixed["Before"]

    # sign out: the admin pages are read-only again
    await page.locator("[data-testid='stSidebar']").get_by_role("button", name="Sign out").click()
    await wait_for_app(page)
    await go(page, "Deals & data")
    await page.get_by_text("Read-only: unlock admin actions").wait_for(timeout=STUCK_MS)
    assert await page.locator(key("deals.reset")).count() == 0
    await assert_no_error(page)
