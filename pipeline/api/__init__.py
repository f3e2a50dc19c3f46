"""The application layer: all that the pages (`dashboard/`, `app_pages/`), the CLI (`pipeline/cli/`) and the
benchmarks import from the engine, with `pipeline.api.models` (the values it hands out) and `pipeline.errors` (what
it raises, each a line a user can act on).

`Lab` opens the graph and the store; each feature is a handle on it (`lab.spotcheck`, ...), whose calls take plain
values and return the read models of `pipeline.api.models`, so no page holds a store, a repo module or a driver.
The handles live in their features (`pipeline/<feature>/api.py`, beside the feature's logic and its SQL).

Features still imported directly by a front end move behind their handle one at a time; the architecture test
holds the count of engine modules the front ends import (`tests/unit/test_architecture.py`) and only lowers it.
"""

from pipeline.api.exports import lazy
from pipeline.lab import Lab

# what a front end calls before it has a Lab, or needs none for: defining module -> functions
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "pipeline.rerankers": ("has_key", "make_reranker", "reranker_choices", "traits"),  # the reranker table
    "pipeline.rerankers.specs": ("colour",),
    "pipeline.settings": ("get_settings", "settings_error_line"),
    "pipeline.store": ("open_store", "store_path"),
    "pipeline.store.integrity": ("damaged_store", "store_absent"),
    "pipeline.text": ("clip", "one_line"),
    "pipeline.numbers": ("decimal_number", "whole_number"),
    "pipeline.csv_cells": ("safe_cell",),
    "pipeline.utc": ("day", "now_iso", "stamp", "utc_now"),
    "pipeline.figures": ("is_money_or_share",),
    "pipeline.graph.embedded.redis_process": ("server_pids", "time_start"),  # the embedded server's benchmarks
}
_functions, __getattr__ = lazy(__name__, FUNCTIONS)
__all__ = ["Lab", *_functions]
