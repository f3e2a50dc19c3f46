"""Entity merges: browse recorded merges, score candidate duplicates, merge / reject / undo.

Scoring a pair of entity names (every signal is kept and shown):

* `name_match` — graphiti's exact key (`_normalize_string_exact`: lowercase, collapsed whitespace) equal:
  1.0; else the *core* names equal — graphiti's fuzzy form (`_normalize_name_for_fuzzy`: alphanumerics
  only) without spaces and without trailing legal forms (Inc, LLC, Ltd, Corp, Co, ...): 0.9; else 0.
* `shingle` — Jaccard similarity of graphiti's 3-character shingles of the fuzzy form
  (`_cached_shingles`, `_jaccard_similarity`: the sets graphiti's MinHash approximates).
* `cosine` — cosine of the stored `name_embedding` vectors (negative counts as 0; None when missing).

`score = max(name_match, 0.4 * shingle + 0.6 * cosine)`, in [0, 1]. A name match decides alone (it is
graphiti's own deterministic rule); otherwise spelling and meaning must agree. Meaning weighs more
(abbreviations, reordered words), but cosine alone would merge neighbours in meaning such as "Revenue" and
"Net Revenue" (cosine 0.84 here): with their shingle Jaccard of 5/8 the score is 0.25 + 0.6 * cosine,
under the default threshold 0.85 for any cosine below 1.

Candidates leave out entities that are already aliases (a merged alias cannot be merged again) and pairs
an admin rejected. Up to `ALL_PAIRS_MAX` entities every pair is scored; above it pairs are blocked: same
core name, a shared MinHash LSH band (graphiti's `_minhash_signature` / `_lsh_bands`), or among each
entity's nearest names by cosine — and at most `MAX_ENTITIES` entities are scanned.

Merge, reject and undo are admin actions: validated first (clear refusals, nothing written), one atomic
graph query each (pipeline/merges/records.py), then audited in SQLite; if the audit cannot be written the
graph change is reverted, so no change goes unaudited.
"""

from __future__ import annotations

import asyncio
import json
import math
import uuid as uuidlib
import weakref
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from pipeline.audit import record_audit
from pipeline.errors import InvalidInput
from pipeline.graph import graphiti_compat as graphiti
from pipeline.graph.deals import now_iso
from pipeline.ingest.demo.seed import DEAL_FILE
from pipeline.lab import Lab
from pipeline.merges.records import FactMove, MergeRecord, apply_merge, read_merge_records, revert_merge
from pipeline.store.db import utc_now

DEFAULT_THRESHOLD = 0.85
CORE_NAME_MATCH = 0.9
W_SHINGLE, W_COSINE = 0.4, 0.6
MIN_CANDIDATE_SCORE = 0.5  # pairs under this are not listed
MAX_CANDIDATES = 200
ALL_PAIRS_MAX = 600  # entities; ~180k pairs
MAX_ENTITIES = 10_000
NEIGHBOURS = 10  # nearest names by cosine per entity, when blocking
MAX_BUCKET = 50  # an LSH bucket bigger than this is a common fragment, not a duplicate signal
LEGAL_FORMS = frozenset(
    {"inc", "incorporated", "llc", "ltd", "limited", "corp", "corporation", "co", "company", "plc", "gmbh", "lp"}
)
THRESHOLDS = tuple(round(i / 100, 2) for i in range(0, 101))


class MergeRefused(InvalidInput):
    """A merge, reject or undo that cannot be done; nothing was written."""


# --- scoring (pure) ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairSignals:
    name_match: float
    shingle: float
    cosine: float | None
    score: float


def core_name(name: str) -> str:
    """Graphiti's fuzzy form, without trailing legal forms and spaces: 'ACME Logistics, LLC' -> 'acmelogistics'."""
    tokens = graphiti.normalize_fuzzy(name).replace("'", "").split()
    while len(tokens) > 1 and tokens[-1] in LEGAL_FORMS:
        tokens.pop()
    return "".join(tokens)


def name_match(a: str, b: str) -> float:
    if graphiti.normalize_exact(a) == graphiti.normalize_exact(b):
        return 1.0
    core = core_name(a)
    return CORE_NAME_MATCH if core and core == core_name(b) else 0.0


def shingle_similarity(a: str, b: str) -> float:
    return graphiti.jaccard(
        graphiti.shingles(graphiti.normalize_fuzzy(a)), graphiti.shingles(graphiti.normalize_fuzzy(b))
    )


def cosine(u: Sequence[float] | None, v: Sequence[float] | None) -> float | None:
    if u is None or v is None or len(u) == 0 or len(u) != len(v):
        return None
    a, b = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b / norm) if norm else None


def combine(name: float, shingle: float, cos: float | None) -> float:
    blended = W_SHINGLE * shingle + W_COSINE * max(cos or 0.0, 0.0)
    return round(min(1.0, max(name, blended)), 4)


def score_pair(a: str, b: str, va: Sequence[float] | None = None, vb: Sequence[float] | None = None) -> PairSignals:
    name, shingle, cos = name_match(a, b), shingle_similarity(a, b), cosine(va, vb)
    return PairSignals(name, round(shingle, 4), None if cos is None else round(cos, 4), combine(name, shingle, cos))


@dataclass(frozen=True)
class PRPoint:
    threshold: float
    true_positives: int
    false_positives: int
    false_negatives: int
    precision: float | None  # None when nothing would be merged
    recall: float | None  # None when there are no true duplicates


def precision_recall(scored: Iterable[tuple[float, bool]], thresholds: Iterable[float] = THRESHOLDS) -> list[PRPoint]:
    """Precision and recall of 'merge when score >= threshold' against labels (same entity or not)."""
    pairs = list(scored)
    positives = sum(1 for _, same in pairs if same)
    points = []
    for t in thresholds:
        tp = sum(1 for s, same in pairs if same and s >= t)
        fp = sum(1 for s, same in pairs if not same and s >= t)
        points.append(
            PRPoint(
                threshold=t,
                true_positives=tp,
                false_positives=fp,
                false_negatives=positives - tp,
                precision=tp / (tp + fp) if tp + fp else None,
                recall=tp / positives if positives else None,
            )
        )
    return points


# --- entities and candidate pairs -------------------------------------------------------------------


@dataclass(frozen=True)
class EntityRef:
    uuid: str
    name: str
    key: str  # rl_key ('' for entities graphiti wrote itself)
    facts: int


@dataclass(frozen=True)
class CandidatePair:
    canonical: EntityRef  # suggested: the one with more facts (then the longer name)
    alias: EntityRef
    signals: PairSignals

    @property
    def score(self) -> float:
        return self.signals.score

    def auto_merges_at(self, threshold: float) -> bool:
        return self.signals.score >= threshold


@dataclass(frozen=True)
class CandidateReport:
    candidates: tuple[CandidatePair, ...]  # best first, score >= MIN_CANDIDATE_SCORE, at most MAX_CANDIDATES
    entities: int  # in the deal
    scanned: int  # entities whose pairs were scored (aliases left out, capped at MAX_ENTITIES)
    aliases_left_out: int
    pairs_scored: int
    rejected_hidden: int
    blocked: bool  # True when pairs were blocked instead of all-pairs
    capped: bool


def _canonical_first(a: EntityRef, b: EntityRef) -> tuple[EntityRef, EntityRef]:
    return (a, b) if (a.facts, len(a.name), b.uuid) >= (b.facts, len(b.name), a.uuid) else (b, a)


def _unit_matrix(vectors: Sequence[Sequence[float] | None]) -> np.ndarray | None:
    dims = {len(v) for v in vectors if v}
    if len(dims) != 1:
        return None
    dim = dims.pop()
    matrix = np.array([v if v else [0.0] * dim for v in vectors], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def blocked_pairs(
    names: Sequence[str], vectors: Sequence[Sequence[float] | None], neighbours: int = NEIGHBOURS
) -> set[tuple[int, int]]:
    """Index pairs worth scoring in a big deal: same core name, shared LSH band, or near in name embedding."""
    pairs: set[tuple[int, int]] = set()
    buckets: defaultdict[Any, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        buckets[("core", core_name(name))].append(i)
        signature = graphiti.minhash_signature(graphiti.shingles(graphiti.normalize_fuzzy(name)))
        for band_index, band in enumerate(graphiti.lsh_bands(signature)):
            buckets[(band_index, band)].append(i)
    for members in buckets.values():
        if 1 < len(members) <= MAX_BUCKET:
            pairs.update(combinations(sorted(members), 2))
    unit = _unit_matrix(vectors)
    if unit is not None and len(names) > 1:
        k = min(neighbours, len(names) - 1)
        for start in range(0, len(names), 1024):
            sims = unit[start : start + 1024] @ unit.T
            for row, i in enumerate(range(start, min(start + 1024, len(names)))):
                sims[row, i] = -2.0
                for j in np.argpartition(-sims[row], k - 1)[:k]:
                    pairs.add((min(i, int(j)), max(i, int(j))))
    return pairs


def score_candidates(
    entities: Sequence[EntityRef],
    vectors: Sequence[Sequence[float] | None],
    rejected: Collection[frozenset[str]] = (),
    all_pairs_max: int = ALL_PAIRS_MAX,
    min_score: float = MIN_CANDIDATE_SCORE,
    neighbours: int = NEIGHBOURS,
) -> tuple[list[CandidatePair], int, int, bool]:
    """(candidates best first, pairs scored, rejected pairs hidden, blocked?) for these entities."""
    names = [e.name for e in entities]
    blocked = len(entities) > all_pairs_max
    index_pairs: Iterable[tuple[int, int]] = (
        sorted(blocked_pairs(names, vectors, neighbours)) if blocked else combinations(range(len(entities)), 2)
    )
    unit = _unit_matrix(vectors)
    found, scored, hidden = [], 0, 0
    for i, j in index_pairs:
        scored += 1
        name, shingle = name_match(names[i], names[j]), shingle_similarity(names[i], names[j])
        cos = float(unit[i] @ unit[j]) if unit is not None and vectors[i] and vectors[j] else None
        signals = PairSignals(
            name, round(shingle, 4), None if cos is None else round(cos, 4), combine(name, shingle, cos)
        )
        if signals.score < min_score:
            continue
        if frozenset((entities[i].uuid, entities[j].uuid)) in rejected:
            hidden += 1
            continue
        canonical, alias = _canonical_first(entities[i], entities[j])
        found.append(CandidatePair(canonical, alias, signals))
    found.sort(key=lambda c: (-c.score, c.canonical.name, c.alias.name))
    return found, scored, hidden, blocked


async def _entity_rows(lab: Lab, group_id: str, limit: int) -> list[dict[str, Any]]:
    return await lab.backend.query(
        group_id,
        """
        MATCH (n:Entity {group_id: $g})
        WITH n ORDER BY n.uuid LIMIT $limit
        OPTIONAL MATCH (n)-[e:RELATES_TO]-(:Entity)
        RETURN n.uuid AS uuid, n.name AS name, n.rl_key AS key, n.name_embedding AS vector, count(e) AS facts
        """,
        g=group_id,
        limit=limit,
    )


def _ref(row: dict[str, Any]) -> EntityRef:
    return EntityRef(row["uuid"], row.get("name") or "", row.get("key") or "", int(row.get("facts") or 0))


async def count_entities(lab: Lab, group_id: str) -> int:
    rows = await lab.backend.query(group_id, "MATCH (n:Entity {group_id: $g}) RETURN count(n) AS n", g=group_id)
    return int(rows[0]["n"]) if rows else 0


async def list_entities(lab: Lab, group_id: str) -> list[EntityRef]:
    """Every entity of the deal (up to MAX_ENTITIES), by name."""
    rows = await _entity_rows(lab, group_id, MAX_ENTITIES)
    return sorted((_ref(r) for r in rows), key=lambda e: (e.name.lower(), e.uuid))


async def find_candidates(
    lab: Lab, group_id: str, min_score: float = MIN_CANDIDATE_SCORE, limit: int = MAX_CANDIDATES
) -> CandidateReport:
    """Pairs that look like the same entity, best first (already-merged aliases and rejected pairs left out)."""
    await lab.deal(group_id)
    total = await count_entities(lab, group_id)
    aliases = {r.alias_uuid for r in await read_merge_records(lab.backend, group_id)}
    rows = [r for r in await _entity_rows(lab, group_id, MAX_ENTITIES + len(aliases)) if r["uuid"] not in aliases]
    capped = len(rows) > MAX_ENTITIES or total - len(aliases) > len(rows)
    rows = rows[:MAX_ENTITIES]
    found, scored, hidden, blocked = score_candidates(
        [_ref(r) for r in rows], [r.get("vector") for r in rows], rejected_pairs_set(lab, group_id), min_score=min_score
    )
    return CandidateReport(
        candidates=tuple(found[:limit]),
        entities=total,
        scanned=len(rows),
        aliases_left_out=len(aliases),
        pairs_scored=scored,
        rejected_hidden=hidden,
        blocked=blocked,
        capped=capped,
    )


async def _entity(lab: Lab, group_id: str, entity_uuid: str) -> dict[str, Any]:
    if not isinstance(entity_uuid, str) or not entity_uuid.strip():
        raise MergeRefused("Pick an entity: no entity id was given.")
    rows = await lab.backend.query(
        group_id,
        """
        MATCH (n:Entity {uuid: $u}) WHERE n.group_id = $g
        RETURN n.uuid AS uuid, n.name AS name, n.rl_key AS key, n.name_embedding AS vector
        """,
        u=entity_uuid,
        g=group_id,
    )
    if not rows:
        raise MergeRefused(f"No entity {entity_uuid!r} in deal {group_id!r}: it is unknown or belongs to another deal.")
    return rows[0]


async def score_entities(lab: Lab, group_id: str, uuid_a: str, uuid_b: str) -> PairSignals:
    a, b = await _entity(lab, group_id, uuid_a), await _entity(lab, group_id, uuid_b)
    return score_pair(a["name"] or "", b["name"] or "", a.get("vector"), b.get("vector"))


# --- labelled pairs (demo deals): precision and recall per threshold ----------------------------------


@dataclass(frozen=True)
class LabelledPair:
    name_a: str
    name_b: str
    same: bool
    merged: bool  # recorded as a merge in the demo data (scored from the names all the same)
    signals: PairSignals


@dataclass(frozen=True)
class LabelledEvaluation:
    pairs: tuple[LabelledPair, ...]
    points: tuple[PRPoint, ...]

    def at(self, threshold: float) -> PRPoint:
        return min(self.points, key=lambda p: abs(p.threshold - threshold))


async def labelled_evaluation(lab: Lab, group_id: str) -> LabelledEvaluation | None:
    """Score the demo's labelled entity pairs (`entity_pairs`, plus the 9 recorded merges as true pairs).

    None for deals that are not built from the demo data (they carry no labelled pairs)."""
    deal = await lab.deal(group_id)
    if deal.source != "demo":
        return None
    data = json.loads(DEAL_FILE.read_text(encoding="utf-8"))
    merged = {frozenset((m["alias"], m["canonical"])) for m in data["merges"]}
    labels: dict[frozenset[str], tuple[str, str, bool]] = {}
    for m in data["merges"]:
        labels[frozenset((m["alias"], m["canonical"]))] = (m["alias"], m["canonical"], True)
    for p in data.get("entity_pairs", []):
        labels.setdefault(frozenset((p["a"], p["b"])), (p["a"], p["b"], bool(p["same"])))
    rows = await lab.backend.query(
        group_id,
        "MATCH (n:Entity {group_id: $g}) WHERE n.rl_key IN $keys "
        "RETURN n.rl_key AS key, n.name AS name, n.name_embedding AS vector",
        g=group_id,
        keys=sorted({k for pair in labels for k in pair}),
    )
    by_key = {r["key"]: r for r in rows}
    pairs = tuple(
        LabelledPair(
            by_key[a]["name"],
            by_key[b]["name"],
            same,
            frozenset((a, b)) in merged,
            score_pair(by_key[a]["name"], by_key[b]["name"], by_key[a].get("vector"), by_key[b].get("vector")),
        )
        for a, b, same in labels.values()
        if a in by_key and b in by_key
    )
    if not pairs:
        return None
    return LabelledEvaluation(pairs, tuple(precision_recall((p.signals.score, p.same) for p in pairs)))


# --- recorded merges ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BroughtFact:
    uuid: str
    side: str  # the alias was the fact's "source" or "target"
    relation: str
    fact: str
    other: str  # the name at the fact's other end
    current: bool  # not superseded
    exists: bool


@dataclass(frozen=True)
class MergeView:
    record: MergeRecord
    facts: tuple[BroughtFact, ...]

    def matches(self, text: str) -> bool:
        needle = " ".join(text.lower().split())
        if not needle:
            return True
        r = self.record
        hay = [r.alias_name, r.canonical_name, r.method, r.merged_by, r.merged_at, *(f.fact for f in self.facts)]
        return any(needle in h.lower() for h in hay if h)


async def list_merges(lab: Lab, group_id: str, search: str = "") -> list[MergeView]:
    """Every recorded merge, newest first, with the facts each alias brought; `search` filters them."""
    records = await read_merge_records(lab.backend, group_id)
    wanted = sorted({m["fact"] for r in records for m in r.moved_facts})
    rows = (
        await lab.backend.query(
            group_id,
            """
            MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $uuids
            RETURN e.uuid AS uuid, e.name AS relation, e.fact AS fact, s.uuid AS s, s.name AS s_name,
                   t.name AS t_name, e.invalid_at IS NULL AND e.expired_at IS NULL AS current
            """,
            uuids=wanted,
        )
        if wanted
        else []
    )
    by_uuid = {r["uuid"]: r for r in rows}
    views = []
    for record in sorted(records, key=lambda r: (r.merged_at, r.uuid), reverse=True):
        facts = []
        for moved in record.moved_facts:
            row = by_uuid.get(moved["fact"])
            if row is None:
                facts.append(
                    BroughtFact(moved["fact"], moved["side"], "", "(this fact no longer exists)", "", False, False)
                )
                continue
            other = row["t_name"] if moved["side"] == "source" else row["s_name"]
            facts.append(
                BroughtFact(moved["fact"], moved["side"], row["relation"] or "", row["fact"] or "", other or "",
                            bool(row["current"]), True)
            )  # fmt: skip
        views.append(MergeView(record, tuple(facts)))
    return [v for v in views if v.matches(search)]


# --- admin actions ------------------------------------------------------------------------------------

_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _lock() -> asyncio.Lock:
    """One merge action at a time per event loop (the dashboard has one loop per process)."""
    loop = asyncio.get_running_loop()
    if loop not in _locks:
        _locks[loop] = asyncio.Lock()
    return _locks[loop]


def _actor(actor: str | None) -> str:
    name = " ".join((actor or "").split())
    if not name:
        raise MergeRefused("Admin actions need the admin's name (it is kept in the audit log).")
    return name


async def _fact_endpoints(lab: Lab, group_id: str, where: str, **params: Any) -> list[dict[str, Any]]:
    return await lab.backend.query(
        group_id,
        f"MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE {where} "
        "RETURN e.uuid AS fact, s.uuid AS source, t.uuid AS target ORDER BY e.uuid",
        **params,
    )


def _describe(record: MergeRecord) -> dict[str, Any]:
    return {**asdict(record), "moved_facts": list(record.moved_facts)}


async def merge_entities(
    lab: Lab, group_id: str, alias_uuid: str, canonical_uuid: str, actor: str | None, score: float | None = None
) -> MergeRecord:
    """Merge `alias` into `canonical`: its facts move to the canonical entity, the alias node and its name
    stay, MENTIONS stay, and an IS_DUPLICATE_OF record (method "manual") keeps what moved, for undo."""
    who = _actor(actor)
    await lab.deal(group_id)
    if alias_uuid == canonical_uuid:
        raise MergeRefused("An entity cannot be merged into itself: pick two different entities.")
    async with _lock():
        alias = await _entity(lab, group_id, alias_uuid)
        canonical = await _entity(lab, group_id, canonical_uuid)
        records = await read_merge_records(lab.backend, group_id)
        for r in records:
            if r.alias_uuid == alias_uuid:
                raise MergeRefused(
                    f"{alias['name']!r} is already merged into {r.canonical_name!r}: undo that merge first."
                )
            if r.alias_uuid == canonical_uuid:
                raise MergeRefused(
                    f"{canonical['name']!r} is itself an alias of {r.canonical_name!r}: merge into "
                    f"{r.canonical_name!r} instead (merge chains are not allowed)."
                )
        if any(r.canonical_uuid == alias_uuid for r in records):
            n = sum(r.canonical_uuid == alias_uuid for r in records)
            raise MergeRefused(
                f"{alias['name']!r} is the canonical entity of {n} merge(s): undo those first, or merge the "
                "other way round (merge chains are not allowed)."
            )
        if score is None:
            score = score_pair(
                alias["name"] or "", canonical["name"] or "", alias.get("vector"), canonical.get("vector")
            ).score
        if not (isinstance(score, int | float) and math.isfinite(score) and 0.0 <= score <= 1.0):
            raise MergeRefused(f"The merge score must be between 0 and 1; got {score!r}.")
        facts = await _fact_endpoints(lab, group_id, "s.uuid = $a OR t.uuid = $a", a=alias_uuid)
        moves, moved = [], []
        for f in facts:
            moves.append(
                FactMove(
                    f["fact"], f["source"], f["target"],
                    canonical_uuid if f["source"] == alias_uuid else f["source"],
                    canonical_uuid if f["target"] == alias_uuid else f["target"],
                )
            )  # fmt: skip
            moved += [{"fact": f["fact"], "side": side} for side in ("source", "target") if f[side] == alias_uuid]
        record = MergeRecord(
            uuid=str(uuidlib.uuid4()),
            alias_uuid=alias_uuid,
            canonical_uuid=canonical_uuid,
            alias_name=alias["name"] or "",
            canonical_name=canonical["name"] or "",
            method="manual",
            score=round(float(score), 4),
            merged_at=now_iso(),
            merged_by=who,
            moved_facts=tuple(moved),
        )
        if not await apply_merge(lab.backend, group_id, record, moves):
            raise MergeRefused("The entities changed while merging (another merge?); nothing was written. Try again.")
        try:
            record_audit(
                lab.store, who, "merge", group_id, alias_uuid, {**_describe(record), "facts_moved": len(facts)}
            )
        except BaseException:
            await revert_merge(lab.backend, group_id, record.uuid, _reverse(moves))
            raise
    return record


def _reverse(moves: Sequence[FactMove]) -> list[FactMove]:
    return [FactMove(m.fact, m.new_source, m.new_target, m.source, m.target) for m in moves]


@dataclass(frozen=True)
class UndoResult:
    record: MergeRecord
    restored: int  # facts moved back to the alias
    missing: tuple[str, ...]  # moved facts that no longer exist


async def undo_merge(lab: Lab, group_id: str, merge_uuid: str, actor: str | None) -> UndoResult:
    """Undo a merge (seeded or made here): its facts go back to the alias and the merge record is removed."""
    who = _actor(actor)
    await lab.deal(group_id)
    async with _lock():
        record = next((r for r in await read_merge_records(lab.backend, group_id) if r.uuid == merge_uuid), None)
        if record is None:
            raise MergeRefused(f"No merge {merge_uuid!r} in deal {group_id!r}: it is unknown or already undone.")
        sides: dict[str, set[str]] = defaultdict(set)
        for m in record.moved_facts:
            sides[m["fact"]].add(m["side"])
        rows = await _fact_endpoints(lab, group_id, "e.uuid IN $uuids", uuids=sorted(sides))
        moves = [
            FactMove(
                r["fact"], r["source"], r["target"],
                record.alias_uuid if "source" in sides[r["fact"]] else r["source"],
                record.alias_uuid if "target" in sides[r["fact"]] else r["target"],
            )
            for r in rows
        ]  # fmt: skip
        missing = tuple(sorted(set(sides) - {r["fact"] for r in rows}))
        if not await revert_merge(lab.backend, group_id, record.uuid, moves):
            raise MergeRefused("The merge record could not be removed; nothing was changed. Try again.")
        try:
            with lab.store.transaction() as conn:
                conn.execute(
                    "INSERT INTO merge_undos (group_id, merge_uuid, alias_uuid, canonical_uuid, record, undone_by,"
                    " undone_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (group_id, record.uuid, record.alias_uuid, record.canonical_uuid,
                     json.dumps(_describe(record), sort_keys=True), who, utc_now()),
                )  # fmt: skip
                record_audit(
                    lab.store, who, "merge.undo", group_id, record.alias_uuid,
                    {"merge": _describe(record), "facts_restored": len(moves), "facts_missing": list(missing)},
                    conn=conn,
                )  # fmt: skip
        except BaseException:
            await apply_merge(lab.backend, group_id, record, _reverse(moves))
            raise
    return UndoResult(record, len(moves), missing)


@dataclass(frozen=True)
class Rejection:
    uuid_a: str
    uuid_b: str
    name_a: str
    name_b: str
    score: float | None
    rejected_by: str
    rejected_at: str


def rejected_pairs(lab: Lab, group_id: str) -> list[Rejection]:
    rows = lab.store.query(
        "SELECT * FROM merge_rejections WHERE group_id = ? ORDER BY rejected_at DESC, uuid_a", (group_id,)
    )
    return [
        Rejection(r["uuid_a"], r["uuid_b"], r["name_a"], r["name_b"], r["score"], r["rejected_by"], r["rejected_at"])
        for r in rows
    ]


def rejected_pairs_set(lab: Lab, group_id: str) -> set[frozenset[str]]:
    return {frozenset((r.uuid_a, r.uuid_b)) for r in rejected_pairs(lab, group_id)}


async def reject_pair(lab: Lab, group_id: str, uuid_a: str, uuid_b: str, actor: str | None) -> Rejection:
    """Mark a candidate pair as not the same entity: it is never suggested again."""
    who = _actor(actor)
    await lab.deal(group_id)
    if uuid_a == uuid_b:
        raise MergeRefused("A pair needs two different entities.")
    a, b = sorted([await _entity(lab, group_id, uuid_a), await _entity(lab, group_id, uuid_b)], key=lambda e: e["uuid"])
    if frozenset((a["uuid"], b["uuid"])) in rejected_pairs_set(lab, group_id):
        raise MergeRefused(f"{a['name']!r} and {b['name']!r} are already rejected as duplicates.")
    signals = score_pair(a["name"] or "", b["name"] or "", a.get("vector"), b.get("vector"))
    rejection = Rejection(a["uuid"], b["uuid"], a["name"] or "", b["name"] or "", signals.score, who, utc_now())
    with lab.store.transaction() as conn:
        conn.execute(
            "INSERT INTO merge_rejections (group_id, uuid_a, uuid_b, name_a, name_b, score, rejected_by, rejected_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (group_id, *asdict(rejection).values()),
        )
        record_audit(
            lab.store,
            who,
            "merge.reject",
            group_id,
            f"{a['uuid']}|{b['uuid']}",
            {**asdict(rejection), **asdict(signals)},
            conn=conn,
        )
    return rejection


def undone_merges(lab: Lab, group_id: str) -> list[dict[str, Any]]:
    """Merges undone in this deal, newest first: the record as it was, who undid it and when."""
    rows = lab.store.query("SELECT * FROM merge_undos WHERE group_id = ? ORDER BY id DESC", (group_id,))
    return [{**json.loads(r["record"]), "undone_by": r["undone_by"], "undone_at": r["undone_at"]} for r in rows]
