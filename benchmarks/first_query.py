"""`python -m benchmarks first-query`: the first and the tenth query on Compare after a cold start, in a real
browser, with the start-up warm-up off and on (same run, alternately).

Each round starts the app as `scripts/run.sh` does (`python -m dashboard.serve`) in a fresh process, with
the embedded graph server stopped first, opens Debian's chromium on Compare through a link with the first labelled
query of the demo deal (a fresh browser: nothing cached), types the next ones into its box one after
another, then starts a second browser on a link (what the browser's own loading costs on a warm
server). Browser time: from navigation or Enter until the page's script has finished. Server time: the
end-to-end time of the reranked run the page recorded.
Needs the test tools (`scripts/setup.sh --test`: Playwright and chromium).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from pipeline.errors import InvalidInput, RetrievalLabError

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DONE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_stopped(data_dir: Path, timeout_s: float = 20.0) -> None:
    """Until the embedded graph server of `data_dir` has stopped (its supervisor stops it ~2 s after the
    last client): each round starts cold."""
    from pipeline.api import server_pids

    deadline = time.monotonic() + timeout_s
    while server_pids(data_dir / "falkordb.sock") is not None:
        if time.monotonic() > deadline:
            raise RetrievalLabError("the embedded graph server did not stop between rounds")
        time.sleep(0.2)


def _start(port: int, warm: bool, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "RETRIEVAL_LAB_WARM_UP": "1" if warm else "0"}
    command = [sys.executable, "-m", "dashboard.serve", "--server.port", str(port), "--server.address", "127.0.0.1"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RetrievalLabError(f"the app did not start; see {log}") from None
            time.sleep(0.2)


def _last_run_id(store: Any) -> int:
    from pipeline.api import on_store

    newest = on_store(store).history.list_runs(limit=1)
    return newest[0].id if newest else 0


def _server_ms(store: Any, query: str, after_id: int) -> float:
    """The end-to-end time of the reranked run the page recorded for `query` (after run `after_id`)."""
    from pipeline.api import on_store
    from pipeline.api.models import RunFilter

    runs = on_store(store).history.list_runs(RunFilter(group_id="demo", text=query))
    reranked = [r for r in runs if r.query == query and r.reranker != "none" and r.id > after_id]
    if not reranked:
        raise RetrievalLabError(f"the page recorded no run for {query!r}")
    return reranked[0].total_ms


async def _recorded(store: Any, query: str, after_id: int, timeout_s: float = 120.0) -> float:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return _server_ms(store, query, after_id)
        except RetrievalLabError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def _open(browser: Any, port: int, text: str, store: Any) -> tuple[Any, float, float]:
    """A new visitor (fresh browser context, nothing cached) opening a link to Compare with `text`."""
    page = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
    after_id = _last_run_id(store)
    started = time.perf_counter()
    await page.goto(f"http://127.0.0.1:{port}/compare?" + urlencode({"sidebar.deal": "demo", "compare.q": text}))
    server = await _recorded(store, text, after_id)
    await page.wait_for_selector(DONE, timeout=120_000)
    return page, (time.perf_counter() - started) * 1000, server


async def _round(port: int, texts: list[str], store: Any) -> dict[str, float]:
    """The first visitor opens a link with the first query, then types the others in its box one after
    another, as a user does; then a second visitor opens a link with the last query (a fresh browser
    again, on a server that has served before: what the browser itself costs)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page, first_ms, first_server = await _open(chromium, port, texts[0], store)
        box = page.get_by_label("Query", exact=True)
        for text in texts[1:]:
            after_id = _last_run_id(store)
            started = time.perf_counter()
            await box.fill(text)
            await box.press("Enter")
            last_server = await _recorded(store, text, after_id)
            await page.wait_for_selector(DONE, timeout=120_000)
            last_ms = (time.perf_counter() - started) * 1000
        await chromium.close()
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        _, second_ms, _ = await _open(chromium, port, texts[-1] + "?", store)
        await chromium.close()
    return {
        "browser_first_ms": first_ms,
        "browser_last_ms": last_ms,
        "second_visitor_ms": second_ms,
        "server_first_ms": first_server,
        "server_last_ms": last_server,
    }


def time_first_query(queries: int = 10, rounds: int = 1) -> dict[str, Any]:
    from pipeline.api import get_settings, load_query_set, open_store

    if not Path(CHROMIUM).exists():
        raise InvalidInput("Debian's chromium is not installed: run scripts/setup.sh --test")
    data_dir = get_settings().resolved_data_dir
    store = open_store(data_dir)
    query_set = load_query_set(store, "demo")
    if query_set is None:
        raise InvalidInput("no demo deal here: run `python -m pipeline seed-demo` first")
    texts = [q.text for q in query_set.queries][:queries]
    log = (ROOT / "artifacts").resolve()
    log.mkdir(exist_ok=True)
    rows: dict[str, list[dict[str, float]]] = {"cold": [], "warmed": []}
    for _ in range(rounds):
        for mode in ("cold", "warmed"):
            _wait_stopped(data_dir)
            port = _free_port()
            server = _start(port, mode == "warmed", log / f"first-query-{mode}.log")
            try:
                rows[mode].append(asyncio.run(_round(port, texts, store)))
            finally:
                server.terminate()
                server.wait(timeout=30)
    summary = {
        mode: {key: round(statistics.median(r[key] for r in runs)) for key in runs[0]} for mode, runs in rows.items()
    }
    return {"queries": len(texts), "rounds": rounds, **summary}


def render(result: dict[str, Any]) -> str:
    n = result["queries"]
    lines = [
        f"Compare after a cold start: a link with query 1, then queries 2-{n} typed in the same tab, then a "
        f"second visitor's link; median of {result['rounds']} round(s):",
        f"{'start-up':<9} {'browser 1st':>12} {f'browser {n}th':>12} {'2nd visitor':>12} {'server 1st':>11} "
        f"{f'server {n}th':>11}",
    ]
    for mode in ("cold", "warmed"):
        r = result[mode]
        lines.append(
            f"{mode:<9} {r['browser_first_ms']:>9} ms {r['browser_last_ms']:>9} ms {r['second_visitor_ms']:>9} ms "
            f"{r['server_first_ms']:>8} ms {r['server_last_ms']:>8} ms"
        )
    return "\n".join(lines)
