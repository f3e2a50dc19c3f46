"""`python -m benchmarks compare-page`: server time of a query on the Compare page, on the demo deal.

Drives the real page script in Streamlit's AppTest (sidebar, both retrievals, cards, charts serialised
to the front-end protocol) after one untimed first load, for the first `--queries` labelled queries.
Each query is new to the session, so nothing is served from the page's run cache.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.errors import InvalidInput, RetrievalLabError

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")


def time_compare_page(queries: int = 20, reranker: str = "local") -> dict[str, Any]:
    from streamlit.testing.v1 import AppTest

    from pipeline.api import get_settings, load_query_set, open_store

    query_set = load_query_set(open_store(get_settings().resolved_data_dir), "demo")
    if query_set is None:
        raise InvalidInput("no demo deal here: run `python -m pipeline seed-demo` first")
    texts = [q.text for q in query_set.queries][:queries]

    at = AppTest.from_file(APP, default_timeout=120)
    started = time.perf_counter()
    at.run()
    first_load = (time.perf_counter() - started) * 1000
    at.switch_page("app_pages/compare.py")
    at.run()
    at.selectbox(key="compare.b.reranker").set_value(reranker).run()
    timings = []
    for text in texts:
        started = time.perf_counter()
        at.text_input(key="compare.q").input(text).run()
        timings.append((time.perf_counter() - started) * 1000)
        problems = [e.value for e in (*at.exception, *at.error)]
        if problems or [s.value for s in at.subheader] != ["A: without reranking", f"B: with {reranker}"]:
            raise RetrievalLabError(f"the page did not show both columns for {text!r}: {problems}")
    return {
        "queries": len(timings),
        "reranker": reranker,
        "first_load_ms": round(first_load),
        "query_ms_median": round(statistics.median(timings)),
        "query_ms_p95": round(float(np.percentile(timings, 95))),
        "query_ms_max": round(max(timings)),
    }
