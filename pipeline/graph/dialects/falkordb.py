"""FalkorDB's dialect: what it spells differently from the openCypher in `common.py` (vectors are `vecf32`)."""

from __future__ import annotations

from pipeline.graph.dialects.common import GraphQueries


class FalkorQueries(GraphQueries):
    pass
