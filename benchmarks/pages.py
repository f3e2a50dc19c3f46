"""`python -m benchmarks pages`: every page's server time per rerun, cold and warm, on one deal.

Each page runs in its own AppTest session (the real entry script: sidebar, page, charts and tables serialised
to the front-end protocol), brought into the state that shows its main content (Compare and Scores: a query;
Timeline: the entity with most facts; Merges: its candidates; Evaluate: the query sets; Spot-check: a review
card, a queue of 20 sampled facts is built through the page if the deal has none; History: a run opened;
Latency: the deal's runs). The run that first shows that state is the cold figure; then `--repeat` plain
reruns (what a widget change or a refresh costs when nothing changed) give the warm median and p95.

The pages read and write the data directory they are pointed at as they would for a user: the queries are
recorded as runs, and a spot-check queue may be built. The driver runs in its own process
(`python -m benchmarks.pages`), because the settings are read once per process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "streamlit_app.py")
FALLBACK_QUERY = "What was the revenue in the latest quarter?"
BUDGET_MS = 300


@dataclass(frozen=True)
class PageRun:
    """How to bring a page into the state that shows its main content, and how to see that it did."""

    title: str
    path: str
    steps: Callable[[Any, str], None]  # (AppTest, query text): the actions after switching to the page
    shown: Callable[[Any], bool]


def _nothing(at: Any, query: str) -> None:
    return None


def _query(ns: str) -> Callable[[Any, str], None]:
    def steps(at: Any, query: str) -> None:
        at.text_input(key=f"{ns}.q").input(query).run()

    return steps


def _spotcheck(at: Any, query: str) -> None:
    at.text_input(key="spotcheck.reviewer").input("benchmark").run()
    if at.selectbox(key="spotcheck.queue").value is None:  # no queue on this deal yet: sample 20 facts
        at.selectbox(key="spotcheck.new.source").set_value("fact_sample")
        at.button(key="spotcheck.new.build").click().run()


def _history(at: Any, query: str) -> None:
    box = at.selectbox(key="history.open")
    if len(box.options) > 1:  # the newest run
        box.select_index(1).run()


def _has_chart(at: Any) -> bool:
    return len(at.get("plotly_chart")) > 0


PAGES = (
    PageRun("Home", "app_pages/home.py", _nothing, lambda at: len(at.metric) >= 5),
    PageRun("Compare", "app_pages/compare.py", _query("compare"), lambda at: len(at.subheader) >= 2),
    PageRun("Scores", "app_pages/scores.py", _query("scores"), lambda at: len(at.dataframe) >= 1),
    PageRun("Timeline", "app_pages/timeline.py", _nothing, _has_chart),
    PageRun("Evaluate", "app_pages/evaluate.py", _nothing, lambda at: len(at.dataframe) >= 1),
    PageRun("Spot-check", "app_pages/spotcheck.py", _spotcheck, lambda at: len(at.get("html")) >= 1),
    PageRun("Latency", "app_pages/latency.py", _nothing, _has_chart),
    PageRun("History", "app_pages/history.py", _history, lambda at: len(at.dataframe) >= 1),
    PageRun("Merges", "app_pages/merges.py", _nothing, lambda at: len(at.dataframe) >= 1),
    PageRun("Deals", "app_pages/deals.py", _nothing, lambda at: len(at.dataframe) >= 1),
    PageRun("Audit", "app_pages/audit.py", _nothing, lambda at: len(at.dataframe) + len(at.main.info) >= 1),
)


def _timed(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def _problems(at: Any) -> list[str]:
    return [str(e.value) for e in (*at.exception, *at.error)]


def _query_text(group: str | None) -> str:
    from pipeline.api import get_settings, load_query_set, open_store

    if group is None:
        return FALLBACK_QUERY
    query_set = load_query_set(open_store(get_settings().resolved_data_dir), group)
    return query_set.queries[0].text if query_set and query_set.queries else FALLBACK_QUERY


def measure_page(page: PageRun, group: str | None, query: str, repeat: int) -> dict[str, Any]:
    """One page in a fresh session: cold (the run that first shows its content), then `repeat` warm reruns."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    if group is not None and at.selectbox(key="sidebar.deal").value != group:
        at.selectbox(key="sidebar.deal").set_value(group).run()
    at.switch_page(page.path)
    if page.steps is _nothing:
        cold = _timed(at.run)
    else:
        at.run()
        cold = _timed(lambda: page.steps(at, query))
    problems = _problems(at)
    warm = [_timed(at.run) for _ in range(repeat)]
    problems += _problems(at)
    return {
        "page": page.title,
        "cold_ms": round(cold),
        "warm_ms": [round(ms, 1) for ms in warm],
        "warm_median_ms": round(statistics.median(warm)),
        "warm_p95_ms": round(float(np.percentile(warm, 95))),
        "content_shown": page.shown(at),
        "problems": problems[:3],
    }


def main() -> None:
    """The driver, in the process whose environment names the data directory: one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--group", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated page titles (default: every page)")
    args = parser.parse_args()
    only = {t.strip().casefold() for t in args.only.split(",") if t.strip()}
    query = _query_text(args.group)
    rows = []
    for page in PAGES:
        if not only or page.title.casefold() in only:
            rows.append(measure_page(page, args.group, query, args.repeat))
            print(f"{page.title}: {rows[-1]['cold_ms']} ms cold, {rows[-1]['warm_median_ms']} ms warm", file=sys.stderr)
    print(json.dumps({"group": args.group, "query": query, "repeat": args.repeat, "pages": rows}))


def time_pages(data_dir: Path, group: str | None, repeat: int, only: str = "") -> dict[str, Any]:
    """Run the driver in its own process on `data_dir` and return its figures."""
    from pipeline.errors import RetrievalLabError

    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "benchmarks.pages", "--repeat", str(repeat), "--only", only]
    if group is not None:
        command += ["--group", group]
    # stderr passes through: one line per page as it is measured
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RetrievalLabError(f"the page benchmark failed (exit {done.returncode}): see its output above")
    return {"data_dir": str(data_dir), **json.loads(lines[-1])}


def render_pages(result: dict[str, Any]) -> str:
    lines = [
        f"{result['data_dir']} · deal {result['group'] or '(the sidebar default)'} · "
        f"warm = median / p95 of {result['repeat']} reruns · budget {BUDGET_MS} ms warm",
        f"{'page':<12} {'cold ms':>8} {'warm p50':>9} {'warm p95':>9}  ",
    ]
    for row in result["pages"]:
        verdict = "ok" if row["warm_median_ms"] <= BUDGET_MS else "OVER"
        state = "" if row["content_shown"] else "  (main content not shown)"
        problems = f"  errors: {'; '.join(row['problems'])}" if row["problems"] else ""
        lines.append(
            f"{row['page']:<12} {row['cold_ms']:>8,} {row['warm_median_ms']:>9,} {row['warm_p95_ms']:>9,}  "
            f"{verdict}{state}{problems}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
