"""Entity merges as the Merges page and the audit log use them: `lab.merges`. The values it hands out are in
`pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pipeline.merges import actions, candidates, operating, records, repo
from pipeline.merges.candidates import CandidateReport, EntityRef
from pipeline.merges.labelled import LabelledPair
from pipeline.merges.records import MergeView
from pipeline.merges.repo import Rejection
from pipeline.merges.scoring import PairSignals

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Merges:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab  # `rejected_pairs` and `undone_merges` use only its store: a store-only holder will do

    # --- what there is to merge (candidates.py, records.py) ---

    async def list_entities(self, group_id: str) -> list[EntityRef]:
        """Every entity of the deal (up to MAX_ENTITIES), by name."""
        return await candidates.list_entities(self.lab, group_id)

    async def find_candidates(
        self,
        group_id: str,
        min_score: float = candidates.MIN_CANDIDATE_SCORE,
        limit: int = candidates.MAX_CANDIDATES,
    ) -> CandidateReport:
        """Pairs that look like the same entity, best first."""
        return await candidates.find_candidates(self.lab, group_id, min_score, limit)

    async def shared_neighbours(
        self, group_id: str, pairs: list[candidates.CandidatePair]
    ) -> dict[tuple[str, str], int]:
        """(canonical uuid, alias uuid) -> the entities a fact links to both, for each candidate pair."""
        return await candidates.shared_neighbours(self.lab, group_id, pairs)

    async def reviewed_pairs(self, group_id: str) -> list[LabelledPair]:
        """Every pair an admin decided on the deal (a recorded merge: one entity; a rejection: two), scored."""
        return await operating.reviewed_pairs(self.lab, group_id)

    async def operating_points(
        self, group_id: str, bundled: Sequence[LabelledPair] = ()
    ) -> operating.OperatingPoints | None:
        """Precision and recall of graphiti's deterministic merge and of the score on the deal's labels (`bundled`
        ones, and every pair decided here); None without a label."""
        return await operating.labelled_points(self.lab, group_id, bundled)

    graphiti_setting = staticmethod(operating.graphiti_setting)

    async def score_entities(self, group_id: str, uuid_a: str, uuid_b: str) -> PairSignals:
        """The signals of a pair the admin picked."""
        return await actions.score_entities(self.lab, group_id, uuid_a, uuid_b)

    async def list_merges(self, group_id: str, search: str = "") -> list[MergeView]:
        return await records.list_merges(self.lab, group_id, search)

    # --- merging, rejecting, undoing (actions.py) ---

    async def merge_entities(
        self, group_id: str, alias_uuid: str, canonical_uuid: str, actor: str | None, score: float | None = None
    ) -> records.MergeRecord:
        """Merge `alias` into `canonical`, audited."""
        return await actions.merge_entities(self.lab, group_id, alias_uuid, canonical_uuid, actor, score)

    async def undo_merge(self, group_id: str, merge_uuid: str, actor: str | None) -> actions.UndoResult:
        return await actions.undo_merge(self.lab, group_id, merge_uuid, actor)

    async def reject_pair(self, group_id: str, uuid_a: str, uuid_b: str, actor: str | None) -> Rejection:
        return await actions.reject_pair(self.lab, group_id, uuid_a, uuid_b, actor)

    def rejected_pairs(self, group_id: str) -> list[Rejection]:
        return repo.rejections(self.lab.store, group_id)

    def undone_merges(self, group_id: str) -> list[dict[str, Any]]:
        """The deal's undone merges, newest first."""
        return repo.undone_merges(self.lab.store, group_id)
