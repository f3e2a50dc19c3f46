"""Give spot-check answers from a real browser (clicks and keyboard shortcuts) and find them in the store; two
reviewers' agreement shown on the Summary tab."""

from __future__ import annotations

import uuid

import pytest
from playwright.async_api import Page, expect

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue, relevance_cards
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.repo_answers import reviewer_relevance, reviewer_verdicts
from pipeline.spotcheck.verdicts import record_relevance, record_verdict
from pipeline.store.db import Store
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error

REVIEWER = "Bea Browser"


@pytest.mark.browser
async def test_a_verdict_given_in_the_browser_is_recorded(app_url: str, page: Page, lab: Lab, demo: str) -> None:
    name = f"browser queue {uuid.uuid4().hex[:8]}"
    queue = await build_queue(lab, QueueSpec(name, demo, "fact_sample", 3, 11, "disagreement", "Bea Browser"))
    items = queue_items(lab.store, queue.id)

    await page.goto(f"{app_url}/spotcheck")
    await wait_for_app(page)
    box = page.get_by_role("textbox", name="Your name (reviewer)")
    await box.fill(REVIEWER)
    await box.press("Enter")
    await page.get_by_text(f"0 / 3 reviewed by {REVIEWER}").wait_for(timeout=STUCK_MS)
    assert name in await page.locator(".st-key-spotcheck-queue input").input_value()  # the newest queue is open
    # the supporting span is highlighted (twice when the sentence is twice in the source); the Adjudicate tab,
    # hidden, may hold sources of other tests' splits
    assert await page.locator(".spotcheck-episode:visible mark").count() >= 1

    await page.locator(f".st-key-spotcheck-{items[0].id}-v-supported button").click()
    await page.get_by_text("Saved on card 1: support supported").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await page.locator("h1").first.click()  # focus off the text fields: shortcuts do not fire while typing
    await page.keyboard.press("Enter")  # answers keep the card: Enter moves on
    await page.get_by_text("Card 2: support 1-4").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await page.keyboard.press("3")
    await page.get_by_text("Saved on card 2: support not supported").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    await screenshot(page, "spotcheck-verdict")
    await assert_no_error(page)
    await page.get_by_text(f"2 / 3 reviewed by {REVIEWER}").wait_for(timeout=STUCK_MS)
    await page.locator(f".st-key-spotcheck-{items[1].id}-next").scroll_into_view_if_needed()
    await screenshot(page, "spotcheck-buttons")

    await page.get_by_role("tab", name="Summary").click()
    await page.locator(".st-key-spotcheck-by_channel .js-plotly-plot").wait_for(timeout=STUCK_MS)
    await screenshot(page, "spotcheck-summary")
    await assert_no_error(page)

    recorded = reviewer_verdicts(Store(lab.store.path), queue.id, REVIEWER)
    assert {item_id: v.verdict for item_id, v in recorded.items()} == {
        items[0].id: "supported",
        items[1].id: "not_supported",
    }


@pytest.mark.browser
async def test_two_reviewers_answer_both_questions_and_the_kappa_is_shown(
    app_url: str, page: Page, lab: Lab, demo: str
) -> None:
    name = f"two questions {uuid.uuid4().hex[:8]}"
    spec = QueueSpec(name, demo, "query_set", 3, 5, "random", "Ben Browser", top_k=2, query_limit=2, reranker="none")
    queue = await build_queue(lab, spec)
    items = queue_items(lab.store, queue.id)
    assert len(items) == 3
    # cards 1 and 2 cite one fact for one query (two citations): relevance is asked on card 1 only
    asked_on = relevance_cards(items)
    assert [asked_on[i.id] for i in items] == [items[0].id, items[0].id, items[2].id]
    for item, (grade, verdict) in zip(
        items, [(3, "supported"), (None, "not_supported"), (0, "supported")], strict=True
    ):
        if grade is not None:  # the first reviewer, already done
            record_relevance(lab.store, item.id, "Ben Browser", grade)
        record_verdict(lab.store, item.id, "Ben Browser", verdict)

    await page.goto(f"{app_url}/spotcheck")
    await wait_for_app(page)
    box = page.get_by_role("textbox", name="Your name (reviewer)")
    await box.fill("Cy Browser")
    await box.press("Enter")
    await page.get_by_text("0 / 3 reviewed by Cy Browser").wait_for(timeout=STUCK_MS)
    assert name in await page.locator(".st-key-spotcheck-queue input").input_value()
    await page.get_by_text("1 · Does the fact answer the query?").wait_for(timeout=STUCK_MS)
    await page.get_by_text("2 · Does the cited source support the fact?").wait_for(timeout=STUCK_MS)
    # the source, under both questions (once: a previous run's copy can be on the page until this run has drawn)
    await expect(page.locator(".spotcheck-episode:visible")).to_have_count(1, timeout=STUCK_MS)

    for position, (item, grade) in enumerate(zip(items, [3, None, 2], strict=True), start=1):
        if position == 1:  # a key for the relevance grade (F = 3), then a click for the support verdict
            await page.locator("h1").first.click()
            await page.keyboard.press("f")
        elif grade is None:  # the second citation: the first card's answer is shown, not asked again
            await page.get_by_text("Asked on card 1 (your answer there: 3").wait_for(timeout=STUCK_MS)
            assert await page.locator(f".st-key-spotcheck-{item.id}-r-3 button").count() == 0
        else:
            await page.locator(f".st-key-spotcheck-{item.id}-r-{grade} button").first.click()
        if grade is not None:
            await page.get_by_text(f"Saved on card {position}: relevance").wait_for(timeout=STUCK_MS)
            await wait_for_app(page)
        await page.locator(f".st-key-spotcheck-{item.id}-v-supported button").click()
        await page.get_by_text(f"Saved on card {position}: support supported").wait_for(timeout=STUCK_MS)
        await wait_for_app(page)
        if position == 1:
            await screenshot(page, "spotcheck-two-questions")
        if position < len(items):
            await page.locator(f".st-key-spotcheck-{item.id}-next button").click()
            question = "relevance" if position + 1 != 2 else "support"
            await page.get_by_text(f"Card {position + 1}: {question}").wait_for(timeout=STUCK_MS)
            await wait_for_app(page)
    await page.get_by_text("3 / 3 reviewed by Cy Browser").wait_for(timeout=STUCK_MS)

    await page.get_by_role("tab", name="Summary").click()
    # by hand: Cy 3 2 against Ben 3 0 (cards 1 and 3), quadratic weights on 0-3: 1 - (2/9) / (3.5/9) = 3/7 = 0.43
    kappa = "Cohen's kappa (quadratic weights) = 0.43, 50% answered alike (Ben Browser and Cy Browser, 2 shared items)"
    await page.get_by_text(kappa).wait_for(timeout=STUCK_MS)
    await page.get_by_text(
        "Cohen's kappa = 0.00, 67% answered alike (Ben Browser and Cy Browser, 3 shared items)"
    ).wait_for()
    await page.locator(".st-key-spotcheck-by_channel .js-plotly-plot").wait_for(timeout=STUCK_MS)
    await page.get_by_text("Agreement between reviewers").scroll_into_view_if_needed()
    await screenshot(page, "spotcheck-agreement")
    await assert_no_error(page)

    store = Store(lab.store.path)
    assert {i: g.grade for i, g in reviewer_relevance(store, queue.id, "Cy Browser").items()} == {
        items[0].id: 3,
        items[2].id: 2,
    }
    assert {v.verdict for v in reviewer_verdicts(store, queue.id, "Cy Browser").values()} == {"supported"}
