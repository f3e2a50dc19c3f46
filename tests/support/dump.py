"""A canonical dump of one deal's graph (every node and relationship with all properties).

Two dumps compare equal exactly when the deal is the same, so tests prove that an undo restores
the graph as it was.
"""

from __future__ import annotations

import json
from typing import Any

from pipeline.graph.backend import GraphBackend


def _row(value: Any) -> str:
    """One row as canonical JSON text (keys sorted, non-JSON values as their `str`): equal rows, equal text."""
    return json.dumps(value, sort_keys=True, default=str)


async def dump_deal(backend: GraphBackend, group_id: str) -> dict[str, list[Any]]:
    nodes = await backend.cypher.dump_nodes(group_id)
    rels = await backend.cypher.dump_relations(group_id)
    node_rows = sorted(_row({"labels": sorted(r["labels"]), "props": r["props"]}) for r in nodes)
    rel_rows = sorted(_row(r) for r in rels)
    return {"nodes": [json.loads(n) for n in node_rows], "relationships": [json.loads(r) for r in rel_rows]}
