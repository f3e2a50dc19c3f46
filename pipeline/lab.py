"""A `Lab` bundles what every command needs: settings, the graph backend, the embedder."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.embedders import LabEmbedder, make_embedder
from pipeline.graph.backend import GraphBackend, connect
from pipeline.graph.deals import DealInfo, list_deals, require_deal
from pipeline.settings import Settings, get_settings
from pipeline.store import Store, open_store


@dataclass
class Lab:
    settings: Settings
    backend: GraphBackend
    embedder: LabEmbedder

    @classmethod
    async def open(cls, settings: Settings | None = None) -> Lab:
        settings = settings or get_settings()
        backend = await connect(settings)
        return cls(settings=settings, backend=backend, embedder=make_embedder(settings))

    @property
    def store(self) -> Store:
        """The SQLite store (audit log, runs, verdicts) in the data directory."""
        return open_store(self.settings.resolved_data_dir)

    async def deal(self, group_id: str) -> DealInfo:
        """The deal, checked: it exists and was built with the configured embedder."""
        return await require_deal(self.backend, group_id, self.embedder.info, self.settings.allowed_deals)

    async def deals(self) -> list[DealInfo]:
        """The deals this deployment may show."""
        return await list_deals(self.backend, self.settings.allowed_deals)

    async def recover(self) -> str | None:
        """If the backend stopped answering, reconnect (restarting the embedded server, whose append-only
        file keeps everything acknowledged). Returns what happened, None when all was well; raises
        BackendUnavailable when the backend cannot be brought back."""
        problem = await self.backend.health()
        if problem is None:
            return None
        read_only_groups = self.backend.read_only_groups
        await self.backend.close()
        self.backend = await connect(self.settings)
        self.backend.read_only_groups |= read_only_groups  # per-deal settings outlive a reconnect
        return f"{problem}; reconnected to {self.backend.label}"

    async def close(self) -> None:
        await self.backend.close()
