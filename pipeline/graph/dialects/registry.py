"""Which dialect speaks for a backend or a graphiti driver, and every statement a dialect can send."""

from __future__ import annotations

from graphiti_core.driver.driver import GraphDriver, GraphProvider

from pipeline.graph.dialects.common import GraphQueries
from pipeline.graph.dialects.connection import GraphConnection
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.graph.dialects.neo4j import Neo4jQueries

DIALECTS: dict[str, type[GraphQueries]] = {"falkordb": FalkorQueries, "neo4j": Neo4jQueries}


def queries_for(backend: GraphConnection) -> GraphQueries:
    return DIALECTS[backend.kind](backend)


def for_driver(driver: GraphDriver) -> type[GraphQueries]:
    """The dialect of one deal's graphiti driver (its search operations are class methods)."""
    return DIALECTS["falkordb" if driver.provider == GraphProvider.FALKORDB else "neo4j"]


def statements(dialect: type[GraphQueries]) -> dict[str, str]:
    """Every statement a dialect can send, by name (the linter's input)."""
    return {name: value for name in dir(dialect) if name.isupper() and isinstance(value := getattr(dialect, name), str)}


__all__ = ["DIALECTS", "for_driver", "queries_for", "statements"]
