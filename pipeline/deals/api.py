"""The deals' counts and summaries as the pages, the CLI and the benchmarks use them: `lab.deal_book` (named so
beside the Lab's own `deal()` and `deals()`, which check and list the deals). The values it hands out are in
`pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.deals import discovery, embedder_match, summary
from pipeline.deals.records import DealCounts, DealInfo

if TYPE_CHECKING:
    from pipeline.lab import Lab


class DealBook:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    async def counts(self, group_id: str) -> DealCounts:
        """The deal's node and fact counts, read from the graph (discovery.py)."""
        return await discovery.deal_counts(self.lab.backend, group_id)

    async def get(self, group_id: str) -> DealInfo | None:
        """The deal, or None when the group holds no graphiti node; unchecked, unlike `lab.deal` (discovery.py)."""
        return await discovery.get_deal(self.lab.backend, self.lab.store, group_id)

    async def summaries(self) -> list[summary.DealSummary]:
        """One row per deal this deployment may show, for `deals`, `status` and the Deals page (summary.py)."""
        lab = self.lab
        return await summary.deal_summaries(lab.backend, lab.store, lab.embedder.info, lab.settings.allowed_deals)

    format_table = staticmethod(summary.format_table)
    match_label = staticmethod(embedder_match.match_label)
