"""The one place that touches graphiti-core's private (`_`-prefixed) API.

graphiti-core is pinned (pyproject.toml); when an upgrade renames or changes one of these, this module is the
only thing to mend. Everything else uses graphiti's public models, search utilities and client classes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.driver.neo4j_driver import Neo4jDriver, _Neo4jTransaction
from graphiti_core.driver.query_executor import Transaction
from graphiti_core.utils.maintenance.dedup_helpers import (
    _FUZZY_JACCARD_THRESHOLD,
    _cached_shingles,
    _has_high_entropy,
    _jaccard_similarity,
    _lsh_bands,
    _minhash_signature,
    _normalize_name_for_fuzzy,
    _normalize_string_exact,
)
from neo4j import READ_ACCESS, RoutingControl

from pipeline.errors import ReadOnly

# graphiti's deterministic entity-resolution helpers, under public names
normalize_exact = _normalize_string_exact  # lowercase, collapsed whitespace: graphiti's exact-match key
normalize_fuzzy = _normalize_name_for_fuzzy  # alphanumerics only: the form graphiti shingles
shingles = _cached_shingles  # 3-character shingles of the fuzzy form
jaccard = _jaccard_similarity
minhash_signature = _minhash_signature
lsh_bands = _lsh_bands
high_entropy = _has_high_entropy  # the gate before graphiti's fuzzy match: short or repetitive names go to its LLM
FUZZY_THRESHOLD = _FUZZY_JACCARD_THRESHOLD  # shingle Jaccard at which graphiti merges two names without its LLM


def skip_index_creation(driver: GraphDriver) -> GraphDriver:
    """graphiti schedules index creation on every new driver; we build indexes explicitly when a deal is
    written, so reading a deal never creates a graph or races a shutdown."""
    task = getattr(driver, "_init_task", None)
    if task is not None:
        task.cancel()
    return driver


# --- read-only drivers: the database itself refuses every write -------------------------------------------------

INDEX_REFUSED = "Read-only: index creation is off for a graph attached read-only."


class ReadOnlyFalkorDriver(FalkorDriver):
    """graphiti's FalkorDriver whose every query is a `GRAPH.RO_QUERY`: graphiti's searches, its models'
    reads and our dialect's statements alike; FalkorDB refuses any write in one. No index is ever built."""

    def __init__(self, falkor_db: Any, database: str) -> None:
        super().__init__(falkor_db=falkor_db, database=database)
        skip_index_creation(self)

    def _get_graph(self, graph_name: str | None) -> Any:
        graph = super()._get_graph(graph_name)
        graph.query = graph.ro_query  # graphiti's execute_query and sessions call `graph.query`
        return graph

    def clone(self, database: str) -> GraphDriver:
        return self if database == self._database else ReadOnlyFalkorDriver(self.client, database)

    async def build_indices_and_constraints(self, delete_existing: bool = False) -> None:
        raise ReadOnly(INDEX_REFUSED)


class ReadOnlyNeo4jDriver(Neo4jDriver):
    """graphiti's Neo4jDriver on the same connection as `root`, running every query in a read transaction
    (`routing_=READ`, sessions in read access mode): Neo4j refuses any write in one. No index is ever built."""

    def __init__(self, root: Neo4jDriver) -> None:  # no super().__init__: it would open a second connection
        self.__dict__.update(root.__dict__)
        self._init_task = None

    async def execute_query(self, cypher_query_: Any, **kwargs: Any) -> Any:
        kwargs["routing_"] = RoutingControl.READ
        return await super().execute_query(cypher_query_, **kwargs)

    def session(self, database: str | None = None) -> Any:
        return self.client.session(database=database or self._database, default_access_mode=READ_ACCESS)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self.client.session(database=self._database, default_access_mode=READ_ACCESS) as session:
            tx = await session.begin_transaction()
            try:
                yield _Neo4jTransaction(tx)
                await tx.commit()
            except BaseException:
                await tx.rollback()
                raise

    async def build_indices_and_constraints(self, delete_existing: bool = False) -> None:
        raise ReadOnly(INDEX_REFUSED)

    async def close(self) -> None:
        """The connection belongs to the root driver, which closes it."""
