"""The application layer: all that the pages (`dashboard/`, `app_pages/`), the CLI (`pipeline/cli/`) and the
benchmarks import from the engine, with `pipeline.api.models` (the values it hands out) and `pipeline.errors` (what
it raises, each a line a user can act on).

`Lab` opens the graph and the store; each feature is a handle on it (`lab.spotcheck`, ...), whose calls take plain
values and return the read models of `pipeline.api.models`, so no page holds a store, a repo module or a driver.
The handles live in their features (`pipeline/<feature>/api.py`, beside the feature's logic and its SQL).

Features still imported directly by a front end move behind their handle one at a time; the architecture test
holds the count of engine modules the front ends import (`tests/unit/test_architecture.py`) and only lowers it.
"""

from pipeline.lab import Lab
from pipeline.rerankers import has_key, make_reranker, reranker_choices, traits
from pipeline.rerankers.specs import colour

__all__ = [
    "Lab",
    # the reranker table (pipeline/rerankers/specs.py): asked before a Lab exists (argument help, forms)
    "colour",
    "has_key",
    "make_reranker",
    "reranker_choices",
    "traits",
]
