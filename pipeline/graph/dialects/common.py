"""The openCypher that FalkorDB and Neo4j both run: one section per feature, one method per operation.

`GraphQueries` is the whole interface a dialect overrides; the first stage's searches (`search.py`) and the
merges' statements (`merges.py`) are parts of it kept in modules of their own.
User text only ever travels in parameters. Methods return plain rows (`list[dict]`) or plain values; the
feature that calls them turns rows into its records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.graph.dialects.merges import MERGE_RELATION, MergeQueries
from pipeline.graph.dialects.search import SearchQueries
from pipeline.graph.group_id import GROUP_ID_PATTERN

__all__ = ["MERGE_RELATION", "FactVectorIndex", "GraphQueries"]


class GraphQueries(SearchQueries, MergeQueries):
    # --- deals ---------------------------------------------------------------------------------------
    # A deal is a group_id that holds graphiti `Entity` or `Episodic` nodes, whoever wrote them. Neo4j keeps
    # every group in one database; FalkorDB keeps a graph per group or several groups in one graph (its dialect
    # looks into every graph: docs/graph-shapes.md).

    GROUP_IDS = "MATCH (n) WHERE n:Entity OR n:Episodic RETURN DISTINCT n.group_id AS g"
    ANY_ENTITY = "MATCH (n:Entity {group_id: $g}) RETURN n.uuid AS u LIMIT 1"
    ANY_EPISODE = "MATCH (n:Episodic {group_id: $g}) RETURN n.uuid AS u LIMIT 1"
    # one stored vector, measured in Python (FalkorDB's size() fails on its vectorf32 values)
    ONE_FACT_VECTOR = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity) WHERE e.fact_embedding IS NOT NULL
        RETURN e.fact_embedding AS v LIMIT 1
        """
    ONE_NAME_VECTOR = """
        MATCH (n:Entity {group_id: $g}) WHERE n.name_embedding IS NOT NULL
        RETURN n.name_embedding AS v LIMIT 1
        """
    # what earlier versions wrote into the deal's graph, moved into the SQLite store at open
    LEGACY_DEALS = "MATCH (d:RetrievalLabDeal) RETURN d.group_id AS g, properties(d) AS props"
    DELETE_LEGACY_DEAL = "MATCH (d:RetrievalLabDeal {group_id: $g}) DELETE d"
    # endpoints unlabelled: graphiti's RELATES_TO only joins entities, and checking both labels made this
    # count (run on every rerun of a page, as the deal's state stamp) ~10x slower on FalkorDB at 10k facts
    COUNT_FACTS = """
        MATCH ()-[e:RELATES_TO {group_id: $g}]->()
        RETURN e.invalid_at IS NULL AS current, count(e) AS n
        """
    COUNT_MERGES = f"MATCH (:Entity {{group_id: $g}})-[m:{MERGE_RELATION}]->(:Entity) RETURN count(m) AS n"
    COUNT_NODES = """
        MATCH (n {group_id: $g}) WHERE n:Entity OR n:Episodic
        RETURN n:Entity AS entity, count(n) AS n
        """

    async def group_ids(self) -> list[str]:
        """Every group_id holding graphiti nodes, sorted."""
        rows = await self._rows("", self.GROUP_IDS)
        return sorted({r["g"] for r in rows if isinstance(r["g"], str) and GROUP_ID_PATTERN.fullmatch(r["g"])})

    async def holds_group(self, group_id: str) -> bool:
        """Whether the group has graphiti nodes (asking never creates anything)."""
        for statement in (self.ANY_ENTITY, self.ANY_EPISODE):
            if await self._rows(group_id, statement, g=group_id):
                return True
        return False

    async def stored_dimension(self, group_id: str) -> int | None:
        """The length of one stored fact vector, else of one entity-name vector; None when there is none."""
        for statement in (self.ONE_FACT_VECTOR, self.ONE_NAME_VECTOR):
            rows = await self._rows(group_id, statement, g=group_id)
            if rows and rows[0]["v"] is not None:
                return len(rows[0]["v"])
        return None

    async def legacy_deals(self) -> dict[str, dict[str, Any]]:
        """group_id -> properties of each old `RetrievalLabDeal` node."""
        rows = await self._rows("", self.LEGACY_DEALS)
        return {r["g"]: r["props"] for r in rows if isinstance(r["g"], str)}

    async def delete_legacy_deal(self, group_id: str) -> None:
        await self._write(group_id, self.DELETE_LEGACY_DEAL, g=group_id)

    async def deal_counts(self, group_id: str) -> dict[str, int]:
        facts = await self._rows(group_id, self.COUNT_FACTS, g=group_id)
        merges = await self._rows(group_id, self.COUNT_MERGES, g=group_id)
        nodes = await self._rows(group_id, self.COUNT_NODES, g=group_id)
        current = sum(r["n"] for r in facts if r["current"])
        total = sum(r["n"] for r in facts)
        return {
            "facts": total,
            "current_facts": current,
            "superseded_facts": total - current,
            "entities": sum(r["n"] for r in nodes if r["entity"]),
            "episodes": sum(r["n"] for r in nodes if not r["entity"]),
            "merges": merges[0]["n"] if merges else 0,
        }

    # --- retrieval: citations ------------------------------------------------------------------------

    EPISODES = """
        MATCH (e:Episodic) WHERE e.uuid IN $uuids AND e.group_id = $g
        RETURN e.uuid AS uuid, properties(e) AS props
        """

    ENTITY_NEIGHBOURS = """
        MATCH (a:Entity {group_id: $g})-[:RELATES_TO]-(b:Entity {group_id: $g}) WHERE a.uuid IN $uuids
        RETURN a.uuid AS uuid, collect(DISTINCT b.uuid) AS neighbours
        """

    async def entity_neighbours(self, group_id: str, uuids: list[str]) -> dict[str, set[str]]:
        """uuid -> the entities a fact links it to, for those entities of the deal."""
        rows = await self._rows(group_id, self.ENTITY_NEIGHBOURS, g=group_id, uuids=uuids)
        return {r["uuid"]: set(r["neighbours"]) for r in rows}

    EPISODE_TIMES = "MATCH (e:Episodic {group_id: $g}) RETURN e.uuid AS uuid, e.created_at AS created_at"

    async def episode_times(self, group_id: str) -> dict[str, Any]:
        """uuid -> when graphiti wrote it (`created_at`), for every episode of the deal."""
        return {r["uuid"]: r["created_at"] for r in await self._rows(group_id, self.EPISODE_TIMES, g=group_id)}

    async def episodes(self, group_id: str, uuids: list[str]) -> dict[str, dict[str, Any]]:
        """uuid -> every property of those episodes of the deal (our citation fields included)."""
        rows = await self._rows(group_id, self.EPISODES, uuids=uuids, g=group_id)
        return {r["uuid"]: r["props"] for r in rows}

    # --- loading -------------------------------------------------------------------------------------

    ADD_EPISODE_PROPERTIES = "UNWIND $rows AS r MATCH (n:Episodic {uuid: r.uuid, group_id: $g}) SET n += r.props"

    async def add_episode_properties(self, group_id: str, props_by_uuid: dict[str, dict[str, Any]]) -> None:
        """Citation fields graphiti's `EpisodicNode` does not persist, added to episodes already saved."""
        rows = [{"uuid": uuid, "props": props} for uuid, props in props_by_uuid.items()]
        await self._write(group_id, self.ADD_EPISODE_PROPERTIES, rows=rows, g=group_id)

    # --- temporal ------------------------------------------------------------------------------------

    FACTS = """
        MATCH (a:Entity)-[e:RELATES_TO]->(b:Entity)
        WHERE e.group_id = $g
        RETURN e.uuid AS uuid, e.name AS relation, e.fact AS fact, e.episodes AS episodes,
               e.valid_at AS valid_at, e.invalid_at AS invalid_at, e.expired_at AS expired_at,
               e.created_at AS created_at, e.supersedes AS supersedes, e.superseded_by AS superseded_by,
               a.uuid AS source_uuid, a.name AS source_name, b.uuid AS target_uuid, b.name AS target_name
        """
    ENTITIES_NAMED = """
        MATCH (n:Entity {group_id: $g}) WHERE toLower(n.name) CONTAINS toLower($text)
        OPTIONAL MATCH (n)-[e:RELATES_TO]-(:Entity)
        WITH n, count(e) AS facts WHERE facts > 0
        RETURN n.uuid AS uuid, n.name AS name, facts ORDER BY facts DESC, name LIMIT $limit
        """
    RELATION_COUNTS = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity)
        RETURN e.name AS name, count(e) AS n ORDER BY name
        """

    async def facts(self, group_id: str) -> list[dict[str, Any]]:
        """Every fact of the deal with its dates, supersession links and endpoints (no embeddings)."""
        return await self._rows(group_id, self.FACTS, g=group_id)

    async def entities_named(self, group_id: str, text: str, limit: int) -> list[dict[str, Any]]:
        """Entities whose name contains `text` (any case) and that have facts, most facts first."""
        return await self._rows(group_id, self.ENTITIES_NAMED, g=group_id, text=text, limit=limit)

    async def relation_counts(self, group_id: str) -> list[dict[str, Any]]:
        return await self._rows(group_id, self.RELATION_COUNTS, g=group_id)

    # --- corrections ---------------------------------------------------------------------------------

    FACT = """
        MATCH (a:Entity)-[e:RELATES_TO {uuid: $u}]->(b:Entity) WHERE e.group_id = $g
        RETURN e.uuid AS uuid, e.name AS name, e.fact AS fact, e.valid_at AS valid_at,
               e.invalid_at AS invalid_at, e.expired_at AS expired_at, e.superseded_by AS superseded_by,
               a.uuid AS source_uuid, b.uuid AS target_uuid
        """
    SET_SUPERSESSION = """
        MATCH (:Entity)-[e:RELATES_TO {uuid: $u}]->(:Entity) WHERE e.group_id = $g
        SET e.invalid_at = $invalid_at, e.expired_at = $expired_at, e.superseded_by = $superseded_by
        RETURN e.uuid AS uuid
        """
    RESTORE_EPISODE = "MERGE (n:Episodic {uuid: $p.uuid}) SET n = $p"

    async def fact(self, group_id: str, uuid: str) -> dict[str, Any] | None:
        """One fact of the deal as stored (dates as the graph holds them, so an undo writes back the same)."""
        rows = await self._rows(group_id, self.FACT, u=uuid, g=group_id)
        return rows[0] if rows else None

    async def set_supersession(
        self, group_id: str, uuid: str, invalid_at: Any, expired_at: Any, superseded_by: str | None
    ) -> bool:
        """Set (None: remove) the three properties a correction changes on a fact; False if there is no such fact."""
        rows = await self._write(
            group_id,
            self.SET_SUPERSESSION,
            u=uuid,
            g=group_id,
            invalid_at=invalid_at,
            expired_at=expired_at,
            superseded_by=superseded_by,
        )
        return bool(rows)

    async def restore_episode(self, group_id: str, props: dict[str, Any]) -> None:
        """Re-create an episode node with exactly these properties (it carries no vector)."""
        await self._write(group_id, self.RESTORE_EPISODE, p=props)

    # --- evaluation ----------------------------------------------------------------------------------

    FINGERPRINT_FACTS = """
        MATCH (s:Entity)-[e:RELATES_TO {group_id: $g}]->(t:Entity)
        RETURN e.uuid AS u, e.name AS n, e.fact AS f, s.uuid AS s, t.uuid AS t,
               toString(e.valid_at) AS va, toString(e.invalid_at) AS ia, toString(e.expired_at) AS ea
        """
    FINGERPRINT_ENTITIES = "MATCH (n:Entity {group_id: $g}) RETURN n.uuid AS u, n.name AS n"
    FACT_TEXTS = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity) WHERE e.uuid IN $uuids
        RETURN e.uuid AS u, e.fact AS f
        """

    # which ids an imported query set's judgments name: facts, or episodes (every fact citing one counts)
    FACTS_BY_UUIDS = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity) WHERE e.uuid IN $uuids
        RETURN e.uuid AS u
        """
    EPISODES_BY_UUIDS = "MATCH (n:Episodic {group_id: $g}) WHERE n.uuid IN $uuids RETURN n.uuid AS u"
    FACTS_CITING_EPISODES = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity)
        UNWIND e.episodes AS episode
        WITH e, episode WHERE episode IN $uuids
        RETURN DISTINCT episode, e.uuid AS u
        """

    async def fingerprint_rows(self, group_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """What the first stage reads from the deal: its facts (text, endpoints, dates) and entity names.

        Filtered by group_id, so on Neo4j (one database for every deal) only this deal is read."""
        facts = await self._rows(group_id, self.FINGERPRINT_FACTS, g=group_id)
        entities = await self._rows(group_id, self.FINGERPRINT_ENTITIES, g=group_id)
        return facts, entities

    async def fact_texts(self, group_id: str, uuids: list[str]) -> dict[str, str]:
        rows = await self._rows(group_id, self.FACT_TEXTS, g=group_id, uuids=uuids)
        return {r["u"]: r["f"] for r in rows}

    async def facts_by_uuids(self, group_id: str, uuids: list[str]) -> set[str]:
        """Those of `uuids` that are facts of the deal."""
        return {r["u"] for r in await self._rows(group_id, self.FACTS_BY_UUIDS, g=group_id, uuids=uuids)}

    async def episodes_by_uuids(self, group_id: str, uuids: list[str]) -> set[str]:
        """Those of `uuids` that are episodes of the deal."""
        return {r["u"] for r in await self._rows(group_id, self.EPISODES_BY_UUIDS, g=group_id, uuids=uuids)}

    async def facts_citing_episodes(self, group_id: str, uuids: list[str]) -> dict[str, set[str]]:
        """episode uuid -> uuids of the deal's facts whose `episodes` list cites it (only episodes some fact cites)."""
        citing: dict[str, set[str]] = {}
        for row in await self._rows(group_id, self.FACTS_CITING_EPISODES, g=group_id, uuids=uuids):
            citing.setdefault(row["episode"], set()).add(row["u"])
        return citing

    # --- backend maintenance -------------------------------------------------------------------------

    DELETE_DEAL = "MATCH (n {group_id: $g}) DETACH DELETE n"
    DUMP_NODES = "MATCH (n {group_id: $g}) RETURN labels(n) AS labels, properties(n) AS props"
    DUMP_RELATIONS = """
        MATCH (a {group_id: $g})-[r]->(b)
        RETURN type(r) AS type, a.uuid AS source, b.uuid AS target, properties(r) AS props
        """

    async def delete_deal(self, group_id: str) -> None:
        await self._write(group_id, self.DELETE_DEAL, g=group_id)

    async def dump_nodes(self, group_id: str) -> list[dict[str, Any]]:
        """Every node of the deal with its labels and all properties (tests compare dumps)."""
        return await self._rows(group_id, self.DUMP_NODES, g=group_id)

    async def dump_relations(self, group_id: str) -> list[dict[str, Any]]:
        """Every relationship leaving a node of the deal: type, endpoints' uuids and all properties."""
        return await self._rows(group_id, self.DUMP_RELATIONS, g=group_id)

    # --- the facts' vector index (an approximate cosine method for the first stage) -----------------
    # The statements differ entirely between the databases (FalkorDB's `db.idx.vector.*` procedures and
    # `db.indexes()`, Neo4j's `db.index.vector.*` and SHOW VECTOR INDEXES): each dialect spells its own.

    CREATE_FACT_VECTOR_INDEX: str
    FACT_VECTOR_INDEX: str
    QUERY_FACT_VECTOR_INDEX: str

    async def create_fact_vector_index(self, group_id: str, dimension: int) -> None:
        """An HNSW index on the facts' stored embeddings (cosine), built by the database in the background."""
        await self._write(group_id, self.CREATE_FACT_VECTOR_INDEX, dimension=dimension)

    async def fact_vector_index(self, group_id: str) -> FactVectorIndex | None:
        """The facts' vector index as the database reports it, None when there is none."""
        raise NotImplementedError

    async def query_fact_vector_index(
        self, group_id: str, vector: list[float], k: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """The deal's facts among the index's k nearest, nearest first: graphiti's edge fields (without the stored
        vector and attributes, which no search needs) and `score`, graphiti's cosine score for the same pair; and
        how many facts the index gave before the other groups' were left out (None when none was the deal's: the
        index may hold more of them further out)."""
        rows = await self._rows(group_id, self.QUERY_FACT_VECTOR_INDEX, g=group_id, v=vector, k=k)
        answered = int(rows[0]["answered"]) if rows else None
        hits = [{key: value for key, value in row.items() if key != "answered"} for row in rows]
        return sorted(hits, key=lambda r: -float(r["score"])), answered


@dataclass(frozen=True)
class FactVectorIndex:
    ready: bool  # False while the database still builds it (it answers nothing useful until then)
    progress: str  # what the database says about it, for one line on a page
