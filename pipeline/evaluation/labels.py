"""How the dashboard names a saved experiment in its pickers."""

from __future__ import annotations

from pipeline.evaluation.experiments import ExperimentInfo
from pipeline.utc import stamp


def experiment_label(info: ExperimentInfo) -> str:
    return f"#{info.id} {info.name} · {info.group_id} · {info.queries} queries · {stamp(info.created_at)} UTC"
