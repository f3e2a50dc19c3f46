"""Review by keys, as the page advertises them: on each card a relevance key and a support key (back to back on
every other card), then Enter. Each answer lands on the card it was pressed on (every revision saved), no card is
skipped, and the confirmation shows by the card's keys, not at the top of the page."""

from __future__ import annotations

import asyncio
import re
import uuid

import pytest
from playwright.async_api import Page, expect

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec, RelevanceRecord, VerdictRecord
from pipeline.spotcheck.repo import (
    queue_items,
    relevance_history,
    reviewer_relevance,
    reviewer_verdicts,
    verdict_history,
)
from pipeline.store.db import Store
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error

REVIEWER = "Kim Keys"
SETTLE_MS = 20_000  # how long the card's line may take to show a key's answer before the key is pressed again
GRADE_KEYS = {0: "a", 1: "s", 2: "d", 3: "f"}
SUPPORT_KEYS = {"supported": "1", "partially_supported": "2", "not_supported": "3", "wrong_source": "4"}
ANSWERS = [
    (3, "supported"),
    (0, "not_supported"),
    (2, "partially_supported"),
    (1, "wrong_source"),
    (3, "not_supported"),
]


@pytest.mark.browser
async def test_answer_answer_enter_reviews_every_card_in_turn(app_url: str, page: Page, lab: Lab, demo: str) -> None:
    name = f"keys {uuid.uuid4().hex[:8]}"
    spec = QueueSpec(
        name, demo, "query_set", len(ANSWERS), 7, "random", "Tess", top_k=2, reranker="none", query_limit=3
    )
    queue = await build_queue(lab, spec)
    items = queue_items(lab.store, queue.id)
    assert len(items) == len(ANSWERS) and all(i.query for i in items)

    await page.goto(f"{app_url}/spotcheck?spotcheck.queue={queue.id}&spotcheck.reviewer={REVIEWER.replace(' ', '+')}")
    await wait_for_app(page)
    await page.get_by_text(f"0 / {len(items)} reviewed by {REVIEWER}").wait_for(timeout=STUCK_MS)
    item_metric = page.locator("[data-testid='stMetric']").filter(has=page.get_by_text("Item", exact=True))
    shown = item_metric.locator("[data-testid='stMetricValue']")
    await page.locator("h1").first.click()  # focus off the text fields: keys do not act while typing
    for position, (grade, verdict) in enumerate(ANSWERS, start=1):
        # the page has settled: the card shown is the next one, none skipped
        await expect(shown).to_have_text(f"{position} / {len(items)}", timeout=5_000)
        await expect(page.get_by_text(items[position - 1].fact[:60]).first).to_be_visible()
        # and its own keys (each card's buttons carry its item id): what the reviewer reads is what the keys answer
        await expect(page.locator(f".st-key-spotcheck-{items[position - 1].id}-v-supported button")).to_be_visible()
        # odd cards at a reader's pace (each key's rerun seen through), even ones back to back, as fast as typed
        paced = position % 2 == 1
        await page.keyboard.press(GRADE_KEYS[grade])
        if paced:
            await wait_for_app(page)
        await page.keyboard.press(SUPPORT_KEYS[verdict])
        await wait_for_app(page)
        # a key pressed while the page redraws can be dropped by Streamlit's page (docs/spotcheck.md): it writes
        # nothing, the card's line still asks for it, and the reviewer presses it again, as here. The page may look
        # settled before a key's run has even begun, so the line is given time to stop asking before the key is
        # pressed again; a second press of a key that was not dropped saves the same answer as a new revision.
        for key, asked in ((GRADE_KEYS[grade], "relevance A S D F"), (SUPPORT_KEYS[verdict], "support 1-4")):
            asking = page.get_by_text(re.compile(rf"^Card {position}: .*{asked}"))
            for _ in range(5):
                try:
                    await expect(asking).to_have_count(0, timeout=SETTLE_MS)
                    break
                except AssertionError:
                    await page.keyboard.press(key)
                    await wait_for_app(page)
            await expect(asking).to_have_count(0, timeout=STUCK_MS)  # never on to the next card with one unsaved
        await expect(shown).to_have_text(f"{position} / {len(items)}")  # answers never move the card
        if position < len(ANSWERS):
            await page.keyboard.press("Enter")
        await wait_for_app(page)
        if position == 1:
            await screenshot(page, "spotcheck-keys")
    await assert_no_error(page)
    await expect(shown).to_have_text(f"{len(ANSWERS)} / {len(items)}", timeout=5_000)  # the last card stays
    # its confirmation shows by its keys, not at the top of the page
    saved = page.locator(".st-key-spotcheck-card-messages").get_by_text(f"Saved on card {len(ANSWERS)}")
    await expect(saved).to_be_visible()

    store = Store(lab.store.path)
    want_grades = {item.id: grade for item, (grade, _) in zip(items, ANSWERS, strict=True)}
    want_verdicts = {item.id: verdict for item, (_, verdict) in zip(items, ANSWERS, strict=True)}
    last = items[-1].id

    def stored() -> tuple[dict[int, RelevanceRecord], dict[int, VerdictRecord]]:
        return reviewer_relevance(store, queue.id, REVIEWER), reviewer_verdicts(store, queue.id, REVIEWER)

    # the last key's rerun may still be saving when the page first looks settled: wait for the last card's two
    # answers (a paced card: both keys pressed on a settled page) before reading the store
    deadline = asyncio.get_running_loop().time() + STUCK_MS / 1000
    while not all(last in answers for answers in stored()) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    grades, verdicts = stored()
    # every answer ever saved (each revision) is the one meant for its card: none landed on another card
    for item_id, record in grades.items():
        assert {g for _rev, g, *_ in relevance_history(store, record.id)} == {want_grades[item_id]}, item_id
    for item_id, record in verdicts.items():
        assert {v for _rev, v, *_ in verdict_history(store, record.id)} == {want_verdicts[item_id]}, item_id
    assert {i: r.grade for i, r in grades.items()} == want_grades
    assert {i: r.verdict for i, r in verdicts.items()} == want_verdicts
