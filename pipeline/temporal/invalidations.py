"""The invalidation audit: every fact a write retired, the fact that most likely retired it, and the evidence that
the retirement was collateral (graphiti #1728: edge invalidation retiring facts a new fact does not contradict).

graphiti records no link from a retired fact to what retired it. Its `add_episode` extracts the episode's facts,
then sets `expired_at` (to the moment of that write) on the facts it judged contradicted: so the retiring facts are
those extracted from the episode written last before the retirement. A correction of ours records the link itself
(`superseded_by`); graphiti's date rule (same two entities, the new `valid_at` equal to the old `invalid_at`) is the
last resort.

The warning signs, each a line of evidence: the new fact could not replace the old by the rule proposed in graphiti
#1729 (it links neither the same two entities nor shares one in the same position under the same relation name); the
retiring fact is older (by `valid_at`) than the fact it retired; no retiring fact can be found. Within as many signs,
the larger batch retired at one instant comes first (#1728 found collateral retirements clustered so), then the texts
with fewest words in common. Neither is a sign alone: a data-room update retires many facts at once, and an update
restates a figure in other words ("served 112 customers" -> "customer count rose to 118": 5% of words in common).
Pure functions over the deal's facts and its episodes' write times; nothing here writes the graph.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pipeline.temporal.records import FactRow, InvalidationAudit, Retirement
from pipeline.temporal.supersession import infer_links
from pipeline.utc import as_utc, to_utc

if TYPE_CHECKING:
    from pipeline.lab import Lab

NO_RETIRER = "no fact of the write that retired it was found"
# from an episode's write to the retirements it causes: graphiti's extraction and resolution (LLM calls) in between
WRITE_WINDOW = timedelta(hours=1)
WORD = re.compile(r"[^\W_]+")


def words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in WORD.findall(text))


def similarity(a: str, b: str) -> float:
    """Words in common over words in either (Jaccard), case aside."""
    left, right = words(a), words(b)
    return len(left & right) / len(left | right) if left | right else 0.0


def replaceable(old: FactRow, new: FactRow) -> bool:
    """graphiti #1729's rule: the new fact links the same two entities, or shares one endpoint in the same position
    under the same relation name."""
    if {old.source_uuid, old.target_uuid} == {new.source_uuid, new.target_uuid}:
        return True
    same_end = old.source_uuid == new.source_uuid or old.target_uuid == new.target_uuid
    return same_end and old.relation == new.relation


def _likeliest(old: FactRow, candidates: Sequence[FactRow]) -> FactRow | None:
    """Among the facts of the retiring write, the one most likely to have retired `old`: a possible replacement
    first, then the most text in common, then the same relation."""
    if not candidates:
        return None
    return max(
        candidates,
        key=lambda f: (replaceable(old, f), similarity(old.fact, f.fact), f.relation == old.relation, f.uuid),
    )


def _retiring_writes(
    retired: Sequence[FactRow], facts: Sequence[FactRow], written: Mapping[str, datetime]
) -> dict[str, list[FactRow]]:
    """Retired fact uuid -> the facts extracted from the episode written last at or before its retirement (within
    WRITE_WINDOW: a fact whose retirement no write explains, such as one loaded with its dates, has none)."""
    episodes = sorted((at, uuid) for uuid, at in written.items())
    times = [at for at, _ in episodes]
    by_episode: dict[str, list[FactRow]] = defaultdict(list)
    for fact in facts:
        for episode in fact.episodes:
            by_episode[episode].append(fact)
    out: dict[str, list[FactRow]] = {}
    for fact in retired:
        if fact.expired_at is None or not (i := bisect_right(times, fact.expired_at)):
            continue
        at, episode = episodes[i - 1]
        if fact.expired_at - at <= WRITE_WINDOW:
            out[fact.uuid] = [f for f in by_episode[episode] if f.uuid != fact.uuid]
    return out


def audit(group_id: str, facts: Sequence[FactRow], written: Mapping[str, Any]) -> InvalidationAudit:
    """Every fact with `expired_at` set, with what retired it and its warning signs; the most suspicious first.
    `written`: episode uuid -> when graphiti wrote it (`created_at`)."""
    times = {uuid: at for uuid, value in written.items() if (at := to_utc(value)) is not None}
    by_uuid = {f.uuid: f for f in facts}
    retired = [f for f in facts if f.expired_at is not None]
    writes = _retiring_writes(retired, facts, times)
    dated = {link.old: by_uuid[link.new] for link in infer_links(facts)}
    batches = Counter(f.expired_at for f in retired)
    out = []
    for fact in retired:
        if fact.superseded_by in by_uuid:
            by, found = by_uuid[fact.superseded_by], "recorded"
        elif (by := _likeliest(fact, writes.get(fact.uuid, ()))) is not None:
            found = "episode"
        elif (by := dated.get(fact.uuid)) is not None:
            found = "dates"
        else:
            found = "none"
        out.append(_retirement(fact, by, found, batches[fact.expired_at]))
    # within as many signs: the larger batch first (#1728 found collateral retirements clustered), then the texts
    # with least in common
    out.sort(key=lambda r: (-r.suspicion, -r.batch, r.similarity if r.similarity is not None else 0.0, r.fact.uuid))
    return InvalidationAudit(group_id, len(facts), tuple(out))


def _retirement(fact: FactRow, by: FactRow | None, found: str, batch: int) -> Retirement:
    if by is None:
        return Retirement(fact, fact.expired_at, None, found, None, None, None, batch, (NO_RETIRER,))
    could = replaceable(fact, by)
    older = by.valid_at is not None and fact.valid_at is not None and by.valid_at < fact.valid_at
    signs = []
    if not could:
        signs.append(
            "not a replacement by graphiti #1729's rule: neither the same two entities, nor one of them in the same "
            "place under the same relation"
        )
    if older:
        signs.append(
            f"the retiring fact is older: valid from {as_utc(by.valid_at).date()}, the retired one from "
            f"{as_utc(fact.valid_at).date()}"
        )
    alike = similarity(fact.fact, by.fact)
    return Retirement(fact, fact.expired_at, by, found, could, alike, older, batch, tuple(signs))


async def invalidation_audit(lab: Lab, group_id: str, facts: Sequence[FactRow]) -> InvalidationAudit:
    """The audit of the deal's `facts` (`load_facts`), with its episodes' write times read from the graph."""
    return audit(group_id, facts, await lab.backend.cypher.episode_times(group_id))
