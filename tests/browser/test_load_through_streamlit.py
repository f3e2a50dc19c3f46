"""Load through the real Streamlit server: 20 browser sessions at once, each running a query on Compare.

Every session is its own browser context (own cookies, own websocket, own Streamlit session) in the one
chromium of the `browser` fixture. Each opens /compare, types a different labelled query, presses Enter and
waits for both result columns. The test asserts every session finished with k cards a side and no error
element, and writes its figures (per-session wall times, p50 / p95) to artifacts/load-streamlit.json, which
scripts/reliability.sh prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pytest
from playwright.async_api import Browser
from playwright.async_api import TimeoutError as PlaywrightTimeout

from pipeline.ingest.demo.seed import QUERIES_FILE
from tests.browser.conftest import wait_for_app

SESSIONS = 20
# bounds for a stuck session, not a speed target (the figures are): a quiet machine finishes in about a minute,
# one running other suites beside it took over 180 s
OVERALL_TIMEOUT_S = 900
PER_STEP_TIMEOUT_MS = 600_000
TOP_K = 10  # the page's default k
ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "artifacts" / "load-streamlit.json"
QUERIES = [json.loads(line)["text"] for line in QUERIES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass(frozen=True)
class SessionResult:
    session: int
    query: str
    ok: bool
    error: str
    page_load_s: float  # goto -> the page's script finished
    query_s: float  # Enter -> both columns of results shown and the script finished
    total_s: float  # goto -> results
    left_cards: int
    right_cards: int
    server_ms: float  # the page's own metric of side B (reranked): its time inside the server (-1: not read)
    metrics_text: str = ""  # what the metrics said, kept when the timing could not be read from it


METRIC_MS = re.compile(r"B: time\s+(\d+) ms")  # side B's metric: "B: time 123 ms rerank 9 ms"
ERRORS = "[data-testid='stException'], [data-testid='stAlertContentError']"
# a side's result cards: keyed compare.<side>.<fact uuid> (its controls are compare.<side>.reranker, .n, .k)
# a result card's key is compare.<side>.<fact uuid> (its grade buttons add ".grade.N": not cards)
CARDS_JS = """(side) => [...document.querySelectorAll(`[class*='st-key-compare-${side}-']`)].filter(
  (e) => [...e.classList].some((c) => new RegExp(
    `^st-key-compare-${side}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).test(c))).length"""


async def one_session(browser: Browser, app_url: str, number: int, query: str) -> SessionResult:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    started = time.perf_counter()
    loaded = entered = 0.0
    try:
        await page.goto(f"{app_url}/compare", timeout=PER_STEP_TIMEOUT_MS)
        await page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=PER_STEP_TIMEOUT_MS
        )
        loaded = time.perf_counter()
        box = page.get_by_label("Query")
        # the box, or the one line a failed page shows instead: never a wait for a box that is not coming
        await box.or_(page.locator(ERRORS)).first.wait_for(timeout=PER_STEP_TIMEOUT_MS)
        if failed := [t.strip()[:200] for t in await page.locator(ERRORS).all_inner_texts()]:
            raise AssertionError(f"the page failed before the query: {' | '.join(failed)}")
        await box.fill(query, timeout=PER_STEP_TIMEOUT_MS)  # 20 pages on 2 cores: the box can take a while
        entered = time.perf_counter()
        await box.press("Enter")
        heading = page.get_by_role("heading", name="B: with local")
        await heading.or_(page.locator(ERRORS)).first.wait_for(timeout=PER_STEP_TIMEOUT_MS)  # results, or an error
        await wait_for_app(page)  # the script has finished: any error would be on the page by now
        done = time.perf_counter() - 0.5  # wait_for_app lets the last deltas paint for 0.5 s
        texts = [t.strip()[:200] for t in await page.locator(ERRORS).all_inner_texts()]
        if not texts and not await heading.count():
            texts = ["no results and no error shown"]
        left, right = [await page.evaluate(CARDS_JS, side) for side in ("a", "b")]
        timing = page.locator("[data-testid='stMetric']", has_text=METRIC_MS)
        with contextlib.suppress(PlaywrightTimeout):  # a diagnostic figure: a page without it still counts
            await timing.first.wait_for(timeout=15_000)
        metrics = " ".join(await page.locator("[data-testid='stMetric']").all_inner_texts())
        server = METRIC_MS.search(metrics)
        return SessionResult(
            number,
            query,
            not texts,
            " | ".join(texts),
            loaded - started,
            done - entered,
            done - started,
            left,
            right,
            float(server.group(1)) if server else -1.0,
            "" if server else metrics[:300],
        )
    except Exception as exc:  # reported per session, never hidden
        return SessionResult(
            number,
            query,
            False,
            f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
            (loaded or time.perf_counter()) - started,
            0.0,
            time.perf_counter() - started,
            0,
            0,
            -1.0,
        )
    finally:
        await context.close()


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 3) if values else 0.0


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(OVERALL_TIMEOUT_S + 60)
async def test_twenty_concurrent_browser_sessions_run_queries_without_errors(browser: Browser, app_url: str) -> None:
    assert len(QUERIES) >= SESSIONS
    # one session first, alone: the server's caches (embedder, lab) warm up, as they would before real users
    warm = await one_session(browser, app_url, -1, QUERIES[-1])
    assert warm.ok, warm.error

    started = time.perf_counter()
    tasks = [asyncio.create_task(one_session(browser, app_url, n, QUERIES[n])) for n in range(SESSIONS)]
    await asyncio.wait(tasks, timeout=OVERALL_TIMEOUT_S)
    wall = time.perf_counter() - started
    results = []
    for n, task in enumerate(tasks):
        if task.done():
            results.append(task.result())
        else:  # still running at the bound: a failure, reported like the others
            task.cancel()
            late = f"did not finish within {OVERALL_TIMEOUT_S} s"
            results.append(SessionResult(n, QUERIES[n], False, late, 0.0, 0.0, wall, 0, 0, -1.0))
    await asyncio.gather(*tasks, return_exceptions=True)
    ok = [r for r in results if r.ok]
    totals, queries = [r.total_s for r in ok], [r.query_s for r in ok]
    server = [r.server_ms for r in ok if r.server_ms >= 0]
    report = {
        "sessions": SESSIONS,
        "completed": len(ok),
        "errors": len(results) - len(ok),
        "wall_s": round(wall, 3),
        "session_total_s": {
            "p50": percentile(totals, 50),
            "p95": percentile(totals, 95),
            "max": percentile(totals, 100),
        },
        "query_s": {"p50": percentile(queries, 50), "p95": percentile(queries, 95), "max": percentile(queries, 100)},
        "server_retrieve_ms_read": len(server),
        "server_retrieve_ms": {
            "p50": percentile(server, 50),
            "p95": percentile(server, 95),
            "max": percentile(server, 100),
        },
        "warm_session_total_s": round(warm.total_s, 3),
        "per_session": [asdict(r) for r in results],
    }
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=2))
    print(
        f"\n{len(ok)}/{SESSIONS} browser sessions completed in {wall:.1f} s; query p50 {report['query_s']['p50']} s, "
        f"p95 {report['query_s']['p95']} s; session (open page + query) p95 {report['session_total_s']['p95']} s; "
        f"retrieve() inside the server p95 {report['server_retrieve_ms']['p95']:.0f} ms"
    )
    failures = [f"#{r.session}: {r.error}" for r in results if not r.ok]
    assert not failures, failures
    # the page's own timing is read from at least one session: a renamed metric must not empty the figure silently
    assert server, [r.metrics_text for r in ok][:2]
    assert all(r.left_cards == r.right_cards == TOP_K for r in results), [
        (r.left_cards, r.right_cards) for r in results
    ]
