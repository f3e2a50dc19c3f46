"""The sweep's caches, in the SQLite store: first-stage candidates and reranker scores (what `rank()` is handed as
its hooks, pipeline/retrieval/hooks.py, when a sweep ranks).

First stage: a query's candidates of one recipe at one depth N, keyed by (deal, graph fingerprint, temporal
filter, recipe, N, query). The fingerprint hashes every fact's uuid, relation, text, endpoints and validity fields and
the entities' names, plus the embedder: any correction, merge or re-import changes it, so a cached
candidate list is only ever reused on the very graph it came from. The time the search took when it
ran is kept with it and reported again (a repeated sweep shows the latency measured the first time). A row holds
whole candidates (their method ranks and fused scores), so a cached pool makes the same run a search would.
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

from pipeline.evaluation.repo import cached_pool, cached_scores, count_scores, save_pools, save_scores
from pipeline.graph.backend import GraphBackend
from pipeline.rerankers import traits
from pipeline.retrieval.hooks import ScoreCall, ScoreRow
from pipeline.retrieval.records import METHODS, Candidate, CandidatePool
from pipeline.store.db import Store
from pipeline.store.integrity import damaged_record

POOL_FORMAT = 2  # a cached pool holds whole candidates (older rows held (uuid, fact) pairs)


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


def pack(pool: CandidatePool) -> bytes:
    """The pool as zlib-compressed JSON: every candidate as a row (its fields in order, method ranks in METHODS
    order) and the times. Rows, not objects: a sweep writes every pool it searches, and this is 10x cheaper."""
    rows = [
        [
            c.uuid,
            c.fact,
            c.relation,
            c.source_uuid,
            c.target_uuid,
            list(c.episodes),
            c.valid_at,
            c.invalid_at,
            c.expired_at,
            c.fused_score,
            c.first_stage_rank,
            [c.method_ranks.get(m) for m in METHODS],
        ]
        for c in pool.candidates
    ]
    data = {"format": POOL_FORMAT, "embed_ms": pool.embed_ms, "first_ms": pool.first_ms, "stages_ms": pool.stages_ms}
    return zlib.compress(json.dumps({**data, "candidates": rows}).encode(), 1)


def unpack(payload: bytes) -> CandidatePool | None:
    """The pool, or None for a row of an older format (it lacked what a run shows: searched again)."""
    data = json.loads(zlib.decompress(payload))
    if not isinstance(data, dict) or data.get("format") != POOL_FORMAT:
        return None
    candidates = tuple(
        Candidate(*row[:5], tuple(row[5]), *row[6:11], dict(zip(METHODS, row[11], strict=True)))
        for row in data["candidates"]
    )
    return CandidatePool(candidates, float(data["embed_ms"]), dict(data["stages_ms"]), float(data["first_ms"]))


class FirstStageCache:
    def __init__(self, store: Store, group_id: str, fingerprint: str, filter_key: str) -> None:
        self.store, self.key = store, (group_id, fingerprint, filter_key)

    def get(self, recipe: str, depth: int, query: str) -> CandidatePool | None:
        row = cached_pool(self.store, self.key, recipe, depth, query)
        if row is None:
            return None
        try:
            return unpack(row["payload"])
        except (zlib.error, ValueError, TypeError, IndexError, KeyError) as exc:  # bytes changed inside the store
            what = f"the cached first-stage candidates of query {query[:60]!r} ({recipe}, N={depth})"
            raise damaged_record(self.store.path, what, exc) from None

    def put_many(self, query: str, pools: dict[tuple[str, int], CandidatePool]) -> None:
        """One query's pools by (recipe, depth), in one transaction."""
        if pools:
            rows = [(recipe, depth, pool.ms, pack(pool)) for (recipe, depth), pool in pools.items()]
            save_pools(self.store, self.key, query, rows)


class RerankCache:
    """Reranker scores in the store: a `ScoreCache` (pipeline/retrieval/hooks.py)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def pool_key(reranker: str, uuids: Sequence[str]) -> str:
        # a reranker whose score for a fact ignores the other candidates (a cross-encoder; its row says so)
        return "" if traits(reranker).pool_independent else sha("\n".join(uuids))

    def lookup(
        self, reranker: str, model: str, query: str, uuids: Sequence[str], facts: Sequence[str]
    ) -> dict[str, ScoreRow]:
        """uuid -> (score, ms share, tokens share) for the facts cached with their current text."""
        found = {r["uuid"]: r for r in cached_scores(self.store, model, self.pool_key(reranker, uuids), query)}
        hits = {}
        for uuid, fact in zip(uuids, facts, strict=True):
            row = found.get(uuid)
            if row is not None and row["fact_sha"] == sha(fact):
                hits[uuid] = (float(row["score"]), float(row["ms"]), float(row["tokens"]))
        return hits

    def put(self, call: ScoreCall) -> None:
        """Store one call's scores for the facts sent (keyed by their text), time and tokens shared out."""
        shares = call.rows()
        rows = [(uuid, sha(fact), *shares[uuid]) for uuid, fact in zip(call.uuids, call.facts, strict=True)]
        save_scores(self.store, call.model, self.pool_key(call.reranker, call.uuids), call.query, rows)

    def failure(self, reranker: str, model: str, query: str, uuids: Sequence[str]) -> tuple[str, float] | None:
        """None: the store keeps no failure, so the next query or sweep tries the reranker again."""
        return None

    def put_failure(self, reranker: str, model: str, query: str, uuids: Sequence[str], why: str, ms: float) -> None:
        """Nothing is kept (see `failure`); the sweep counts the fallback per setting."""

    def count(self, model: str | None = None) -> int:
        return count_scores(self.store, model)
