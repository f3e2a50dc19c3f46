"""What a dialect needs of the backend it speaks for, and the base of the classes whose statements run on it.

The backend builds its dialect (`GraphBackend.cypher`, from `registry.queries_for`), so the dialects never import
the backend: they take any `GraphConnection`, which `GraphBackend` is.
"""

from __future__ import annotations

from typing import Any, Protocol


class GraphConnection(Protocol):
    """The part of `pipeline.graph.backend.GraphBackend` the statements use."""

    graphs: dict[str, str]  # FalkorDB: group_id -> the graph discovery found it in (the dialect records it)

    @property
    def kind(self) -> str: ...  # the dialect's name: "falkordb" or "neo4j"

    def require_writable(self, group_id: str | None, action: str = ...) -> None: ...

    def graph_of(self, group_id: str) -> str: ...

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]: ...

    async def read_graph(self, graph: str, cypher: str, **params: Any) -> list[dict[str, Any]]: ...

    async def graph_names(self) -> list[str]: ...


class BackendQueries:
    """Statements run on one deal through the backend: reads, and writes checked against read-only first."""

    def __init__(self, backend: GraphConnection) -> None:
        self._backend = backend

    async def _rows(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """A read: on a read-only deal the driver runs it as a read, which the database enforces."""
        return await self._backend.query(group_id, cypher, **params)

    async def _write(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """A write: refused with one line (ReadOnly) on a read-only deal before it reaches the database."""
        self._backend.require_writable(group_id)
        return await self._backend.query(group_id, cypher, **params)
