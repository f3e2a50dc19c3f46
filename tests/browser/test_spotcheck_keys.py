"""Review by keys, as a practised analyst types them: relevance, support, Enter, 100 ms apart, on a loaded machine.
Every answer lands on the card it was pressed on (every revision too), none is lost, none lands on another card;
the confirmation shows by the card's keys. And the keys' help (?), undo (Z) and skip (K / →)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from playwright.async_api import Locator, Page, expect

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueItem, QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.repo_answers import relevance_history, reviewer_relevance, reviewer_verdicts, verdict_history
from pipeline.store.db import Store
from tests.browser.conftest import STUCK_MS, screenshot, wait_for_app
from tests.browser.test_pages import assert_no_error

GRADE_KEYS = {0: "a", 1: "s", 2: "d", 3: "f"}
SUPPORT_KEYS = {"supported": "1", "partially_supported": "2", "not_supported": "3", "wrong_source": "4"}
VERDICT_CYCLE = list(SUPPORT_KEYS)
CARDS = 15
TYPIST_S = 0.1  # a practised analyst's pace between keys: this paces the input, it waits on nothing
# cards whose relevance is pressed twice, back to back: this first grade, then the meant one
CORRECTED = {3: 0, 9: 2, 14: 1}


@contextmanager
def cpu_burner() -> Iterator[None]:
    """A process spinning on a core beside the server and the browser, as on a loaded CI machine."""
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        burner.kill()
        burner.wait(timeout=20)


async def _queue(lab: Lab, demo: str, size: int, query_limit: int) -> list[QueueItem]:
    spec = QueueSpec(
        f"keys {uuid.uuid4().hex[:8]}",
        demo,
        "query_set",
        size,
        7,
        "random",
        "Tess",
        top_k=2,
        reranker="none",
        query_limit=query_limit,
    )
    queue = await build_queue(lab, spec)
    items = queue_items(lab.store, queue.id)
    assert len(items) == size and all(i.query for i in items)
    return items


async def _open(page: Page, app_url: str, queue_id: int, reviewer: str, count: int) -> Locator:
    """The queue's review card, settled, focus off the text fields; the key line (the component's own)."""
    await page.goto(f"{app_url}/spotcheck?spotcheck.queue={queue_id}&spotcheck.reviewer={reviewer.replace(' ', '+')}")
    await wait_for_app(page)
    await page.get_by_text(f"0 / {count} reviewed by {reviewer}").wait_for(timeout=STUCK_MS)
    line = page.get_by_test_id("spotcheck-keys-line").first
    await expect(line).to_have_text(f"Keys go to card 1 of {count} · all keys saved · ? keys help", timeout=STUCK_MS)
    await page.locator("h1").first.click()  # keys do not act while typing in a field
    return line


def _shown(page: Page) -> Locator:
    item_metric = page.locator("[data-testid='stMetric']").filter(has=page.get_by_text("Item", exact=True))
    return item_metric.locator("[data-testid='stMetricValue']")


async def _until(check: Callable[[], bool], what: str) -> None:
    """Poll the store (another process writes it) until `check()` holds; bounded for a stuck server only."""
    deadline = asyncio.get_running_loop().time() + STUCK_MS / 1000
    while not check():
        assert asyncio.get_running_loop().time() < deadline, f"never: {what}"
        await asyncio.sleep(0.2)


@pytest.mark.browser
async def test_thirty_answers_at_100_ms_on_a_loaded_machine_each_on_its_card(
    app_url: str, page: Page, lab: Lab, demo: str
) -> None:
    reviewer = f"Kim Keys {uuid.uuid4().hex[:6]}"
    items = await _queue(lab, demo, CARDS, query_limit=8)
    queue_id = items[0].queue_id
    want_grades = {i.id: (p * 7 + 1) % 4 for p, i in enumerate(items, start=1)}
    want_verdicts = {i.id: VERDICT_CYCLE[p % 4] for p, i in enumerate(items, start=1)}
    line = await _open(page, app_url, queue_id, reviewer, len(items))

    with cpu_burner():
        # relevance, support, Enter on every card, each key 100 ms after the last, never waiting for the page
        for position, item in enumerate(items, start=1):
            keys = [GRADE_KEYS[want_grades[item.id]], SUPPORT_KEYS[want_verdicts[item.id]]]
            if position in CORRECTED:
                keys.insert(0, GRADE_KEYS[CORRECTED[position]])
            if position < len(items):
                keys.append("Enter")
            for key in keys:
                await page.keyboard.press(key)
                await asyncio.sleep(TYPIST_S)
        # the client follows the cards itself, at once: the last key went to the last card
        await expect(line).to_have_attribute("data-cursor", str(len(items)))
        # every key acknowledged by the server (applied once, in order)
        await expect(line).to_have_attribute("data-pending", "0", timeout=STUCK_MS)

    store = Store(lab.store.path)
    await _until(lambda: len(reviewer_verdicts(store, queue_id, reviewer)) == len(items), "every support answer")
    grades, verdicts = reviewer_relevance(store, queue_id, reviewer), reviewer_verdicts(store, queue_id, reviewer)
    # none missing, none extra, each the one meant for its card
    assert {i: r.grade for i, r in grades.items()} == want_grades
    assert {i: r.verdict for i, r in verdicts.items()} == want_verdicts
    # and every revision: the corrected cards' first grade then the meant one, the others one revision each
    for position, item in enumerate(items, start=1):
        history = [g for _rev, g, *_ in relevance_history(store, grades[item.id].id)]
        meant = [CORRECTED[position], want_grades[item.id]] if position in CORRECTED else [want_grades[item.id]]
        assert history == meant, (position, history)
        assert [v for _rev, v, *_ in verdict_history(store, verdicts[item.id].id)] == [want_verdicts[item.id]]

    # the page has followed: the last card shown, its confirmation by its keys, not at the top of the page
    await expect(_shown(page)).to_have_text(f"{len(items)} / {len(items)}", timeout=STUCK_MS)
    await expect(page.get_by_text(f"{len(items)} / {len(items)} reviewed by {reviewer}")).to_be_visible(
        timeout=STUCK_MS
    )
    saved = page.locator(".st-key-spotcheck-card-messages").get_by_text(f"Saved on card {len(items)}")
    await expect(saved).to_be_visible(timeout=STUCK_MS)
    await assert_no_error(page)
    await screenshot(page, "spotcheck-keys")


@pytest.mark.browser
async def test_keys_help_undo_and_skip(app_url: str, page: Page, lab: Lab, demo: str) -> None:
    reviewer = f"Uma Undo {uuid.uuid4().hex[:6]}"
    items = await _queue(lab, demo, 4, query_limit=3)
    queue_id = items[0].queue_id
    store = Store(lab.store.path)
    line = await _open(page, app_url, queue_id, reviewer, len(items))
    messages = page.locator(".st-key-spotcheck-card-messages")

    # ? shows the keys' help, and hides it again
    help_panel = page.get_by_text("Z: undo your last answer").first
    await expect(help_panel).to_be_hidden()
    await page.keyboard.press("?")
    await expect(help_panel).to_be_visible()
    await page.keyboard.press("?")
    await expect(help_panel).to_be_hidden()

    # keys typed in a field are the field's: nothing saved
    note = page.get_by_label("Note (optional)")
    await note.click()
    await note.type("sad 1")
    await page.locator("h1").first.click()

    # S then F on card 1 (two revisions), then Z: relevance back to S's grade, as a third revision
    first = items[0]
    await page.keyboard.press("s")
    await page.keyboard.press("f")
    await expect(line).to_have_attribute("data-pending", "0", timeout=STUCK_MS)
    await page.keyboard.press("z")
    await expect(messages.get_by_text("Undone on card 1: relevance back to")).to_be_visible(timeout=STUCK_MS)
    record = reviewer_relevance(store, queue_id, reviewer)[first.id]
    assert [(rev, g) for rev, g, *_ in relevance_history(store, record.id)] == [(1, 1), (2, 3), (3, 1)]
    # a second Z: card 1's first answer has nothing before it, and answers are never deleted: refused, visibly
    await page.keyboard.press("z")
    await expect(messages.get_by_text("Not undone: card 1's relevance was its first answer")).to_be_visible(
        timeout=STUCK_MS
    )
    assert reviewer_relevance(store, queue_id, reviewer)[first.id].grade == 1

    # K skips card 1 unanswered (its support stays open); the next key lands on card 2; → skips card 2; ← back to 2
    await page.keyboard.press("k")
    await expect(line).to_have_attribute("data-cursor", "2")
    await page.keyboard.press("3")
    await page.keyboard.press("ArrowRight")
    await expect(line).to_have_attribute("data-cursor", "3")
    await page.keyboard.press("ArrowLeft")
    await expect(line).to_have_attribute("data-cursor", "2")
    await expect(line).to_have_attribute("data-pending", "0", timeout=STUCK_MS)
    await expect(_shown(page)).to_have_text(f"2 / {len(items)}", timeout=STUCK_MS)
    assert {i: v.verdict for i, v in reviewer_verdicts(store, queue_id, reviewer).items()} == {
        items[1].id: "not_supported"
    }
    assert set(reviewer_relevance(store, queue_id, reviewer)) == {first.id}
    await assert_no_error(page)
