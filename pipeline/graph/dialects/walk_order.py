"""The order in which graphiti's BFS statement returns edges on FalkorDB, without its exhaustive path search.

graphiti's statement is `UNWIND $origins AS origin_uuid MATCH path = (origin {uuid: origin_uuid})
-[:RELATES_TO|MENTIONS*1..depth]->(:Entity) UNWIND relationships(path) ... RETURN DISTINCT ... LIMIT`.
FalkorDB (4.16, `GRAPH.EXPLAIN`) plans it from the labelled end: for each origin in turn, a label scan of
every Entity `x` (ascending internal id), from each a variable-length traversal along incoming edges
(`src/algorithms/all_paths.c`: depth first, a node's edges pushed in adjacency order, source id then edge id,
and popped last first; a node already on the path is not expanded again, even one a self-loop led back to
(later FalkorDB releases do expand that one: tests/integration/test_graph_walk.py would notice); the edge it
came by is never followed back), and a filter keeping the paths whose far end is the origin. Each kept path
yields its edges origin first; DISTINCT keeps first occurrences. So every origin costs a walk from every
entity, and on hubs and cycles the walks grow exponentially.

`walk_order` replays the same sequence from the facts around the origins: only the entities within `depth`
hops of the origin can end a kept path, and a step to a node that cannot reach the origin in the hops left
(forward distance from the origin) can lead to no kept path, so it is skipped without changing the sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

Adjacency = Mapping[int, Sequence[tuple[int, int]]]  # node id -> its outgoing (edge id, target id)


def distances(origin: int, adjacency: Adjacency, max_hops: int) -> dict[int, int]:
    """Forward hops from `origin` to every node within `max_hops` (the origin itself at 0)."""
    dist = {origin: 0}
    frontier = [origin]
    for hops in range(1, max_hops + 1):
        reached = []
        for node in frontier:
            for _, target in adjacency.get(node, ()):
                if target not in dist:
                    dist[target] = hops
                    reached.append(target)
        frontier = reached
    return dist


def incoming(adjacency: Adjacency) -> dict[int, list[tuple[int, int]]]:
    """node id -> its incoming (edge id, source id) in FalkorDB's adjacency order: source id, then edge id."""
    into: dict[int, list[tuple[int, int]]] = {}
    for source, edges in adjacency.items():
        for edge, target in edges:
            into.setdefault(target, []).append((edge, source))
    for edges in into.values():
        edges.sort(key=lambda pair: (pair[1], pair[0]))
    return into


def _paths_into(
    end: int, origin: int, into: Mapping[int, Sequence[tuple[int, int]]], dist: Mapping[int, int], max_hops: int
) -> Iterator[int]:
    """all_paths.c from `end` along incoming edges, up to `max_hops`; the edges (origin first) of each path whose
    far end is `origin`, in the order the traversal returns them."""
    max_len = max_hops + 1  # all_paths.c counts nodes
    far = max_hops + 1
    levels: list[list[tuple[int, int]]] = [[(end, -1)]]  # (node, edge followed to it)
    path: list[int] = []
    edges: list[int] = []
    while path or levels[0]:
        depth = len(path)
        if depth < len(levels) and levels[depth]:
            node, edge = levels[depth].pop()
            on_path = node in path
            path.append(node)
            if depth > 0:
                edges.append(edge)
            depth += 1
            if depth < max_len and not on_path:
                if len(levels) <= depth:
                    levels.append([])
                level = levels[depth]
                hops_left = max_len - depth - 1  # after stepping to a neighbour
                for step, source in into.get(node, ()):
                    if depth > 1 and step == edge:  # never back along the edge it came by
                        continue
                    if dist.get(source, far) <= hops_left:  # else no kept path lies beyond it
                        level.append((source, step))
            if depth >= 2 and node == origin:
                yield from reversed(edges)
        else:
            path.pop()
            if edges:
                edges.pop()


def walk_order(origins: Sequence[int], adjacency: Adjacency, max_hops: int) -> Iterator[int]:
    """Edge ids in the order graphiti's BFS statement yields them on FalkorDB (repeats included)."""
    into = incoming(adjacency)
    for origin in origins:
        dist = distances(origin, adjacency, max_hops)
        ends = sorted({t for n, d in dist.items() if d < max_hops for _, t in adjacency.get(n, ())})
        for end in ends:
            yield from _paths_into(end, origin, into, dist, max_hops)


def first_reached(order: Iterator[int], keep: Callable[[int], bool], limit: int) -> list[int]:
    """The first `limit` distinct edges of `order` that `keep` accepts (the statement's filter, DISTINCT, LIMIT)."""
    seen: set[int] = set()
    found: list[int] = []
    if limit <= 0:
        return found
    for edge in order:
        if edge in seen:
            continue
        seen.add(edge)
        if keep(edge):
            found.append(edge)
            if len(found) >= limit:
                break
    return found
