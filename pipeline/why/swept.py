"""The loss X-ray of a saved sweep: which of its settings it X-rays. Each is ranked on every judged query of the
sweep, so a grid of 200 is cut to a few that answer "why does the winner win": the recommended setting, the
baseline, then the best on the sweep's metric. A hosted reranker is left out (an X-ray would pay it once more per
query); `pipeline why --setting` X-rays any setting."""

from __future__ import annotations

from pipeline.evaluation.recommend import metric_label
from pipeline.evaluation.records import SweepResult
from pipeline.rerankers.specs import SPECS
from pipeline.retrieval.setting import Setting

SWEPT_SETTINGS = 4


def swept_settings(result: SweepResult, most: int = SWEPT_SETTINGS) -> tuple[list[Setting], list[str]]:
    """The settings of `result` to X-ray, and one line for each kind left out."""
    recommendation = result.recommendation()
    metric = recommendation.metric
    offline = [s for s in result.settings if not SPECS[s.setting.reranker].traits.hosted]
    ordered = sorted(
        offline,
        key=lambda s: (s.key != recommendation.key, s.key != result.baseline, -s.metrics.get(metric, 0.0), s.key),
    )
    notes = []
    if hosted := len(result.settings) - len(offline):
        notes.append(
            f"{hosted} setting{'s' if hosted > 1 else ''} with a hosted reranker left out (an X-ray reranks every "
            "query again): `pipeline why --setting` X-rays any setting."
        )
    if (more := len(ordered) - most) > 0:
        notes.append(
            f"{more} more setting{'s' if more > 1 else ''} of the sweep left out: shown are the recommended one, the "
            f"baseline and the best by {metric_label(metric)}."
        )
    return [s.setting for s in ordered[:most]], notes
