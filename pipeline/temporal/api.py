"""The facts over time as the Timeline page uses it: `lab.temporal`. Each call reads the deal's graph through the
lab; the values it hands out are in `pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pipeline.temporal import invalidations, neighbourhood, timeline
from pipeline.temporal.neighbourhood import NEIGHBOURHOOD_FACTS
from pipeline.temporal.records import (
    AsOfAnswer,
    CandidateShare,
    EntityMatch,
    FactRow,
    FactSelection,
    InvalidationAudit,
    Neighbourhood,
    Supersession,
    SupersessionCounts,
    Timeline,
)
from pipeline.temporal.timeline import QUERY_CANDIDATES

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Temporal:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- reading the deal's facts (timeline.py) ---

    async def load_facts(self, group_id: str) -> list[FactRow]:
        """Every fact of the deal (no embeddings), with its channel and citation line."""
        return await timeline.load_facts(self.lab, group_id)

    async def search_entities(self, group_id: str, text: str, limit: int = 50) -> list[EntityMatch]:
        """Entities whose name contains `text`, those with most facts first."""
        return await timeline.search_entities(self.lab, group_id, text, limit)

    async def relation_names(self, group_id: str) -> list[tuple[str, int]]:
        return await timeline.relation_names(self.lab, group_id)

    async def timeline(
        self, group_id: str, selection: FactSelection, facts: Sequence[FactRow] | None = None
    ) -> Timeline:
        """The selection's facts with their whole supersession chains."""
        return await timeline.timeline(self.lab, group_id, selection, facts)

    async def as_of(
        self, group_id: str, selection: FactSelection, when: datetime, facts: Sequence[FactRow] | None = None
    ) -> AsOfAnswer:
        """What was true on `when` for the selection, and how it changed since."""
        return await timeline.as_of(self.lab, group_id, selection, when, facts)

    async def supersession_report(
        self, group_id: str, facts: Sequence[FactRow] | None = None
    ) -> tuple[list[Supersession], SupersessionCounts]:
        return await timeline.supersession_report(self.lab, group_id, facts)

    async def superseded_candidate_share(
        self, group_id: str, candidates: int = QUERY_CANDIDATES, top_k: int = 10
    ) -> CandidateShare | None:
        """Share of first-stage candidates that are superseded when they are not filtered out."""
        return await timeline.superseded_candidate_share(self.lab, group_id, candidates, top_k)

    # --- a fact's or an entity's neighbourhood (neighbourhood.py) ---

    async def neighbourhood(
        self, group_id: str, uuid: str, facts: Sequence[FactRow] | None = None, limit: int = NEIGHBOURHOOD_FACTS
    ) -> Neighbourhood:
        """The fact or entity `uuid` with what surrounds it: entities, facts current and superseded, the fact's
        supersession chain and citing episodes (`facts`: the deal's facts, if already loaded)."""
        facts = await timeline.deal_facts(self.lab, group_id, facts)
        return await neighbourhood.neighbourhood(self.lab, group_id, uuid, facts, limit)

    async def default_focus(self, group_id: str, facts: Sequence[FactRow] | None = None) -> str | None:
        """The fact or entity the evidence view opens on: the newest fact that replaced another, else the entity
        with most facts."""
        return neighbourhood.default_focus(await timeline.deal_facts(self.lab, group_id, facts))

    # --- the invalidation audit (invalidations.py) ---

    async def invalidation_audit(self, group_id: str, facts: Sequence[FactRow] | None = None) -> InvalidationAudit:
        """Every fact a write retired, with the fact that most likely retired it and the warning signs of a
        collateral retirement, the most suspicious first."""
        facts = await timeline.deal_facts(self.lab, group_id, facts)
        return await invalidations.invalidation_audit(self.lab, group_id, facts)
