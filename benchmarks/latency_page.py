"""Time the Latency page's server side against the store in RETRIEVAL_LAB_DATA_DIR; print one JSON line.

Run by `python -m benchmarks latency-page` (which fills a throwaway store first). Two figures:
- `latency_data()` alone: loading the runs from SQLite, numpy aggregates and building the Plotly figures;
- the whole page script in Streamlit's AppTest (sidebar, filters, tables, charts serialised to the
  front-end protocol): warm reruns, after one untimed-in-the-median first run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from streamlit.testing.v1 import AppTest

    from dashboard.latency.view import latency_data
    from pipeline.api import get_settings, open_store
    from pipeline.api.models import RunFilter

    settings = get_settings()
    store = open_store(settings.resolved_data_dir)
    latency_data(store, settings, RunFilter())  # warm the imports and SQLite's page cache
    functions = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        data = latency_data(store, settings, RunFilter())
        functions.append((time.perf_counter() - started) * 1000)

    at = AppTest.from_file(APP, default_timeout=120)
    at.run()  # home: starts the embedded graph backend in the throwaway data directory
    at.switch_page("app_pages/latency.py")
    started = time.perf_counter()
    at.run()
    cold = (time.perf_counter() - started) * 1000
    problems = [e.value for e in (*at.exception, *at.error)]
    if problems or len(at.get("plotly_chart")) != 4:
        raise SystemExit(f"the page did not render its four charts: {problems}")
    page = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        at.run()
        page.append((time.perf_counter() - started) * 1000)
    runs_metric = next(m.value for m in at.metric if m.label == "Runs")
    print(
        json.dumps(
            {
                "page_runs_metric": runs_metric,
                "rows_loaded": len(data.table),
                "functions_ms": [round(x, 1) for x in functions],
                "functions_ms_median": statistics.median(functions),
                "apptest_cold_ms": cold,
                "apptest_ms": [round(x, 1) for x in page],
                "apptest_ms_median": statistics.median(page),
            }
        )
    )


if __name__ == "__main__":
    main()
