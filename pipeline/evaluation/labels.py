"""How the dashboard names a saved experiment in its pickers."""

from __future__ import annotations

from pipeline.evaluation.experiments import ExperimentInfo
from pipeline.evaluation.records import partial_words
from pipeline.utc import stamp


def experiment_label(info: ExperimentInfo) -> str:
    """A partial run says so first, whatever its name: it is never taken for a complete one."""
    mark = f"PARTIAL ({partial_words(info.partial)}) " if info.partial else ""
    return f"{mark}#{info.id} {info.name} · {info.group_id} · {info.queries} queries · {stamp(info.created_at)} UTC"
