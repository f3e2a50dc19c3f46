"""`python -m benchmarks scale --facts 10000`: the pipeline at real deal size.

Generates a synthetic deal of the requested size (seeded, so the same size gives the same deal): finance-style
facts with figures and dates, a Zipf-like entity degree distribution with a few hub entities, about 40% of facts
superseded (each by a successor on the same endpoints), and the three source channels (document, qa_response,
analyst_chat). It is written through the loaders' own path (`write_deal`) with the configured embedder, into a
data directory of its own (`<data dir>/bench-scale-<facts>`), and kept there: the next run with the same size,
generator version and embedder reuses it. Then `benchmarks.bench.bench` measures it at each N, beside stock
graphiti `search_()`, and the embedded server's memory is read from `INFO memory`.
"""

from __future__ import annotations

import hashlib
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pipeline.api import Lab, get_settings, now_iso, open_store, stable_uuid
from pipeline.api.models import (
    DealContent,
    DealRecord,
    EntitySpec,
    EpisodeSpec,
    FactSpec,
    FirstStageName,
    ProgressLines,
    Rebuild,
    RecallCheck,
    Report,
    Settings,
)

GENERATOR_VERSION = "1"
GROUP = "scale"
SEED = 16
SUPERSEDED_SHARE = 0.4
FACTS_PER_EPISODE = 5
CHANNELS = (("document", 0.6), ("qa_response", 0.25), ("analyst_chat", 0.15))
DEFAULT_DEPTHS = (10, 50, 100, 200)

_PREFIXES = "North Blue Iron Silver Harbor Summit Cedar Atlas Vertex Granite Meridian Beacon Crest Falcon Orion Delta"
_ROOTS = "wind field stone bridge gate point ridge lake brook mark peak light view rock line port"
_KINDS = "Holdings Capital Industries Logistics Software Energy Foods Partners Labs Systems Health Group"
_METRICS = (
    ("revenue", "$", "M"),
    ("EBITDA", "$", "M"),
    ("net income", "$", "M"),
    ("free cash flow", "$", "M"),
    ("gross margin", "", "%"),
    ("headcount", "", " employees"),
    ("net debt", "$", "M"),
    ("capex", "$", "M"),
)
_RELATIONS = ("REPORTED", "ACQUIRED_STAKE_IN", "SUPPLIES", "LENDS_TO", "PARTNERS_WITH", "COMPETES_WITH")
_ANALYSTS = ("A. Chen", "M. Rossi", "J. Okafor", "S. Patel", "L. Novak")


@dataclass(frozen=True)
class ScaleDeal:
    content: DealContent
    queries: tuple[str, ...]


def _entity_names(count: int, rng: random.Random) -> list[str]:
    prefixes, roots, kinds = _PREFIXES.split(), _ROOTS.split(), _KINDS.split()
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        name = f"{rng.choice(prefixes)}{rng.choice(roots)} {rng.choice(kinds)}"
        if name in seen:
            name = f"{name} {len(names)}"
        seen.add(name)
        names.append(name)
    return names


def _quarter(day: datetime) -> str:
    return f"Q{(day.month - 1) // 3 + 1} {day.year}"


def _figure(metric: tuple[str, str, str], rng: random.Random) -> str:
    _, prefix, suffix = metric
    if suffix == "%":
        return f"{rng.uniform(5, 70):.1f}%"
    if suffix == " employees":
        return f"{rng.randint(40, 25_000):,} employees"
    return f"{prefix}{rng.uniform(0.5, 950):.1f}M"


def _text(
    subject: str, obj: str, relation: str, metric: tuple[str, str, str], day: datetime, rng: random.Random
) -> str:
    period, figure = _quarter(day), _figure(metric, rng)
    if relation == "REPORTED":
        return f"{subject} reported {metric[0]} of {figure} for {period}"
    if relation == "ACQUIRED_STAKE_IN":
        return f"{subject} holds a {rng.uniform(2, 60):.1f}% stake in {obj} as of {day:%B %d, %Y}"
    if relation == "SUPPLIES":
        return f"{subject} supplies {obj} under a contract worth {figure} per year, signed {day:%Y-%m-%d}"
    if relation == "LENDS_TO":
        return f"{subject} extended a {figure} credit facility to {obj} at {rng.uniform(3, 11):.2f}% in {period}"
    if relation == "PARTNERS_WITH":
        return f"{subject} and {obj} expect {metric[0]} synergies of {figure} by {period}"
    return f"{subject} competes with {obj}; its {metric[0]} was {figure} in {period}"


def generate(facts: int, seed: int = SEED) -> ScaleDeal:
    """A deal of exactly `facts` facts; the same (facts, seed) always gives the same deal."""
    rng = random.Random(seed)
    # companies are the facts' sources, Zipf-like (a few hubs); counterparties are targets, uniform and never
    # sources (graphiti's BFS enumerates every directed path: hub-to-hub cycles would make it explode)
    n_companies, n_targets = max(8, facts // 40), max(12, facts // 4)
    n_entities = n_companies + n_targets
    names = _entity_names(n_entities, rng)
    entities = [
        EntitySpec(f"e{i}", name, ("Company",), f"{name}, a company in the deal", {"entity_type": "Company"})
        for i, name in enumerate(names)
    ]
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(n_companies)]

    def pick() -> int:
        return rng.choices(range(n_companies), weights)[0]

    pairs = int(facts * SUPERSEDED_SHARE)  # each: a superseded fact and its successor
    single = facts - 2 * pairs
    start = datetime(2021, 1, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = []
    for chain in range(pairs + single):
        source = pick()
        target = n_companies + rng.randrange(n_targets)
        relation = rng.choice(_RELATIONS)
        metric = rng.choice(_METRICS)
        day = start + timedelta(days=rng.randint(0, 3 * 365))
        length = 2 if chain < pairs else 1
        for step in range(length):
            when = day + timedelta(days=120 * step)
            rows.append(
                {
                    "key": f"f{chain}-{step}",
                    "source": source,
                    "target": target,
                    "relation": relation,
                    "text": _text(names[source], names[target], relation, metric, when, rng),
                    "valid_at": when,
                    "next": f"f{chain}-{step + 1}" if step + 1 < length else None,
                    "prev": f"f{chain}-{step - 1}" if step else None,
                }
            )
    rng.shuffle(rows)

    episodes: list[EpisodeSpec] = []
    episode_of: dict[str, str] = {}
    for number, first in enumerate(range(0, len(rows), FACTS_PER_EPISODE)):
        batch = rows[first : first + FACTS_PER_EPISODE]
        channel = rng.choices([c for c, _ in CHANNELS], [w for _, w in CHANNELS])[0]
        when = min(r["valid_at"] for r in batch)
        key = f"ep{number}"
        content = ". ".join(r["text"] for r in batch) + "."
        if channel == "document":
            doc = f"{names[batch[0]['source']]} {_quarter(when)} report"
            spec = EpisodeSpec(
                key, f"{doc} p{number % 40 + 1}", content, channel, when, doc, f"{doc}.pdf", number % 40 + 1, number % 7
            )
        else:
            spec = EpisodeSpec(key, f"{channel} {number}", content, channel, when, author=rng.choice(_ANALYSTS))
        episodes.append(spec)
        for r in batch:
            episode_of[r["key"]] = key

    by_key = {r["key"]: r for r in rows}
    fact_specs = []
    for r in sorted(rows, key=lambda r: r["key"]):
        attributes: dict[str, Any] = {}
        invalid_at = expired_at = None
        if r["prev"]:
            attributes["supersedes"] = stable_uuid(GROUP, "fact", r["prev"])
        if r["next"]:
            newer = by_key[r["next"]]
            attributes["superseded_by"] = stable_uuid(GROUP, "fact", newer["key"])
            invalid_at = expired_at = newer["valid_at"]
        fact_specs.append(
            FactSpec(
                key=r["key"],
                source=f"e{r['source']}",
                target=f"e{r['target']}",
                relation=r["relation"],
                fact=r["text"],
                episodes=(episode_of[r["key"]],),
                valid_at=r["valid_at"],
                invalid_at=invalid_at,
                expired_at=expired_at,
                attributes=attributes,
            )
        )
    query_rng = random.Random(seed + 1)
    hubs = names[:10]
    queries = tuple(
        f"What was {hubs[i % len(hubs)]}'s {query_rng.choice(_METRICS)[0]} in Q{query_rng.randint(1, 4)} "
        f"{query_rng.randint(2021, 2024)}?"
        for i in range(200)
    )
    return ScaleDeal(DealContent(episodes, entities, fact_specs), queries)


def data_dir_for(facts: int, settings: Settings | None = None) -> Path:
    """`<RETRIEVAL_LAB_DATA_DIR or .data>/bench-scale-<facts>`: the benchmark's own cache, never a real deal's."""
    base = (settings or get_settings()).resolved_data_dir
    return base / f"bench-scale-{facts}"


def cache_key(facts: int, embedder: str) -> str:
    return hashlib.sha256(f"{facts}|{GENERATOR_VERSION}|{SEED}|{embedder}".encode()).hexdigest()[:16]


async def ensure_deal(lab: Lab, facts: int) -> float | None:
    """Write the generated deal into `lab` unless the same one is there already: seconds taken, or None if reused."""
    content_hash = cache_key(facts, lab.embedder.info.describe())
    store = open_store(lab.settings.resolved_data_dir)
    existing = await lab.deal_book.get(GROUP)
    if existing is not None and existing.content_hash == content_hash:
        print(f"reusing the cached {facts:,}-fact deal in {lab.settings.resolved_data_dir}", file=sys.stderr)
        return None
    started = time.perf_counter()
    deal = generate(facts)
    record = DealRecord(
        group_id=GROUP,
        name=f"Synthetic deal, {facts:,} facts (scale benchmark)",
        description=f"generator v{GENERATOR_VERSION}, seed {SEED}",
        source="bench-scale",
        embedder_model=lab.embedder.info.model,
        embedder_dim=lab.embedder.info.dim,
        content_hash=content_hash,
        created_at=now_iso(),
    )
    plan = Rebuild(record, "benchmarks scale", replace=existing is not None, actor="benchmark")
    await lab.ingest.check_rebuild(store, existing, plan)

    progress = ProgressLines("generating", lambda line: print(line, file=sys.stderr, flush=True))

    async def write(track: Report) -> None:
        await lab.ingest.write_deal(GROUP, deal.content, track)
        await lab.backend.compact()

    await lab.ingest.rebuild_deal(store, existing, plan, write, report=progress)
    seconds = time.perf_counter() - started
    print(f"generated {facts:,} facts in {seconds:.1f} s", file=sys.stderr)
    return seconds


async def server_memory(lab: Lab) -> dict[str, Any]:
    """The graph server's `INFO memory` (used_memory, used_memory_human), or {} if it cannot be read."""
    falkor = lab.backend.falkor
    if falkor is None:
        return {}
    info = await falkor.connection.info("memory")
    return {"used_memory": int(info["used_memory"]), "used_memory_human": str(info["used_memory_human"])}


async def scale(
    lab: Lab,
    facts: int,
    depths: Sequence[int] = DEFAULT_DEPTHS,
    queries: int = 20,
    reranker: str = "local",
    stock_up_to: int | None = None,
    first_stage: FirstStageName = "exact",
) -> dict[str, Any]:
    """Generate (or reuse) the deal in `lab`, then bench it at each N beside stock search_(). With the vector
    index as first stage, the index is built first (kept with the deal) and its recall@50 measured."""
    from benchmarks.bench import bench

    generation_s = await ensure_deal(lab, facts)
    texts = list(generate(facts).queries[:queries])  # cheap: no embedding
    index: dict[str, Any] | None = None
    if first_stage == "vector_index":
        started = time.perf_counter()
        created = await lab.retrieval.ensure_vector_index(GROUP)
        index = {"build_s": round(time.perf_counter() - started, 1) if created else None}
        index |= asdict(await lab.retrieval.check_vector_recall(GROUP, texts, 50))
    rows, held = await bench(
        lab, GROUP, depths, 10, reranker, queries=texts, record=False, stock_up_to=stock_up_to, first_stage=first_stage
    )
    return {
        "first_stage": first_stage,
        "vector_index": index,
        "facts": facts,
        "generation_s": None if generation_s is None else round(generation_s, 1),
        "data_dir": str(lab.settings.resolved_data_dir),
        "server_memory": await server_memory(lab),
        "reranker": reranker,
        "held": held.__dict__ if held else None,
        "rows": [row.__dict__ for row in rows],
    }


def render_scale(result: dict[str, Any]) -> str:
    from benchmarks.bench import BenchRow, Held, render_bench

    generated = (
        f"generated in {result['generation_s']:.1f} s" if result["generation_s"] is not None else "cached deal reused"
    )
    memory = result["server_memory"]
    lines = [
        f"{result['facts']:,} facts ({generated}; {result['data_dir']})",
        render_bench(
            [BenchRow(**row) for row in result["rows"]],
            result["reranker"],
            held=Held(**result["held"]) if result.get("held") else None,
        ),
    ]
    if memory:
        lines.append(f"graph server memory: {memory['used_memory_human']} ({memory['used_memory']:,} bytes)")
    if index := result.get("vector_index"):
        built = f"built in {index['build_s']:.1f} s" if index["build_s"] is not None else "already built"
        lines.append(f"first stage: vector index ({built}); {RecallCheck(**index_fields(index)).summary()}")
    return "\n".join(lines)


def index_fields(index: dict[str, Any]) -> dict[str, Any]:
    return {f.name: index[f.name] for f in fields(RecallCheck)}
