"""The statements FalkorDB's dialect runs on a graph by its name, whatever groups it holds: discovery looks into
every graph (a graph per group, or several groups in one graph), and deleting a deal asks whether its graph holds
anything else. Neo4j keeps every group in one database and needs none of them."""

from __future__ import annotations


class FalkorGraphs:
    # label scans, each answered from graphiti's label index; a group is a deal by its Entity or Episodic nodes
    ENTITY_GROUPS = "MATCH (n:Entity) RETURN DISTINCT n.group_id AS g"
    EPISODE_GROUPS = "MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g"
    # any node that is not the group's: then deleting the group may not delete its graph
    OTHER_NODE = "MATCH (n) WHERE n.group_id IS NULL OR n.group_id <> $g RETURN 1 AS x LIMIT 1"
