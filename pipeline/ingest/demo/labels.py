"""The demo deal's labelled entity pairs, and the merge score's precision/recall on them.

`deal.json` labels pairs in `entity_pairs`; its recorded merges count as true pairs too (a merge label wins
over an `entity_pairs` label for the same two entities).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pipeline.ingest.demo import DEAL_FILE
from pipeline.merges.labelled import LabelledEvaluation, PairLabel, evaluate_labels

if TYPE_CHECKING:
    from pipeline.lab import Lab  # annotations only: Lab stands above the features


def labelled_pairs() -> list[PairLabel]:
    """The demo's labelled pairs (entity keys, the same in every deal seeded from the demo data)."""
    data = json.loads(DEAL_FILE.read_text(encoding="utf-8"))
    labels: dict[frozenset[str], PairLabel] = {}
    for m in data["merges"]:
        labels[frozenset((m["alias"], m["canonical"]))] = PairLabel(m["alias"], m["canonical"], True, merged=True)
    for p in data.get("entity_pairs", []):
        labels.setdefault(frozenset((p["a"], p["b"])), PairLabel(p["a"], p["b"], bool(p["same"])))
    return list(labels.values())


async def labelled_evaluation(lab: Lab, group_id: str) -> LabelledEvaluation | None:
    """Precision and recall on the labelled pairs; None for deals not built from the demo data (no labels)."""
    deal = await lab.deal(group_id)
    if deal.source != "demo":
        return None
    return await evaluate_labels(lab.backend, group_id, labelled_pairs())
