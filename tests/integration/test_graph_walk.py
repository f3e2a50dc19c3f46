"""The first stage's graph walk returns graphiti's BFS list, edge for edge and in order, on the real FalkorDB.

Random graphs with what makes graphiti's statement slow and its order subtle: hub entities, cycles,
parallel facts between the same two entities, self-loops, and superseded facts the walk passes through but
does not return. graphiti's own `edge_bfs_search` is the oracle.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from graphiti_core.search.search_utils import edge_bfs_search

from pipeline.graph.dialects.falkordb_walk import walk_bfs_search
from pipeline.graph.dialects.walk_order import walk_order
from pipeline.lab import Lab
from pipeline.retrieval.filters import temporal_filter

GROUP = "walk_parity"
AS_OF = datetime(2024, 6, 1, tzinfo=UTC)

CREATE_NODES = "UNWIND $rows AS r CREATE (:Entity {uuid: r.uuid, name: r.name, group_id: $g})"
CREATE_EDGES = """
    UNWIND $rows AS r
    MATCH (a:Entity {uuid: r.a}), (b:Entity {uuid: r.b})
    CREATE (a)-[:RELATES_TO {uuid: r.uuid, group_id: $g, name: 'REL', fact: r.fact, episodes: [],
        created_at: '2024-01-01T00:00:00Z', valid_at: r.valid_at, invalid_at: r.invalid_at}]->(b)
    """


def _graph(seed: int) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    nodes = [{"uuid": f"n{seed}-{i}", "name": f"entity {i}"} for i in range(30)]
    hubs = [0, 1, 2]
    edges = []
    for _ in range(110):
        a = rng.choice(hubs) if rng.random() < 0.35 else rng.randrange(30)
        b = rng.choice(hubs) if rng.random() < 0.35 else rng.randrange(30)
        if rng.random() < 0.03:
            b = a  # a self-loop
        for _ in range(1 + (rng.random() < 0.15) * rng.randrange(1, 4)):  # sometimes parallel facts
            k = len(edges)
            superseded = rng.random() < 0.4
            edges.append(
                {
                    "uuid": f"e{seed}-{k}",
                    "a": f"n{seed}-{a}",
                    "b": f"n{seed}-{b}",
                    "fact": f"fact {k}",
                    "valid_at": "2023-01-01T00:00:00Z" if rng.random() < 0.5 else "2025-01-01T00:00:00Z",
                    "invalid_at": "2024-03-01T00:00:00Z" if superseded else None,
                }
            )
    rng.shuffle(edges)  # creation order decides internal ids, and so FalkorDB's traversal order
    return nodes, edges


@pytest.fixture(scope="module")
async def walk_graphs(lab: Lab) -> dict[int, list[str]]:
    """Three seeded random graphs in one deal-less graph; seed -> node uuids."""
    made = {}
    for seed in (1, 2, 3):
        nodes, edges = _graph(seed)
        await lab.backend.query(GROUP, CREATE_NODES, rows=nodes, g=GROUP)
        await lab.backend.query(GROUP, CREATE_EDGES, rows=edges, g=GROUP)
        made[seed] = [n["uuid"] for n in nodes]
    return made


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("limit", [5, 40, 400])
async def test_the_walk_returns_graphitis_bfs_list(lab: Lab, walk_graphs: dict[int, list[str]], seed: int, limit: int):
    driver = lab.backend.driver(GROUP)
    rng = random.Random(seed * 1000 + limit)
    uuids = walk_graphs[seed]
    checked = 0
    for origins in ([uuids[0]], [uuids[5], uuids[0], uuids[5]], rng.sample(uuids, 6), ["no-such-node", uuids[3]]):
        for search_filter in (temporal_filter(False, None), temporal_filter(True, None), temporal_filter(False, AS_OF)):
            for depth in (1, 2, 3):
                stock = await edge_bfs_search(driver, origins, depth, search_filter, [GROUP], limit)
                ours = await walk_bfs_search(driver, origins, depth, search_filter, [GROUP], limit)
                assert [e.uuid for e in ours] == [e.uuid for e in stock], (origins, depth, limit)
                assert [(e.fact, e.source_node_uuid, e.target_node_uuid, e.invalid_at) for e in ours] == [
                    (e.fact, e.source_node_uuid, e.target_node_uuid, e.invalid_at) for e in stock
                ]
                checked += bool(stock)
    assert checked >= 20  # the walks really returned facts


async def test_no_origin_or_no_room_returns_nothing(lab: Lab, walk_graphs: dict[int, list[str]]) -> None:
    driver = lab.backend.driver(GROUP)
    everything = temporal_filter(True, None)
    assert await walk_bfs_search(driver, [], 3, everything, [GROUP], 10) == []
    assert await walk_bfs_search(driver, [walk_graphs[1][0]], 3, everything, [GROUP], 0) == []
    assert await walk_bfs_search(driver, [walk_graphs[1][0]], 3, everything, ["another_group"], 10) == []


def test_walk_order_skips_only_steps_that_cannot_reach_the_origin() -> None:
    # 1 -> 2 -> 3 -> 1 is a cycle; 4 -> 2 never leads back to origin 1; 2 has two parallel edges to 3
    adjacency = {1: [(10, 2)], 2: [(11, 3), (12, 3)], 3: [(13, 1)], 4: [(14, 2)]}
    order = list(walk_order([1], adjacency, 3))
    # ends in id order: 1 (the cycle, both parallel edges, last pushed first), then 2, then 3
    assert order == [10, 12, 13, 10, 11, 13, 10, 10, 12, 10, 11]
    assert 14 not in order
