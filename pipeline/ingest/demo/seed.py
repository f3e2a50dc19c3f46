"""Seed the bundled demo deal (`data/deal.json`) through graphiti's models, no LLM.

Idempotent: the store records a hash of the source data and embedder; seeding again with the same
inputs does nothing, and changed inputs rebuild the deal from scratch. Supersession and merges are
recorded the way the admin actions record them, so the pages treat seeded and user-made ones alike.

Also the demo's labelled entity pairs with the merge score's precision/recall on them (`labelled_evaluation`:
`deal.json` labels pairs in `entity_pairs`; its recorded merges count as true pairs too, a merge label winning over
an `entity_pairs` label for the same two entities), and its one-click examples, measured when it is seeded
(`measure_examples`): a small sweep of its labelled set, saved as the deal's first experiment, so Compare and Scores
offer the queries where reranking helps most from the first start (`pipeline.comparison.examples` reads the latest
experiment; without one it could only list every labelled query). That sweep is the one Evaluate runs, on two
settings: first-stage order and the local re-scorer (offline, no key), both at the default N and k. A deal that
already has an experiment (a user's sweep, or this one from an earlier seed: reseeding writes the same graph, so its
numbers still hold) is left as it is.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.audit import record_audit
from pipeline.deals import DealRecord, get_deal, validate_group_id
from pipeline.embedders.base import LabEmbedder
from pipeline.evaluation.experiments import list_experiments, save_experiment, unique_name
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.graph.backend import GraphBackend
from pipeline.ingest.demo import DEAL_FILE, QRELS_FILE, QUERIES_FILE
from pipeline.ingest.loading import (
    DealContent,
    EntitySpec,
    EpisodeSpec,
    FactSpec,
    parse_time,
    stable_uuid,
    write_deal,
)
from pipeline.ingest.progress import Report
from pipeline.ingest.rebuild import Announce, Rebuild, check_rebuild, rebuild_deal
from pipeline.journal.kinds import Finished, register
from pipeline.journal.records import COMPLETED, JournalEntry
from pipeline.journal.run import admin_section, journalled
from pipeline.merges.labelled import LabelledEvaluation, PairLabel, evaluate_labels
from pipeline.merges.records import MergeRecord, write_merge_record
from pipeline.query_sets import save_keyed_files
from pipeline.query_sets.files import check_references, read_qrels, read_queries
from pipeline.store import Store, open_store
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab

DEMO_GROUP = "demo"  # the bundled deal: what `scripts/run.sh` opens and the sidebar picks first
LOADER_VERSION = "1"
SOURCE = "demo"  # the deals row's source: what seed-demo may rebuild without --replace
EXAMPLES_NAME = "Demo examples (measured at seeding)"
EXAMPLE_RERANKERS = ("none", "local")


@dataclass(frozen=True)
class SeedResult:
    group_id: str
    skipped: bool
    facts: int
    entities: int
    episodes: int
    merges: int


def _hash(embedder: LabEmbedder) -> str:
    digest = hashlib.sha256(LOADER_VERSION.encode())
    for path in (DEAL_FILE, QUERIES_FILE, QRELS_FILE):
        digest.update(path.read_bytes())
    digest.update(embedder.info.describe().encode())
    return digest.hexdigest()[:16]


def _episode(row: dict[str, Any], documents: dict[str, dict[str, Any]]) -> EpisodeSpec:
    channel = row["channel"]
    valid_at = parse_time(row["date"])
    assert valid_at is not None
    if channel == "document":
        doc = documents[row["document"]]
        return EpisodeSpec(
            key=row["id"],
            name=f"{doc['name']} p{row['page']} c{row['chunk']}",
            content=row["content"],
            channel=channel,
            valid_at=valid_at,
            doc_id=doc["id"],
            doc_name=doc["name"],
            page=int(row["page"]),
            chunk=int(row["chunk"]),
        )
    if channel == "qa_response":
        content = f"Q: {row['question']}\nA: {row['content']}"
        name = f"Q&A {row['id']}"
    else:
        content, name = row["content"], f"Analyst chat {row['id']}"
    return EpisodeSpec(
        key=row["id"],
        name=name,
        content=content,
        channel=channel,
        valid_at=valid_at,
        doc_id=row["id"],
        doc_name=name,
        author=row.get("author", ""),
    )


def build_content(group_id: str, deal: dict[str, Any]) -> tuple[DealContent, list[MergeRecord]]:
    """Turn deal.json into specs: supersession dates filled in, merged aliases' facts re-attributed."""
    documents = {d["id"]: d for d in deal["documents"]}
    episodes = [_episode(row, documents) for row in deal["episodes"]]
    episode_dates = {e.key: e.valid_at for e in episodes}
    entities = [
        EntitySpec(e["id"], e["name"], (e["type"],), e.get("summary", ""), {"entity_type": e["type"]})
        for e in deal["entities"]
    ]
    canonical_of = {m["alias"]: m["canonical"] for m in deal["merges"]}
    moved: dict[str, list[dict[str, str]]] = {alias: [] for alias in canonical_of}

    fact_rows = {f["id"]: f for f in deal["facts"]}
    superseded_by = {f["supersedes"]: f["id"] for f in deal["facts"] if f.get("supersedes")}
    facts = []
    for row in deal["facts"]:
        attributes: dict[str, Any] = {}
        source, target = row["source"], row["target"]
        for side, key in (("source", source), ("target", target)):
            if key in canonical_of:
                moved[key].append({"fact": stable_uuid(group_id, "fact", row["id"]), "side": side})
        source, target = canonical_of.get(source, source), canonical_of.get(target, target)
        invalid_at = expired_at = None
        if row.get("supersedes"):
            attributes["supersedes"] = stable_uuid(group_id, "fact", row["supersedes"])
        if row["id"] in superseded_by:
            newer = fact_rows[superseded_by[row["id"]]]
            attributes["superseded_by"] = stable_uuid(group_id, "fact", newer["id"])
            invalid_at = parse_time(newer["valid_at"])
            expired_at = min(episode_dates[k] for k in newer["episodes"])
        facts.append(
            FactSpec(
                key=row["id"],
                source=source,
                target=target,
                relation=row["relation"],
                fact=row["fact"],
                episodes=tuple(row["episodes"]),
                valid_at=parse_time(row.get("valid_at")),
                invalid_at=invalid_at,
                expired_at=expired_at,
                attributes=attributes,
            )
        )
    names = {e["id"]: e["name"] for e in deal["entities"]}
    merges = [
        MergeRecord(
            uuid=stable_uuid(group_id, "merge", m["alias"]),
            alias_uuid=stable_uuid(group_id, "entity", m["alias"]),
            canonical_uuid=stable_uuid(group_id, "entity", m["canonical"]),
            alias_name=names[m["alias"]],
            canonical_name=names[m["canonical"]],
            method=m["method"],
            score=m.get("score"),
            merged_at=m["merged_at"],
            merged_by=m.get("merged_by") or "seed",
            moved_facts=tuple(moved[m["alias"]]),
        )
        for m in deal["merges"]
    ]
    return DealContent(episodes, entities, facts), merges


def _save_labels(data_dir: Path, group_id: str, content: DealContent) -> None:
    """The demo's labelled set, stored with the deal (the same set again writes nothing)."""
    save_keyed_files(open_store(data_dir), group_id, QUERIES_FILE, QRELS_FILE, "demo", {f.key for f in content.facts})


async def seed_demo(
    backend: GraphBackend,
    embedder: LabEmbedder,
    data_dir: Path,
    group_id: str = DEMO_GROUP,
    force: bool = False,
    replace: bool = False,
    actor: str = "loader",
    announce: Announce | None = None,
) -> SeedResult:
    """Seed the demo deal as `group_id` (`force`: rebuild even if unchanged). Into an existing deal of another
    source, or one an admin changed (corrections, merges), only with `replace` (the loss is then `announce`d
    and audited)."""
    validate_group_id(group_id)
    backend.require_writable(group_id, "seed-demo")
    deal = json.loads(DEAL_FILE.read_text(encoding="utf-8"))
    content, merges = build_content(group_id, deal)
    queries, qrels = read_queries(QUERIES_FILE), read_qrels(QRELS_FILE)
    check_references(queries, qrels, {f.key for f in content.facts}, "demo query set")
    counts = SeedResult(group_id, False, len(content.facts), len(content.entities), len(content.episodes), len(merges))

    content_hash = _hash(embedder)
    store = open_store(data_dir)
    existing = await get_deal(backend, store, group_id)
    if existing and existing.source == SOURCE and existing.content_hash == content_hash and not force:
        _save_labels(data_dir, group_id, content)
        return SeedResult(**{**counts.__dict__, "skipped": True})
    record = DealRecord(
        group_id=group_id,
        name=deal["name"],
        description=deal.get("description", ""),
        source=SOURCE,
        embedder_model=embedder.info.model,
        embedder_dim=embedder.info.dim,
        content_hash=content_hash,
        created_at=now_iso(),
    )
    plan = Rebuild(record, "seed-demo", replace, actor, own_merges={m.uuid for m in merges}, facts=len(content.facts))
    await check_rebuild(backend, store, existing, plan)

    async def write(track: Report) -> None:
        await write_deal(backend, group_id, content, embedder, track)
        for merge in merges:
            await write_merge_record(backend, group_id, merge)
        _save_labels(data_dir, group_id, content)
        await backend.compact()

    await rebuild_deal(backend, store, existing, plan, write, announce)
    return counts


def labelled_pairs() -> list[PairLabel]:
    """The demo's labelled pairs (entity keys, the same in every deal seeded from the demo data)."""
    data = json.loads(DEAL_FILE.read_text(encoding="utf-8"))
    labels: dict[frozenset[str], PairLabel] = {}
    for m in data["merges"]:
        labels[frozenset((m["alias"], m["canonical"]))] = PairLabel(m["alias"], m["canonical"], True, merged=True)
    for p in data.get("entity_pairs", []):
        labels.setdefault(frozenset((p["a"], p["b"])), PairLabel(p["a"], p["b"], bool(p["same"])))
    return list(labels.values())


async def labelled_evaluation(lab: Lab, group_id: str) -> LabelledEvaluation | None:
    """Precision and recall on the labelled pairs; None for deals not built from the demo data (no labels)."""
    deal = await lab.deal(group_id)
    if deal.source != "demo":
        return None
    return await evaluate_labels(lab.backend, group_id, labelled_pairs())


async def measure_examples(lab: Lab, group_id: str) -> int | None:
    """Sweep the seeded demo deal's labelled set without and with the local re-scorer and save it; the
    experiment's id, or None when the deal already has an experiment."""
    store = lab.store
    if list_experiments(store, group_id):
        return None
    settings = lab.settings
    spec = SweepSpec(group_id, (settings.default_candidates,), (settings.default_top_k,), EXAMPLE_RERANKERS)
    result = await run_sweep(lab, spec)
    return save_experiment(store, result, unique_name(store, group_id, EXAMPLES_NAME))


KIND_RESET = "deal.reset_demo"  # journal kind = audit action


async def reset_demo(lab: Lab, actor: str, group_id: str = DEMO_GROUP) -> SeedResult:
    """Admin action: rebuild the demo deal from its bundled data, dropping every change made to it (as a
    `--replace`: audited as `deal.replace` too, its open corrections closed as discarded). Journalled under the
    admin lock; a reset cut off midway cannot be rolled back (the old graph is gone), so recovery completes it."""
    lab.require_access(group_id, "reset-demo")
    lab.backend.require_writable(group_id, "reset-demo")
    async with admin_section(lab), journalled(lab, KIND_RESET, group_id, actor, {"group_id": group_id}) as entry:
        result = await _reseed(lab, actor, group_id)
        await entry.step("reseed")
        with lab.store.transaction() as conn:
            _record_reset(conn, lab.store, actor, group_id, result)
            entry.commit(conn)
    return result


async def _reseed(lab: Lab, actor: str, group_id: str) -> SeedResult:
    settings = lab.settings
    return await seed_demo(lab.backend, lab.embedder, settings.resolved_data_dir, group_id, True, True, actor)


def _record_reset(conn: sqlite3.Connection, store: Store, actor: str, group_id: str, result: SeedResult) -> None:
    details = {"facts": result.facts, "merges": result.merges}
    record_audit(store, actor, KIND_RESET, group_id, group_id, details, conn=conn)


async def _complete_reset(lab: Lab, entry: JournalEntry) -> Finished:
    """Run the (idempotent) rebuild again; its audit entry lands as the journal entry closes."""
    group_id = entry.group_id
    result = await _reseed(lab, entry.actor, group_id)
    store = lab.store

    def write(conn: sqlite3.Connection) -> None:
        _record_reset(conn, store, entry.actor, group_id, result)

    return Finished(COMPLETED, {"completed": KIND_RESET, "facts": result.facts}, write)


register(KIND_RESET, ("reseed",), _complete_reset)
