"""FalkorDB's dialect: what it spells differently from the openCypher in `common.py` (vectors are `vecf32`).

One graph per group_id: the deals operations look across graphs (listed by the backend) instead of in one
database, and never query a graph that does not exist (a query would create it).
"""

from __future__ import annotations

from typing import Any

from pipeline.graph.dialects.common import GraphQueries
from pipeline.graph.group_id import GROUP_ID_PATTERN


class FalkorQueries(GraphQueries):
    async def _graphs(self) -> list[str]:
        return sorted(n for n in await self._backend.graph_names() if GROUP_ID_PATTERN.fullmatch(n))

    async def group_ids(self) -> list[str]:
        return [g for g in await self._graphs() if await GraphQueries.holds_group(self, g)]

    async def holds_group(self, group_id: str) -> bool:
        return group_id in await self._backend.graph_names() and await super().holds_group(group_id)

    async def legacy_deals(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for graph in await self._graphs():
            for row in await self._rows(graph, self.LEGACY_DEALS):
                if row["g"] == graph:
                    found[graph] = row["props"]
        return found
