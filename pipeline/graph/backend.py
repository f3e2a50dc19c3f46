"""One function gives the graph backend: the embedded FalkorDB by default, Neo4j when NEO4J_URI is set.

Both are graphiti `GraphDriver`s; everything above this module uses graphiti's drivers and models and
does not care which database it talks to. One deal = one `group_id`: in FalkorDB that is also the
graph's name (graphiti requires it), in Neo4j a property on every node and edge.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Literal

from falkordb.asyncio import FalkorDB
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver

from pipeline.errors import BackendUnavailable
from pipeline.graph.dialects import GraphQueries, queries_for
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.graph.graphiti_compat import skip_index_creation
from pipeline.settings import Settings
from pipeline.text import clip, one_line


@dataclass
class GraphBackend:
    kind: Literal["falkordb", "neo4j"]
    location: str
    falkor: FalkorDB | None = None  # the embedded server's client; graphs are selected per deal
    neo4j: GraphDriver | None = None
    embedded: EmbeddedFalkorDB | None = None
    read_only_groups: set[str] = field(default_factory=set)  # deals set read-only (the store's flag)
    _drivers: dict[str, GraphDriver] = field(default_factory=dict, repr=False)
    cypher: GraphQueries = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.cypher = queries_for(self)  # every statement of ours, in this backend's dialect

    @property
    def label(self) -> str:
        return "embedded FalkorDB" if self.embedded else "Neo4j"

    def driver(self, group_id: str) -> GraphDriver:
        """The driver that reads and writes one deal."""
        if self.neo4j is not None:
            return self.neo4j
        if group_id not in self._drivers:
            self._drivers[group_id] = skip_index_creation(FalkorDriver(falkor_db=self.falkor, database=group_id))
        return self._drivers[group_id]

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run parameterised Cypher against one deal; user text only ever travels in `params`."""
        result = await self.driver(group_id).execute_query(cypher, **params)
        if not result:
            return []
        records = result[0]
        return [dict(r) for r in records]

    async def graph_names(self) -> list[str]:
        """FalkorDB graphs (one per deal); Neo4j keeps all deals in one database."""
        if self.falkor is None:
            return []
        return list(await self.falkor.list_graphs())

    async def delete_graph(self, group_id: str) -> None:
        if self.falkor is not None:
            if group_id in await self.graph_names():
                await self.falkor.select_graph(group_id).delete()
            self._drivers.pop(group_id, None)
        else:
            await self.cypher.delete_deal(group_id)

    async def compact(self) -> None:
        """After a bulk write, rewrite the append-only file (RDB preamble) so a restart loads it fast."""
        if self.falkor is not None:
            with contextlib.suppress(Exception):  # a rewrite already running is fine
                await self.falkor.connection.execute_command("BGREWRITEAOF")

    async def health(self) -> str | None:
        """None when the backend answers, else a one-line reason."""
        try:
            if self.falkor is not None:
                await asyncio.wait_for(self.falkor.connection.ping(), timeout=2)
            elif self.neo4j is not None:
                await asyncio.wait_for(self.neo4j.client.verify_connectivity(), timeout=5)
        except Exception as exc:
            return f"{self.label} at {self.location}: {_reason(exc)}"
        return None

    async def close(self) -> None:
        self._drivers.clear()
        if self.neo4j is not None:
            await _close_quietly(self.neo4j)
        if self.falkor is not None:
            with contextlib.suppress(Exception):  # closing a dead connection must not mask the real error
                await self.falkor.connection.aclose()


async def _close_quietly(driver: GraphDriver) -> None:
    with contextlib.suppress(Exception):  # closing a dead connection must not mask the real error
        await driver.close()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "no answer (timed out)"
    return clip(one_line(exc) or type(exc).__name__, 240, "...")


async def connect(settings: Settings) -> GraphBackend:
    """Start or reach the configured backend; raise BackendUnavailable with one clear line if not."""
    if settings.graph_backend == "neo4j":
        return await _connect_neo4j(settings)
    return await _connect_embedded(settings)


async def _connect_embedded(settings: Settings) -> GraphBackend:
    server = EmbeddedFalkorDB(settings.resolved_data_dir)
    await asyncio.to_thread(server.ensure_running)
    client = FalkorDB(unix_socket_path=str(server.socket_path), socket_connect_timeout=settings.connect_timeout_s)
    backend = GraphBackend(kind="falkordb", location=server.uri, falkor=client, embedded=server)
    problem = await backend.health()
    if problem:
        await backend.close()
        raise BackendUnavailable(problem)
    return backend


async def _connect_neo4j(settings: Settings) -> GraphBackend:
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    uri = settings.neo4j_uri or ""
    try:
        root = skip_index_creation(Neo4jDriver(uri, settings.neo4j_user, password, database=settings.neo4j_database))
    except Exception as exc:  # malformed URI and the like
        raise BackendUnavailable(f"Neo4j at {uri}: {_reason(exc)}") from None
    backend = GraphBackend(kind="neo4j", location=uri, neo4j=root)
    try:
        await asyncio.wait_for(root.client.verify_connectivity(), timeout=settings.connect_timeout_s)
    except Exception as exc:
        await backend.close()
        raise BackendUnavailable(f"Neo4j at {uri}: {_reason(exc)}") from None
    return backend
