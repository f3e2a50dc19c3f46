"""A real Streamlit server and Debian's chromium, driven by Playwright (no downloaded browser)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, async_playwright, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from dashboard.common.navigation import PageSpec
from pipeline.journal import failpoint
from tests.support.orphans import die_with_parent

# every wait on a page's state is bounded for a stuck page only: a healthy page gets there sooner however loaded
# the machine is (40 sessions and two CPU burners on 2 cores kept one page's skeletons up for over 60 s)
STUCK_MS = 180_000

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


# one server per test worker (pytest-xdist names them gw0, gw1, ...), each with its own log
SWEEP_PAUSE = "sweep:query_done:pause"  # the server's sweeps wait after a query while failpoint.PAUSE_FILE exists
SERVER_LOG = (ROOT / "artifacts" / f"streamlit-browser-test{os.environ.get('PYTEST_XDIST_WORKER', '')}.log").resolve()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(demo: str) -> Iterator[str]:
    port = _free_port()
    SERVER_LOG.parent.mkdir(exist_ok=True)
    with SERVER_LOG.open("wb") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dashboard.serve",  # as scripts/run.sh serves: warmed up first
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
            ],
            cwd=ROOT,
            # a sweep test holds its job between two queries by a file (journal/failpoint.py)
            env=os.environ | {failpoint.ENV: SWEEP_PAUSE},
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180  # it warms up first: seconds when quiet, much more on a busy machine
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                        if reply.status == 200:
                            break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"streamlit did not start; see {SERVER_LOG}") from None
                    time.sleep(0.3)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=20)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    """Async Playwright, so it shares pytest-asyncio's session loop instead of fighting it."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed: run scripts/setup.sh --test")
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        await chromium.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page(viewport={"width": 1400, "height": 1000})
    yield page
    await page.close()


async def wait_for_app(page: Page) -> None:
    """Wait until the app has rendered and its script has finished running. Right after a page opens, the app
    says "not running" before its first run has begun, with skeletons where its elements will be: so the
    skeletons must be gone too (and the run over once they are)."""
    settled = "[data-testid='stApp'][data-test-script-state='notRunning']"
    await page.wait_for_selector(settled, timeout=STUCK_MS)
    await expect(page.locator("[data-testid='stSkeleton']")).to_have_count(0, timeout=STUCK_MS)
    await page.wait_for_selector(settled, timeout=STUCK_MS)
    await page.wait_for_timeout(500)  # let the last deltas paint


async def choose(page: Page, widget: str, option: Locator, typed: str | None = None, attempts: int = 8) -> None:
    """Open the select box (or multiselect) of widget key `widget` and click `option` (typing `typed` first: long
    lists are virtual). A rerun that lands after the page looked settled re-renders the box and closes its list
    under the click: then the list is opened again, once the page has settled, until the option is clicked."""
    box = page.locator(".st-key-" + widget.replace(".", "-") + " [role='combobox']")
    for _ in range(attempts):
        await box.click()
        if typed:
            await page.keyboard.type(typed)
        try:
            await option.first.click(timeout=5_000)
            return
        except PlaywrightTimeout:
            await page.keyboard.press("Escape")
            await wait_for_app(page)
    raise AssertionError(f"the option never showed in the list of {widget!r} ({attempts} openings)")


def recommendation(page: Page) -> Locator:
    """Evaluate's recommendation line, in its box (success or info). Not `get_by_text("Recommended:")`: that also
    matches the Pareto chart's legend entry ("recommended: ..."), and which one is drawn first is a race; nor any
    line that starts so: the exported code's docstring does too, and so does a previous experiment's, still on the
    page while a run draws the next one."""
    return page.locator("[data-testid^='stAlertContent']").get_by_text(re.compile(r"^Recommended:"))


async def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


async def open_as_user(page: Page, spec: PageSpec) -> None:
    """`spec`'s page in the same browser session, as a person moves: its sidebar link, or for a page the sidebar
    does not list (Evidence: facts link to it) its link on Home."""
    nav = page.locator("[data-testid='stSidebarNav'] a")
    if spec.listed:
        await nav.filter(has_text=spec.title).first.click()
        return
    await nav.filter(has_text="Home").first.click()
    await wait_for_app(page)
    await page.locator("[data-testid='stMain'] a").filter(has_text=f"{spec.title} — ").first.click()


def key(name: str) -> str:
    """The CSS class Streamlit gives the element of widget key `name`."""
    return ".st-key-" + name.replace(".", "-")


async def unlock_admin(page: Page, name: str, secret: str) -> None:
    """Unlock admin actions in the sidebar's Admin box, as a user does (name, secret, Enter)."""
    await page.locator("[data-testid='stSidebar'] [data-testid='stExpander'] summary", has_text="Admin").click()
    await page.get_by_role("textbox", name="Your name (kept in the audit log)").fill(name)
    box = page.get_by_role("textbox", name="Admin secret")
    await box.fill(secret)
    await box.press("Enter")


async def admin_shown(page: Page, name: str) -> None:
    """The sidebar says `name` is the admin, with Sign out, and asks for no secret."""
    sidebar = page.locator("[data-testid='stSidebar']")
    await sidebar.get_by_text(f"Admin: {name}").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    assert await sidebar.get_by_role("button", name="Sign out").is_visible()
    assert await page.locator(key("admin.secret")).count() == 0  # never asked again
    assert await page.get_by_text("Read-only: unlock admin actions").count() == 0
