"""Synthetic-but-realistic run history, for benchmarking the Latency page on a large store.

Each synthetic run has the full `RetrievalRun.to_dict()` shape (N candidates with the demo deal's real
fact texts, the reranked order, top k results with citations from the demo's episodes), stage timings
drawn from log-normal distributions around what the pipeline measures here (first stage growing with N,
the local re-scorer ~25 ms + 0.7 ms per candidate, Voyage ~180 ms + 2.5 ms per candidate with rare
timeouts and fallbacks, 1% slow outliers), Voyage token counts and costs, spread over 30 days.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pipeline.api import on_store, stable_uuid, traits
from pipeline.api.models import BUDGETS_MS, Source, Store
from pipeline.api.models import DEMO_DATA_DIR as DEMO_DATA

DEPTHS = (10, 25, 50, 100)
DEPTH_WEIGHTS = (0.2, 0.25, 0.4, 0.15)
# (reranker, model, weight)
RERANKER_MIX = (
    ("none", "", 0.15),
    ("local", "local-fusion(bi-encoder+bm25)", 0.5),
    ("voyage", "rerank-2.5", 0.25),
    ("voyage", "rerank-2.5-lite", 0.1),
)
SOURCE_MIX: tuple[tuple[Source, float], ...] = (("dashboard", 0.6), ("cli", 0.15), ("bench", 0.25))
DEALS = (("demo", 0.8), ("halcyon_q3", 0.2))


@dataclass(frozen=True)
class FillResult:
    runs: int
    seconds: float
    bytes: int


class _Corpus:
    """The demo deal's facts, episodes and queries, as ready-made dict pieces."""

    def __init__(self) -> None:
        deal = json.loads((DEMO_DATA / "deal.json").read_text(encoding="utf-8"))
        docs = {d["id"]: d for d in deal["documents"]}
        self.episodes = {}
        for e in deal["episodes"]:
            doc = docs.get(e.get("document"), {})
            self.episodes[e["id"]] = {
                "episode_uuid": stable_uuid("demo", "episode", e["id"]),
                "document_id": e.get("document") or e["id"],
                "document_name": doc.get("name", e["id"]),
                "page": e.get("page"),
                "chunk": e.get("chunk"),
                "channel": e.get("channel", "document"),
                "confidence": {"document": 0.85, "qa_response": 0.95, "analyst_chat": 0.9}.get(e.get("channel"), 0.85),
                "source_description": f"{doc.get('name', e['id'])} p. {e.get('page')}",
                "author": e.get("author", ""),
                "snippet": e["content"][:240],
                "episode_valid_at": e.get("date"),
            }
        self.facts = [
            {
                "uuid": stable_uuid("demo", "fact", f["id"]),
                "fact": f["fact"],
                "relation": f["relation"],
                "source_uuid": stable_uuid("demo", "entity", f["source"]),
                "target_uuid": stable_uuid("demo", "entity", f["target"]),
                "episodes": [stable_uuid("demo", "episode", e) for e in f["episodes"]],
                "episode_ids": f["episodes"],
                "valid_at": f.get("valid_at"),
            }
            for f in deal["facts"]
        ]
        self.queries = [
            json.loads(line)["text"]
            for line in (DEMO_DATA / "queries.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]


def _ln(rng: random.Random, median: float, sigma: float) -> float:
    return median * rng.lognormvariate(0.0, sigma)


def _timings(rng: random.Random, n: int, k: int, reranker: str, model: str) -> tuple[dict[str, float], int, str | None]:
    slow = 4.0 if rng.random() < 0.01 else 1.0  # a cold cache or a GC pause now and then
    ms = {
        "embed_query": _ln(rng, 6.0, 0.3),
        "bm25": _ln(rng, 3.0 + 0.05 * n, 0.25) * slow,
        "cosine": _ln(rng, 8.0 + 0.4 * n, 0.25) * slow,
        "bfs": _ln(rng, 15.0 + 1.2 * n, 0.3) * slow,
        "fusion": _ln(rng, 0.3 + 0.01 * n, 0.2),
    }
    ms["hybrid_search"] = max(ms["bm25"], ms["cosine"], ms["bfs"]) + ms["fusion"] + _ln(rng, 2.0, 0.3)
    tokens, fallback = 0, None
    if reranker == "local":
        ms["rerank"] = _ln(rng, 25.0 + 0.7 * n, 0.3)
    elif reranker == "voyage":
        lite = model.endswith("lite")
        ms["rerank"] = _ln(rng, (120.0 + 1.5 * n) if lite else (180.0 + 2.5 * n), 0.35)
        if rng.random() < 0.02:
            ms["rerank"], fallback = 10_000.0 + rng.random() * 50, "Voyage did not answer within 10 s (timeout)"
        else:
            tokens = sum(rng.randint(25, 60) for _ in range(n))
    ms["citations"] = _ln(rng, 4.0 + 0.6 * k, 0.3)
    ms["total"] = sum(ms[s] for s in ("embed_query", "hybrid_search", "rerank", "citations") if s in ms) + _ln(
        rng, 1.5, 0.3
    )
    return {name: round(value, 3) for name, value in ms.items()}, tokens, fallback


def synthetic_payloads(
    count: int, seed: int = 7, end: datetime | None = None, days: float = 30.0
) -> Iterator[tuple[dict[str, Any], Source]]:
    """`count` runs in the `to_dict()` shape, oldest first, with their sources."""
    rng = random.Random(seed)
    corpus = _Corpus()
    end = end or datetime.now(UTC)
    start = end - timedelta(days=days)
    moments = sorted(rng.random() for _ in range(count))
    prices = {"rerank-2.5": 0.05, "rerank-2.5-lite": 0.02}
    for moment in moments:
        n = rng.choices(DEPTHS, DEPTH_WEIGHTS)[0]
        k = min(10, n)
        reranker, model, _ = rng.choices(RERANKER_MIX, [w for *_, w in RERANKER_MIX])[0]
        stages, tokens, fallback = _timings(rng, n, k, reranker, model)
        created = (start + (end - start) * moment).isoformat(timespec="seconds")
        picked = rng.sample(corpus.facts, n)
        candidates = []
        for rank, fact in enumerate(picked, start=1):
            ranks = {m: (rank + rng.randint(-3, 3) if rng.random() < 0.8 else None) for m in ("bm25", "cosine", "bfs")}
            candidates.append(
                {
                    "uuid": fact["uuid"],
                    "fact": fact["fact"],
                    "relation": fact["relation"],
                    "source_uuid": fact["source_uuid"],
                    "target_uuid": fact["target_uuid"],
                    "episodes": fact["episodes"],
                    "valid_at": fact["valid_at"],
                    "invalid_at": None,
                    "expired_at": None,
                    "fused_score": round(3.0 / (rank + 1), 6),
                    "first_stage_rank": rank,
                    "method_ranks": {m: (max(1, r) if r is not None else None) for m, r in ranks.items()},
                    "superseded": False,
                }
            )
        reranked_used = reranker != "none" and fallback is None
        if reranked_used:
            scores = sorted(((rng.random(), i) for i in range(n)), reverse=True)
        else:
            scores = [(None, i) for i in range(n)]
        reranked = [
            {
                "uuid": picked[i]["uuid"],
                "fact": picked[i]["fact"],
                "rank": rank,
                "first_stage_rank": i + 1,
                "rank_change": i + 1 - rank,
                "rerank_score": score,
                "rerank_score_norm": score,
                "superseded": False,
            }
            for rank, (score, i) in enumerate(scores, start=1)
        ]
        results = []
        for r in reranked[:k]:
            fact, first = picked[r["first_stage_rank"] - 1], candidates[r["first_stage_rank"] - 1]
            score = r["rerank_score"] if r["rerank_score"] is not None else first["fused_score"]
            cites = [
                {**corpus.episodes[e], "relevance_score": score, "retrieved_at": created}
                for e in fact["episode_ids"]
                if e in corpus.episodes
            ]
            results.append(
                {
                    "uuid": r["uuid"],
                    "fact": r["fact"],
                    "rank": r["rank"],
                    "score": score,
                    "score_norm": r["rerank_score_norm"],
                    "fused_score": first["fused_score"],
                    "first_stage_rank": r["first_stage_rank"],
                    "superseded": False,
                    "valid_at": fact["valid_at"],
                    "invalid_at": None,
                    "citation": cites[0] if cites else None,
                    "citations": cites,
                }
            )
        over = [
            f"{stage.replace('_', ' ')} took {stages[stage]:.0f} ms (budget {budget:.0f} ms)"
            for stage, budget in BUDGETS_MS.items()
            if stages.get(stage, 0.0) > budget
        ]
        price = prices.get(model) if traits(reranker).priced else None
        payload = {
            "query": rng.choice(corpus.queries),
            "group": rng.choices(*zip(*DEALS, strict=True))[0],
            "num_candidates": n,
            "top_k": k,
            "reranker": reranker,
            "reranker_model": model if reranker != "none" else "",
            "include_superseded": rng.random() < 0.1,
            "as_of": None,
            "candidates": candidates,
            "reranked": reranked,
            "results": results,
            "timings": {
                "stages_ms": stages,
                "rerank_tokens": tokens,
                "rerank_cost_usd": tokens * price / 1e6 if price is not None and tokens else None,
                "over_budget": over,
            },
            "rerank_used": reranked_used,
            "fallback_reason": fallback,
            "created_at": created,
        }
        source = rng.choices([s for s, _ in SOURCE_MIX], [w for _, w in SOURCE_MIX])[0]
        yield payload, source


def fill_store(store: Store, count: int, seed: int = 7, batch: int = 1000) -> FillResult:
    """Write `count` synthetic runs, `batch` runs per transaction."""
    import time

    started = time.perf_counter()
    history = on_store(store).history
    pending: list[tuple[dict[str, Any], Source]] = []
    for item in synthetic_payloads(count, seed):
        pending.append(item)
        if len(pending) >= batch:
            history.save_payloads(pending)
            pending.clear()
    if pending:
        history.save_payloads(pending)
    store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = sum(p.stat().st_size for p in store.path.parent.glob(store.path.name + "*"))
    return FillResult(count, time.perf_counter() - started, size)
