"""How well the merge score separates labelled entity pairs: precision and recall per threshold.

The pairs come from whoever has labels (the demo deal has some); entities are matched by their `rl_key`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.graph.backend import GraphBackend
from pipeline.merges.scoring import PairSignals, PRPoint, precision_recall, score_pair


@dataclass(frozen=True)
class PairLabel:
    """Two entities (by `rl_key`) and whether they are the same one."""

    key_a: str
    key_b: str
    same: bool
    merged: bool = False  # recorded as a merge in the deal's data


@dataclass(frozen=True)
class LabelledPair:
    name_a: str
    name_b: str
    same: bool
    merged: bool  # recorded as a merge in the demo data (scored from the names all the same)
    signals: PairSignals


@dataclass(frozen=True)
class LabelledEvaluation:
    pairs: tuple[LabelledPair, ...]
    points: tuple[PRPoint, ...]

    def at(self, threshold: float) -> PRPoint:
        return min(self.points, key=lambda p: abs(p.threshold - threshold))


async def evaluate_labels(
    backend: GraphBackend, group_id: str, labels: Sequence[PairLabel]
) -> LabelledEvaluation | None:
    """Score every labelled pair whose two entities are in the deal; None when none are."""
    if not labels:
        return None
    keys = sorted({k for label in labels for k in (label.key_a, label.key_b)})
    by_key = {r["key"]: r for r in await backend.cypher.entities_by_key(group_id, keys)}
    pairs = tuple(
        LabelledPair(
            by_key[label.key_a]["name"],
            by_key[label.key_b]["name"],
            label.same,
            label.merged,
            score_pair(
                by_key[label.key_a]["name"],
                by_key[label.key_b]["name"],
                by_key[label.key_a].get("vector"),
                by_key[label.key_b].get("vector"),
            ),
        )
        for label in labels
        if label.key_a in by_key and label.key_b in by_key
    )
    if not pairs:
        return None
    return LabelledEvaluation(pairs, tuple(precision_recall((p.signals.score, p.same) for p in pairs)))
