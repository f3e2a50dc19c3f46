"""Issue 38 on the Timeline, in a real browser: the unlock survives a reload (its signed cookie); two corrections
in a row, each on the fact it named (after a write the form is empty and on the corrected fact's successor, never
on another fact with the old statement still in it); the date axes above and below the chart read the same.

On a demo deal of its own, so the session's demo deal is left as other browser tests expect it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from pipeline.corrections.actions import list_corrections
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from tests.browser.conftest import STUCK_MS, admin_shown, choose, key, unlock_admin, wait_for_app
from tests.browser.test_pages import assert_no_error
from tests.conftest import ADMIN_SECRET

DEAL = "demo_browser_fixes"
ADMIN = "Ana Twofix"
FIX_TAB = "Correct a fact"
# where the chart's picture goes (the before/after shots); the artifacts folder unless told
SHOT = Path(os.environ.get("TIMELINE_SHOT", Path(__file__).resolve().parents[2] / "artifacts" / "timeline-axes.png"))
TICKS = """axis => {  // the tick labels Plotly drew on that axis
  const chart = document.querySelector("[data-testid='stMain'] .js-plotly-plot");
  return chart._fullLayout[axis]._vals.map(v => v.text);
}"""


async def correct(page: Page, relation: str, statement: str) -> str:
    """Pick the current fact of `relation`, fill the form, Correct, Confirm; the question Confirm answered."""
    await choose(page, "timeline.fix.fact", page.get_by_role("option").filter(has_text=relation), relation)
    await wait_for_app(page)
    picked = await page.locator(f"{key('timeline.fix.fact')} input").input_value()
    assert picked.startswith(relation), picked
    await page.locator(f"{key('timeline.fix.statement')} textarea").fill(statement)
    author = page.locator(f"{key('timeline.fix.author')} input")
    await author.fill("Dana Whitfield (CFO)")
    await author.press("Enter")
    await wait_for_app(page)
    await page.locator(f"{key('timeline.fix.submit')} button").click()
    question = page.locator("[data-testid='stAlertContentWarning']").filter(has_text="is superseded from")
    await question.wait_for(timeout=STUCK_MS)
    asked = await question.inner_text()
    await page.locator(f"{key('timeline.fix.submit.confirm')} button").click()
    await page.get_by_text(re.compile("Corrected: .*" + re.escape(statement[:30]))).wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await assert_no_error(page)
    return asked


@pytest.fixture
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


@pytest.mark.browser
async def test_unlock_survives_a_reload_and_two_corrections_land_on_the_facts_named(
    app_url: str, page: Page, lab: Lab, deal: str
) -> None:
    await page.set_viewport_size({"width": 1440, "height": 900})
    # the dates above the bars are the dates below them (a short chart: both axes on one screen)
    await page.goto(f"{app_url}/timeline?sidebar.deal={deal}")
    await wait_for_app(page)
    await page.locator(key("timeline.mode")).get_by_text("Relation", exact=True).click()
    await wait_for_app(page)
    await choose(page, "timeline.relation", page.get_by_role("option").filter(has_text="HAS_CASH"), "HAS_CASH")
    await page.get_by_text("Facts of relation HAS_CASH over time").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    chart = page.locator("[data-testid='stMain'] .js-plotly-plot").first
    await chart.locator(".xaxislayer-above text").first.wait_for(timeout=STUCK_MS)
    await chart.scroll_into_view_if_needed()
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOT))
    bottom, top = await page.evaluate(TICKS, "xaxis"), await page.evaluate(TICKS, "xaxis2")
    assert bottom and top == bottom, (top, bottom)

    await page.goto(f"{app_url}/timeline?sidebar.deal={deal}&timeline.entity_search=Halcyon+Freight")
    await wait_for_app(page)

    # unlock once; a reload (a new session) is still unlocked
    await unlock_admin(page, ADMIN, ADMIN_SECRET)
    await admin_shown(page, ADMIN)
    await page.reload()
    await wait_for_app(page)
    await admin_shown(page, ADMIN)

    await page.get_by_role("tab", name=FIX_TAB).click()
    await wait_for_app(page)
    cash = "Halcyon's cash was 9.99 million USD (first browser correction)."
    asked = await correct(page, "HAS_CASH", cash)
    # the form is empty, on the fact just written (the corrected one's successor), not on another fact
    picked = page.locator(f"{key('timeline.fix.fact')} input")
    await expect(picked).to_have_value(re.compile("^HAS_CASH · " + re.escape(cash[:40])), timeout=STUCK_MS)
    await expect(page.locator(f"{key('timeline.fix.statement')} textarea")).to_have_value("")
    await expect(page.locator(f"{key('timeline.fix.author')} input")).to_have_value("")

    budget = "Halcyon's FY2026 budget targets revenue of 5.5 million USD (second browser correction)."
    asked_too = await correct(page, "BUDGETED_REVENUE", budget)

    first, second = sorted(list_corrections(lab.store, deal), key=lambda r: r.created_at)
    assert first.new_fact == cash and second.new_fact == budget
    assert first.old_fact.replace("$", "") in asked.replace("\\", "").replace("$", "")  # the fact Confirm named
    assert second.old_fact.replace("$", "") in asked_too.replace("\\", "").replace("$", "")
    assert "cash" in first.old_fact and "budget" in second.old_fact.lower()
    assert second.old_uuid != first.new_uuid
