"""The application layer: all that the pages (`dashboard/`, `app_pages/`), the CLI (`pipeline/cli/`) and the
benchmarks import from the engine, with `pipeline.api.models` (the values it hands out) and `pipeline.errors` (what
it raises, each a line a user can act on).

`Lab` opens the graph and the store; each feature is a handle on it (`lab.spotcheck`, ...), whose calls take plain
values and return the read models of `pipeline.api.models`, so no page holds a store, a repo module or a driver.
The handles live in their features (`pipeline/<feature>/api.py`, beside the feature's logic and its SQL).

Features still imported directly by a front end move behind their handle one at a time; the architecture test
holds the count of engine modules the front ends import (`tests/unit/test_architecture.py`) and only lowers it.
"""

from pipeline.ingest.fields import date_field
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set

# A few calls made where no Lab is in scope: a benchmark reading a data directory's store before (or without)
# opening a Lab, the CLI's parsing of a date argument, synthetic data keyed as the loaders key it.
__all__ = ["Lab", "date_field", "load_query_set", "stable_uuid"]
