"""Every Cypher statement Retrieval Lab writes itself, one module per graph dialect.

Like graphiti's `driver/operations/` with `driver/falkordb/operations/`: one query interface
(`common.GraphQueries`, openCypher that both databases run) and one subclass per backend that overrides only
what its dialect spells differently (`falkordb.FalkorQueries`, `neo4j.Neo4jQueries`). Features call
`backend.cypher.<operation>(...)`; retrieval, which holds one deal's graphiti driver, calls the dialect's search
operations, graphiti's `SearchInterface` (`for_driver(driver).edge_fulltext_search(driver, ...)`). No Cypher is
written anywhere else (graphiti's own queries are graphiti's).
Statements are upper-case `str` class attributes, so a test can list and lint every one a dialect can send.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphiti_core.driver.driver import GraphDriver, GraphProvider

from pipeline.graph.dialects.common import GraphQueries
from pipeline.graph.dialects.falkordb import FalkorQueries
from pipeline.graph.dialects.neo4j import Neo4jQueries

if TYPE_CHECKING:
    from pipeline.graph.backend import GraphBackend

DIALECTS: dict[str, type[GraphQueries]] = {"falkordb": FalkorQueries, "neo4j": Neo4jQueries}


def queries_for(backend: GraphBackend) -> GraphQueries:
    return DIALECTS[backend.kind](backend)


def for_driver(driver: GraphDriver) -> type[GraphQueries]:
    """The dialect of one deal's graphiti driver (its search operations are class methods)."""
    return DIALECTS["falkordb" if driver.provider == GraphProvider.FALKORDB else "neo4j"]


def statements(dialect: type[GraphQueries]) -> dict[str, str]:
    """Every statement a dialect can send, by name (the linter's input)."""
    return {name: value for name in dir(dialect) if name.isupper() and isinstance(value := getattr(dialect, name), str)}


__all__ = ["DIALECTS", "FalkorQueries", "GraphQueries", "Neo4jQueries", "for_driver", "queries_for", "statements"]
