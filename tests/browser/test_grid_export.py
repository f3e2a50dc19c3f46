"""No export hands a spreadsheet a live formula, in a real browser.

Streamlit's table grid has its own toolbar export ("Download as CSV"), which writes cells raw: a name
`=HYPERLINK(...)` would arrive in a spreadsheet as a live formula. The app turns it off
(`client.disableDataExport`) and draws its own "Download CSV" under every table instead, its text cells made
safe. Formula-looking names are planted (a review queue's name and creator, reviewers' names); the grid's
toolbar must offer no download, and every download button on the pages that show them must give files in
which no text cell starts a formula, the planted names included, each behind a `'`.
"""

from __future__ import annotations

import csv
import io
import uuid
from pathlib import Path

import pytest
from playwright.async_api import Page

from pipeline.csv_cells import FORMULA_STARTS
from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_verdict
from tests.browser.conftest import STUCK_MS, wait_for_app
from tests.browser.test_pages import assert_no_error

EVIL = '=HYPERLINK("http://evil.example/x","click")'
REVIEWERS = ("@SUM(1+1)", "+Cmd Reviewer")


def live_formulas(text: str) -> list[str]:
    """Cells a spreadsheet would run: text starting = + - @ tab or CR that is not a plain number."""
    found = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell.startswith(FORMULA_STARTS):
                try:
                    float(cell)
                except ValueError:
                    found.append(cell)
    return found


async def grid_toolbar_labels(page: Page) -> list[str]:
    """The labels of the first visible table's own toolbar, shown when the pointer is over the table."""
    table = page.locator("[data-testid='stDataFrame']:visible").first
    await table.wait_for(timeout=STUCK_MS)
    await table.scroll_into_view_if_needed()
    await table.hover()
    toolbar = page.locator("[data-testid='stElementToolbar']:visible").first
    await toolbar.wait_for(timeout=STUCK_MS)
    buttons = toolbar.locator("button")
    return [str(await buttons.nth(i).get_attribute("aria-label")) for i in range(await buttons.count())]


async def every_download(page: Page, tmp_path: Path) -> dict[str, str]:
    """Click every visible download button of the page: file name -> its text."""
    files: dict[str, str] = {}
    buttons = page.locator("[data-testid='stDownloadButton'] button:visible")
    for i in range(await buttons.count()):
        async with page.expect_download(timeout=STUCK_MS) as download:
            await buttons.nth(i).click()
        got = await download.value
        saved = tmp_path / f"{i}-{got.suggested_filename}"
        await got.save_as(saved)
        files[got.suggested_filename] = saved.read_text(encoding="utf-8")
    return files


@pytest.mark.browser
async def test_no_table_exports_a_live_formula(app_url: str, page: Page, lab: Lab, demo: str, tmp_path: Path) -> None:
    name = f"{EVIL} {uuid.uuid4().hex[:6]}"
    queue = await build_queue(lab, QueueSpec(name, demo, "fact_sample", 2, 17, "random", EVIL))
    first = queue_items(lab.store, queue.id)[0]
    record_verdict(lab.store, first.id, REVIEWERS[0], "supported")
    record_verdict(lab.store, first.id, REVIEWERS[1], "not_supported")  # split: listed on the Adjudicate tab

    await page.goto(f"{app_url}/spotcheck?sidebar.deal={demo}&spotcheck.queue={queue.id}")
    await wait_for_app(page)
    await page.get_by_role("tab", name="Adjudicate").click()
    await wait_for_app(page)
    await assert_no_error(page)
    labels = await grid_toolbar_labels(page)
    assert any("Search" in label for label in labels), labels  # the toolbar is there ...
    assert not any("Download" in label for label in labels), labels  # ... without its raw export
    files = await every_download(page, tmp_path)
    [row] = [r for r in csv.DictReader(io.StringIO(files["spotcheck-disagreements.csv"])) if name in r["Queue"]]
    assert row["Queue"] == f"'{name}" and row["Answers"].startswith(f"'{REVIEWERS[1]}:"), row  # exported, behind a '
    for file, text in files.items():
        assert not live_formulas(text), (file, live_formulas(text))

    await page.goto(f"{app_url}/audit?sidebar.deal={demo}")  # the queue's creation, by EVIL, is audited
    await wait_for_app(page)
    await assert_no_error(page)
    labels = await grid_toolbar_labels(page)
    assert any("Search" in label for label in labels) and not any("Download" in label for label in labels), labels
    files = await every_download(page, tmp_path)
    who = [r["Who"] for text in files.values() for r in csv.DictReader(io.StringIO(text))]
    assert f"'{EVIL}" in who, who[:5]
    for file, text in files.items():
        assert not live_formulas(text), (file, live_formulas(text))
