"""The sweep's caches, in the SQLite store: first-stage candidates and reranker scores.

First stage: a query's candidates of one recipe at one depth N, keyed by (deal, graph fingerprint, temporal
filter, recipe, N, query). The fingerprint hashes every fact's uuid, relation, text, endpoints and validity fields and
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

from pipeline.evaluation.repo import cached_pool, cached_scores, count_scores, save_pools, save_scores
from pipeline.graph.backend import GraphBackend
from pipeline.rerankers import traits
from pipeline.store.db import Store
from pipeline.store.integrity import damaged_record


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

    def packed(self) -> bytes:
        """(uuid, fact) pairs as zlib-compressed JSON."""
        return zlib.compress(json.dumps(list(zip(self.uuids, self.facts, strict=True))).encode(), 6)

    @classmethod
    def unpack(cls, payload: bytes, ms: float) -> Pool:
        pairs = json.loads(zlib.decompress(payload))
        return cls(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), ms)


class FirstStageCache:
    def __init__(self, store: Store, group_id: str, fingerprint: str, filter_key: str) -> None:
        self.store, self.key = store, (group_id, fingerprint, filter_key)

    def get(self, recipe: str, depth: int, query: str) -> Pool | None:
        row = cached_pool(self.store, self.key, recipe, depth, query)
        if row is None:
            return None
        try:
            return Pool.unpack(row["payload"], float(row["ms"]))
        except (zlib.error, ValueError, TypeError, IndexError) as exc:  # bytes changed inside the store
            what = f"the cached first-stage candidates of query {query[:60]!r} ({recipe}, N={depth})"
            raise damaged_record(self.store.path, what, exc) from None

    def put_many(self, query: str, pools: dict[tuple[str, int], Pool]) -> None:
        """One query's pools by (recipe, depth), in one transaction."""
        if pools:
            rows = [(recipe, depth, pool.ms, pool.packed()) for (recipe, depth), pool in pools.items()]
            save_pools(self.store, self.key, query, rows)


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
        # a reranker whose score for a fact ignores the other candidates (a cross-encoder; its row says so)
        return "" if traits(reranker).pool_independent else sha("\n".join(pool.uuids))

    def lookup(self, reranker: str, model: str, query: str, pool: Pool) -> dict[str, tuple[float, float, float]]:
        """uuid -> (score, ms share, tokens share) for the pool's facts cached with their current text."""
        found = {r["uuid"]: r for r in cached_scores(self.store, model, self.pool_key(reranker, pool), query)}
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
        rows = [
            (uuid, sha(fact), float(score), ms / n, tokens / n)
            for uuid, fact, score in zip(pool.uuids, pool.facts, scores, strict=True)
        ]
        save_scores(self.store, model, self.pool_key(reranker, pool), query, rows)

    def count(self, model: str | None = None) -> int:
        return count_scores(self.store, model)
