"""The demo's one-click examples, measured when it is seeded: a small sweep of its labelled set, saved as the
deal's first experiment, so Compare and Scores offer the queries where reranking helps most from the first start
(`pipeline.comparison.examples` reads the latest experiment; without one it could only list every labelled query).

The sweep is the one Evaluate runs, on two settings: first-stage order and the local re-scorer (offline, no key),
both at the default N and k. A deal that already has an experiment (a user's sweep, or this one from an earlier
seed: reseeding writes the same graph, so its numbers still hold) is left as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.evaluation.experiments import list_experiments, save_experiment, unique_name
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep

if TYPE_CHECKING:
    from pipeline.lab import Lab  # annotations only: Lab stands above the features

NAME = "Demo examples (measured at seeding)"
RERANKERS = ("none", "local")


async def measure_examples(lab: Lab, group_id: str) -> int | None:
    """Sweep the seeded demo deal's labelled set without and with the local re-scorer and save it; the
    experiment's id, or None when the deal already has an experiment."""
    store = lab.store
    if list_experiments(store, group_id):
        return None
    settings = lab.settings
    spec = SweepSpec(group_id, (settings.default_candidates,), (settings.default_top_k,), RERANKERS)
    result = await run_sweep(lab, spec)
    return save_experiment(store, result, unique_name(store, group_id, NAME))
