"""A deal's facts held in process: graphiti's exact cosine list from numpy, and stored vectors without a read.

graphiti's exact cosine statement matches every fact of the deal with both its entities and reads their fields:
about 80 ms on 3,190 facts in FalkorDB, nearly all of it the match, not the arithmetic. A fact's stored vector
costs more to read (its floats parsed one by one) than to use. A long-lived process (the dashboard, a sweep, a
benchmark) reads a deal's facts once, edge fields and vectors, and answers both from memory. The list is
graphiti's: the same facts above the same floor, the same scores to float32 precision (the graph computes in
float32), in the same order, except among facts whose scores tie, which the graph leaves in its scan's order and
this puts in uuid order (tests/integration/test_held_facts.py).

Bounded: a deal is held only while all held deals fit `held_facts_mb` (the least recently used goes first); a deal
that does not fit is searched by the graph. Current: before each ranking (a sweep: once) the holder reads a stamp of
the deal, from the graph (its facts' count, latest write, retirement and invalidation, and how many episodes cite
them) and from this tool's journal (corrections and merges, made by any process), and reads the deal again when the
stamp changed. A write that changes none of these (an outside script editing a fact's text in place) is seen when
the deal is next read.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.dialects.registry import for_driver
from pipeline.journal.repo import group_stamp
from pipeline.retrieval.filters import passes

if TYPE_CHECKING:
    from pipeline.lab import Lab

log = logging.getLogger(__name__)

CHUNK = 500  # facts per read: a page's request waiting on the shared event loop waits for one chunk at most
EDGE_BYTES = 1_500  # a held edge's fields besides its text, roughly (a pydantic model with dates and lists)


def held_bytes(fact: str, dims: int, itemsize: int = 4) -> int:
    """What holding one fact takes, roughly: its edge, its vector (float32 unless said) and its norm."""
    return EDGE_BYTES + len(fact) + itemsize * dims + 8


MASKS = 8  # filters whose fact masks are kept per deal (current, all, a few as-of dates)


@dataclass(eq=False)
class HeldDeal:
    """One deal's facts that have a stored vector, in one row order."""

    stamp: tuple[object, ...]
    similarity: Callable[[np.ndarray], np.ndarray]  # the dialect's score from the plain cosine
    edges: list[EntityEdge]
    vectors: np.ndarray  # (facts, dim): float32 when every stored number is one (FalkorDB's), else float64
    uuids: np.ndarray = field(init=False)
    norms: np.ndarray = field(init=False)
    rows: dict[str, int] = field(init=False)
    nbytes: int = field(init=False)  # what holding it takes, roughly
    _masks: OrderedDict[str, np.ndarray] = field(init=False, default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self.uuids = np.array([e.uuid for e in self.edges], dtype=str)
        self.norms = np.linalg.norm(self.vectors.astype(np.float64), axis=1)
        self.rows = {e.uuid: i for i, e in enumerate(self.edges)}
        dims, itemsize = self.vectors.shape[1], self.vectors.itemsize
        self.nbytes = sum(held_bytes(e.fact, dims, itemsize) for e in self.edges)

    def similar(
        self, vector: list[float], search_filter: SearchFilters, limit: int, min_score: float
    ) -> list[tuple[EntityEdge, float]]:
        """graphiti's `edge_similarity_search` of this deal: facts passing the filter with a score above
        `min_score`, best first, at most `limit`; ties in uuid order."""
        query = np.asarray(vector, dtype=self.vectors.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero vector scores NaN, passing no floor (as there)
            cosine = (self.vectors @ query).astype(np.float64) / (self.norms * float(np.linalg.norm(query)))
        scores = self.similarity(cosine)
        chosen = np.flatnonzero(self.mask(search_filter) & (scores > min_score))
        if chosen.size > limit:  # the best `limit` and every fact tied with the last of them
            best = np.argpartition(-scores[chosen], limit - 1)[:limit]
            chosen = chosen[scores[chosen] >= scores[chosen[best]].min()]
        order = chosen[np.lexsort((self.uuids[chosen], -scores[chosen]))][:limit]
        return [(self.edges[i], float(scores[i])) for i in order]

    def vector(self, uuid: str) -> np.ndarray | None:
        """A fact's stored vector as the graph returns it (float64), or None when it is not held."""
        row = self.rows.get(uuid)
        return None if row is None else self.vectors[row].astype(np.float64)

    def mask(self, search_filter: SearchFilters) -> np.ndarray:
        """Which facts pass graphiti's date filter (`filters.passes`), kept for the last few filters."""
        key = search_filter.model_dump_json()
        if key not in self._masks:
            self._masks[key] = np.fromiter((passes(e, search_filter) for e in self.edges), bool, len(self.edges))
            while len(self._masks) > MASKS:
                self._masks.popitem(last=False)
        self._masks.move_to_end(key)
        return self._masks[key]


def held_deal(
    stamp: tuple[object, ...],
    similarity: Callable[[np.ndarray], np.ndarray],
    found: list[tuple[EntityEdge, list[float] | None]],
) -> HeldDeal | None:
    """The facts read, with a vector of the deal's one size; None when they have none or several sizes (then the
    graph's own search answers, as it would with mixed vectors)."""
    sizes = Counter(len(v) for _, v in found if v)
    if len(sizes) != 1:
        return None
    kept = [(e, v) for e, v in found if v]
    exact = np.array([v for _, v in kept], dtype=np.float64)
    single = exact.astype(np.float32)
    vectors = single if np.array_equal(single.astype(np.float64), exact) else exact
    return HeldDeal(stamp, similarity, [e for e, _ in kept], vectors)


class HeldFacts:
    """The deals' facts this process holds (`lab.facts`), within `held_facts_mb`."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self._held: OrderedDict[str, HeldDeal] = OrderedDict()
        self._loads: dict[str, asyncio.Future[HeldDeal | None]] = {}
        self._declined: dict[str, tuple[object, ...]] = {}  # deal -> the stamp at which it did not fit
        self._prefetches: set[asyncio.Future[None]] = set()

    @property
    def budget_bytes(self) -> int:
        return self.lab.settings.held_facts_mb * 2**20

    async def stamp(self, group_id: str) -> tuple[object, ...]:
        driver = self.lab.backend.driver(group_id)
        return (await for_driver(driver).facts_stamp(driver, group_id), group_stamp(self.lab.store, group_id))

    async def fresh(self, group_id: str) -> HeldDeal | None:
        """The deal's held facts when they are current (one stamp read); None when none are held or they changed."""
        held = self._held.get(group_id)
        if held is None:
            return None
        if await self.stamp(group_id) != held.stamp:
            self._held.pop(group_id, None)
            return None
        self._held.move_to_end(group_id)
        return held

    async def load(self, group_id: str) -> HeldDeal | None:
        """The deal's current facts, read now when they are not held (one read however many ask at once); None
        when they would not fit the budget, or have no vectors."""
        held = await self.fresh(group_id)
        if held is not None or self.budget_bytes == 0:
            return held
        if group_id not in self._loads:
            self._loads[group_id] = asyncio.ensure_future(self._load(group_id))
            self._loads[group_id].add_done_callback(lambda _: self._loads.pop(group_id, None))
        return await asyncio.shield(self._loads[group_id])

    def release(self, group_id: str) -> None:
        """Forget the deal's facts: its searches go to the graph until it is held again (graphiti's own order of
        tied facts, for a comparison with its `search_()`)."""
        self._held.pop(group_id, None)

    def prefetch(self, group_id: str) -> None:
        """Start reading the deal's facts in the background unless held or being read (a long-lived process:
        the queries after this one are answered from memory). A failure is logged; the graph keeps answering."""
        if group_id in self._held or group_id in self._loads or self.budget_bytes == 0:
            return

        async def quietly() -> None:
            try:
                await self.load(group_id)
            except Exception:
                log.warning("holding the facts of deal %r failed; the graph answers its searches", group_id)

        task = asyncio.ensure_future(quietly())
        self._prefetches.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(self._prefetches.discard)

    async def _load(self, group_id: str) -> HeldDeal | None:
        stamp = await self.stamp(group_id)  # read first: a write during the read changes the next stamp
        if self._declined.get(group_id) == stamp:
            return None
        driver = self.lab.backend.driver(group_id)
        dialect = for_driver(driver)
        uuids = await dialect.fact_uuids(driver, group_id)
        found: list[tuple[EntityEdge, list[float] | None]] = []
        for start in range(0, len(uuids), CHUNK):
            found.extend(await dialect.held_facts(driver, uuids[start : start + CHUNK]))
            if start == 0:  # the first chunk's facts, as many times as the deal has, would not fit: stop there
                first = sum(held_bytes(e.fact, len(v or ())) for e, v in found)
                if first * len(uuids) > self.budget_bytes * max(len(found), 1):
                    found = []
                    break
        held = held_deal(stamp, dialect.similarity, found) if found else None
        if held is None or held.nbytes > self.budget_bytes:
            self._declined[group_id] = stamp
            return None
        self._held[group_id] = held
        self._held.move_to_end(group_id)
        while sum(h.nbytes for h in self._held.values()) > self.budget_bytes:
            self._held.popitem(last=False)
        return held
