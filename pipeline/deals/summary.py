"""One row per deal, as `python -m pipeline deals`, `status` and the Deals & data page show it: counts,
stored vector dimension, whether the configured embedder fits (or the setting to use), read-only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.deals.discovery import deal_counts, list_deals
from pipeline.deals.embedder_match import match_label
from pipeline.deals.records import DealCounts, DealInfo
from pipeline.embedders.base import EmbedderInfo
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store

TABLE_HEADER = (
    "deal",
    "name",
    "source",
    "facts (current/superseded)",
    "entities",
    "episodes",
    "merges",
    "vector dim",
    "embedder match",
    "read-only",
)


@dataclass(frozen=True)
class DealSummary:
    deal: DealInfo
    counts: DealCounts
    embedder_match: str  # "yes" or "no: RETRIEVAL_LAB_EMBEDDER=<value>"

    def row(self) -> dict[str, Any]:
        d = self.deal
        return {
            "group": d.group_id,
            "name": d.name,
            "source": d.source,
            **self.counts.__dict__,
            "vector_dim": d.embedder_dim,
            "embedder": d.embedder_model,
            "embedder_match": self.embedder_match,
            "read_only": d.read_only,
            "created_at": d.created_at,
            "import": d.import_note,  # None for a complete deal
        }


async def deal_summaries(
    backend: GraphBackend, store: Store, embedder: EmbedderInfo, allowed: list[str] | None = None
) -> list[DealSummary]:
    return [
        DealSummary(deal, await deal_counts(backend, deal.group_id), match_label(deal, embedder))
        for deal in await list_deals(backend, store, allowed)
    ]


def format_table(rows: list[dict[str, Any]]) -> str:
    """A plain-text table: deal, name, source, facts (current/superseded), entities, episodes, merges,
    vector dim, embedder match, read-only; then one line per deal whose import is not complete."""
    header = TABLE_HEADER
    lines = [header] + [
        (
            r["group"],
            r["name"],
            r["source"],
            f"{r['facts']} ({r['current_facts']}/{r['superseded_facts']})",
            str(r["entities"]),
            str(r["episodes"]),
            str(r["merges"]),
            str(r["vector_dim"] or "-"),
            r["embedder_match"],
            "yes" if r["read_only"] else "no",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    table = [("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()) for line in lines]
    notes = [f"{r['group']}: {r['import']}" for r in rows if r.get("import")]
    return "\n".join([*table, *notes])
