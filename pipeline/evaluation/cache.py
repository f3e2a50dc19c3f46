"""The sweep's caches, in the SQLite store: first-stage candidates and reranker scores.

First stage: a query's candidates at one depth N, keyed by (deal, graph fingerprint, temporal filter,
N, query). The fingerprint hashes every fact's uuid, relation, text, endpoints and validity fields and
the entities' names, plus the embedder: any correction, merge or re-import changes it, so a cached
candidate list is only ever reused on the very graph it came from. The time the search took when it
ran is kept with it and reported again (a repeated sweep shows the latency measured the first time).
Note: graphiti's BFS list has no ORDER BY, so its order (and with it RRF ties and the facts at the
depth cut-off) follows FalkorDB's internal layout, which can change when the server reloads its files.
Two retrievals on the same content can therefore differ in a few tied places; a cached pool is one
such retrieval, reused so that every setting of a sweep, and a repeated sweep, see the same pools.

Reranker scores: keyed by (model, pool, query, fact uuid), checked against a hash of the fact text.
A cross-encoder (Voyage) scores each (query, fact) pair on its own: pool is "" and a fact scored at
N=50 is not sent again at N=100. The local re-scorer's scores depend on the whole candidate pool
(BM25 statistics and min-max scaling over the candidates), so its pool is a hash of the candidate
list. Each row also keeps its share of the call's time and tokens (call / passages), from which a
cached setting's rerank latency and cost are rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.graph.backend import GraphBackend
from pipeline.rerankers import RERANKERS, traits
from pipeline.store.db import Store, utc_now

# rerankers whose score for a fact does not depend on the other candidates (cross-encoders)
POOL_INDEPENDENT = frozenset(name for name in RERANKERS if traits(name).pool_independent)


def sha(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


async def graph_fingerprint(backend: GraphBackend, group_id: str, embedder: str) -> str:
    """A hash of everything the first stage reads from the deal's graph (embeddings follow the texts)."""
    facts, entities = await backend.cypher.fingerprint_rows(group_id)
    digest = hashlib.sha1(embedder.encode())
    for row in sorted(json.dumps(r, sort_keys=True, default=str) for r in facts):
        digest.update(row.encode())
    for row in sorted(json.dumps(r, sort_keys=True, default=str) for r in entities):
        digest.update(row.encode())
    return digest.hexdigest()[:20]


@dataclass(frozen=True)
class Pool:
    """One query's first-stage candidates at one depth, fused order."""

    uuids: tuple[str, ...]
    facts: tuple[str, ...]
    ms: float  # embed_query + hybrid_search, as measured when retrieved


class FirstStageCache:
    def __init__(self, store: Store, group_id: str, fingerprint: str, filter_key: str) -> None:
        self.store, self.key = store, (group_id, fingerprint, filter_key)

    def get(self, depth: int, query: str) -> Pool | None:
        rows = self.store.query(
            "SELECT ms, payload FROM eval_first_stage WHERE group_id = ? AND fingerprint = ? AND filter = ? "
            "AND depth = ? AND query = ?",
            (*self.key, depth, query),
        )
        if not rows:
            return None
        pairs = json.loads(zlib.decompress(rows[0]["payload"]))
        return Pool(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), float(rows[0]["ms"]))

    def put(self, depth: int, query: str, pool: Pool) -> None:
        payload = zlib.compress(json.dumps(list(zip(pool.uuids, pool.facts, strict=True))).encode(), 6)
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO eval_first_stage (group_id, fingerprint, filter, depth, query, ms, payload, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*self.key, depth, query, pool.ms, payload, utc_now()),
            )


@dataclass(frozen=True)
class CachedScores:
    scores: tuple[float, ...]  # aligned with the pool
    ms: float  # the rerank latency rebuilt from the per-fact shares
    tokens: float


class RerankCache:
    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def pool_key(reranker: str, pool: Pool) -> str:
        return "" if reranker in POOL_INDEPENDENT else sha("\n".join(pool.uuids))

    def lookup(self, reranker: str, model: str, query: str, pool: Pool) -> dict[str, tuple[float, float, float]]:
        """uuid -> (score, ms share, tokens share) for the pool's facts cached with their current text."""
        rows = self.store.query(
            "SELECT uuid, fact_sha, score, ms, tokens FROM rerank_cache WHERE model = ? AND pool = ? AND query = ?",
            (model, self.pool_key(reranker, pool), query),
        )
        found = {r["uuid"]: r for r in rows}
        hits = {}
        for uuid, fact in zip(pool.uuids, pool.facts, strict=True):
            row = found.get(uuid)
            if row is not None and row["fact_sha"] == sha(fact):
                hits[uuid] = (float(row["score"]), float(row["ms"]), float(row["tokens"]))
        return hits

    def get(self, reranker: str, model: str, query: str, pool: Pool) -> CachedScores | None:
        """All the pool's scores, or None if any fact is missing or its text changed."""
        hits = self.lookup(reranker, model, query, pool)
        if len(hits) < len(set(pool.uuids)):
            return None
        rows = [hits[u] for u in pool.uuids]
        return CachedScores(tuple(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows))

    def put(
        self, reranker: str, model: str, query: str, pool: Pool, scores: Sequence[float], ms: float, tokens: int
    ) -> None:
        """Store one call's scores for the pool (or the part of it that was sent), time and tokens shared out."""
        n = max(len(pool.uuids), 1)
        pool_key, now = self.pool_key(reranker, pool), utc_now()
        with self.store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO rerank_cache (model, pool, query, uuid, fact_sha, score, ms, tokens, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (model, pool_key, query, uuid, sha(fact), float(score), ms / n, tokens / n, now)
                    for uuid, fact, score in zip(pool.uuids, pool.facts, scores, strict=True)
                ],
            )

    def count(self, model: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM rerank_cache" + (" WHERE model = ?" if model else "")
        return int(self.store.query(sql, (model,) if model else ())[0][0])
