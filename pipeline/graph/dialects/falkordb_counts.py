"""The two statements the embedded server's supervisor runs to count a graph at a clean stop and after a
load (pipeline/graph/embedded/persistence.py): it speaks to redis-server directly, without a backend."""

from __future__ import annotations


class FalkorCounts:
    NODE_COUNT = "MATCH (n) RETURN count(n)"
    EDGE_COUNT = "MATCH ()-[r]->() RETURN count(r)"
