"""Neo4j's dialect: what it spells differently from the openCypher in `common.py` (vectors are plain lists)."""

from __future__ import annotations

from pipeline.graph.dialects.common import GraphQueries


class Neo4jQueries(GraphQueries):
    pass
