"""The operating point of an auto-merge rule on labelled merge decisions: precision and recall at every threshold of
graphiti's own deterministic rule and of this tool's score, and the lowest threshold that keeps a chosen precision
(the most recall at that precision), handed over as the line that sets graphiti's threshold.

graphiti merges two entity names without asking its LLM when their exact keys are equal, or when both pass its
entropy gate and the Jaccard of their 3-character shingles reaches `_FUZZY_JACCARD_THRESHOLD` (0.9): so that
Jaccard, 1.0 for an exact match and 0 for a name its gate sends to the LLM, is the score its threshold cuts.
Labels: the demo's labelled pairs, and every pair an admin decided on a deal (a recorded merge is one entity, a
rejected pair two).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pipeline.graph import graphiti_compat as graphiti
from pipeline.merges.labelled import LabelledPair
from pipeline.merges.records import read_merge_records
from pipeline.merges.repo import rejections
from pipeline.merges.scoring import PRPoint, precision_recall, score_pair

if TYPE_CHECKING:
    from pipeline.lab import Lab

GRAPHITI_DEFAULT = float(graphiti.FUZZY_THRESHOLD)  # graphiti's own threshold, as pinned
Rule = Literal["graphiti", "score"]
RULES: dict[Rule, str] = {
    "graphiti": "graphiti's deterministic merge (exact key, else shingle Jaccard)",
    "score": "this tool's score (name match, shingles and name cosine)",
}


def graphiti_score(a: str, b: str) -> float:
    """What graphiti's threshold cuts for two names: 1.0 for equal exact keys; the shingle Jaccard of their fuzzy
    forms when both pass its entropy gate; else 0 (graphiti asks its LLM instead)."""
    if graphiti.normalize_exact(a) == graphiti.normalize_exact(b):
        return 1.0
    fuzzy_a, fuzzy_b = graphiti.normalize_fuzzy(a), graphiti.normalize_fuzzy(b)
    if not (graphiti.high_entropy(fuzzy_a) and graphiti.high_entropy(fuzzy_b)):
        return 0.0
    return graphiti.jaccard(graphiti.shingles(fuzzy_a), graphiti.shingles(fuzzy_b))


@dataclass(frozen=True)
class OperatingPoints:
    pairs: tuple[LabelledPair, ...]
    points: dict[Rule, tuple[PRPoint, ...]]

    def at_precision(self, rule: Rule, target: float) -> PRPoint | None:
        """The lowest threshold whose merges keep at least `target` precision and merge something; None if none."""
        meeting = [p for p in self.points[rule] if p.precision is not None and p.precision >= target]
        return min(meeting, key=lambda p: p.threshold) if meeting else None

    @property
    def graphiti_default(self) -> PRPoint:
        """What graphiti's own rule does at its default threshold."""
        return next(p for p in self.points["graphiti"] if p.threshold >= GRAPHITI_DEFAULT)


def operating_points(pairs: Sequence[LabelledPair]) -> OperatingPoints | None:
    """Both rules' precision and recall on the labelled pairs; None without a pair."""
    if not pairs:
        return None
    graphiti_points = precision_recall((graphiti_score(p.name_a, p.name_b), p.same) for p in pairs)
    score_points = precision_recall((p.signals.score, p.same) for p in pairs)
    return OperatingPoints(tuple(pairs), {"graphiti": tuple(graphiti_points), "score": tuple(score_points)})


def graphiti_setting(threshold: float) -> str:
    """The code a team runs before ingesting, so graphiti auto-merges at the chosen operating point."""
    return (
        "from graphiti_core.utils.maintenance import dedup_helpers\n\n"
        f"# merge two entity names without the LLM when their shingle Jaccard reaches {threshold:.2f} "
        f"(graphiti's default: {GRAPHITI_DEFAULT})\n"
        f"dedup_helpers._FUZZY_JACCARD_THRESHOLD = {threshold:.2f}\n"
    )


async def labelled_points(lab: Lab, group_id: str, bundled: Sequence[LabelledPair] = ()) -> OperatingPoints | None:
    """Both rules' points on the deal's labels: `bundled` ones (the demo's) and every pair decided on the deal, a
    decision made here outranking a bundled label of the same two names; None without a label."""
    pairs = {frozenset((p.name_a, p.name_b)): p for p in bundled}
    for p in await reviewed_pairs(lab, group_id):
        pairs[frozenset((p.name_a, p.name_b))] = p
    return operating_points(list(pairs.values()))


async def reviewed_pairs(lab: Lab, group_id: str) -> list[LabelledPair]:
    """Every pair an admin decided on the deal: its recorded merges (one entity) and rejected pairs (two), scored."""
    decided = [(m.alias_uuid, m.canonical_uuid, True) for m in await read_merge_records(lab.backend, group_id)]
    decided += [(r.uuid_a, r.uuid_b, False) for r in rejections(lab.store, group_id)]
    rows = {u: await lab.backend.cypher.entity_in_deal(group_id, u) for u in {u for a, b, _ in decided for u in (a, b)}}
    out = []
    for a, b, same in decided:
        row_a, row_b = rows[a], rows[b]
        if row_a is None or row_b is None:
            continue  # an entity no longer in the graph: its pair cannot be scored
        signals = score_pair(row_a["name"], row_b["name"], row_a.get("vector"), row_b.get("vector"))
        out.append(LabelledPair(row_a["name"], row_b["name"], same, same, signals))
    return out
