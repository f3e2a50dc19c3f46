"""`python -m dashboard.serve [streamlit options]`: warm up, then serve the app from the same process.

Streamlit runs the app's script only when a browser connects, so whatever the first query needs (the
graph connection, the embedding model, graphiti's statements on the server) would be paid by the first
user. Here it is paid before the server listens: the process-wide Lab and event loop
(`dashboard/common/runtime.py`, held by `st.cache_resource`) are built and one retrieval is run, and
the page modules are imported; Streamlit then starts in this process and reuses all of it.
RETRIEVAL_LAB_WARM_UP=0 skips it (the benchmark's cold baseline).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import time

APP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "streamlit_app.py")
VIEWS = ("compare", "scores", "timeline", "evaluate", "spotcheck", "latency", "history", "merges")


def say(message: str) -> None:
    print(f"retrieval-lab: {message}", flush=True)


def warm() -> None:
    started = time.perf_counter()
    from dashboard.common.runtime import get_lab, run

    # Outside a script run Streamlit warns of a missing ScriptRunContext at each cached call: expected here.
    # Streamlit resets its loggers' levels when the server starts.
    for name in ("streamlit.runtime.scriptrunner_utils.script_run_context", "streamlit.runtime.caching.cache_data_api"):
        logging.getLogger(name).setLevel(logging.ERROR)

    say("warming up: starting the graph backend, loading the embedding model, running a first query…")
    lab = get_lab()
    for view in VIEWS:
        importlib.import_module(f"dashboard.{view}.view")
    result = run(lab.warm_up())
    if result.group_id is None:
        say("no deal loaded yet: nothing to warm (run `python -m pipeline seed-demo`)")
        return
    say(
        f"warmed up in {time.perf_counter() - started:.1f} s on deal {result.group_id!r}: a first query took "
        f"{result.first_ms:.0f} ms, the next {result.second_ms:.0f} ms"
    )


def main(argv: list[str]) -> int:
    if os.environ.get("RETRIEVAL_LAB_WARM_UP", "1") != "0":
        try:
            warm()
        except Exception as exc:  # the app still starts and says what is wrong on its first page
            say(f"warm-up skipped: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    from streamlit.web import cli as streamlit_cli

    say("starting the dashboard (Ctrl+C stops it)")
    sys.argv = ["streamlit", "run", APP, *argv]
    return int(streamlit_cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
