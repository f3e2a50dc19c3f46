"""Where a setting's first stage left each of some wanted facts (the judged-relevant ones): a `RankHooks.trace` that
`rank()` tells of each pool it searches, with the first stage before its cut at N and the query's method lists.

From the lists the setting computed anyway it reads each wanted fact's rank in each method's list (at graphiti's
depth, 2 x N), its cosine similarity in the list without the floor, its place in the fused order before the cut,
and whether only `reranker_min_score` kept it out of that order. For a fact no list held it searches BM25 and cosine
deeper (`DEEP`), to say how far off it was. What-ifs re-fuse the same lists (or deeper ones) under a variant of the
setting: a larger N, no cosine floor, no `reranker_min_score`; each gives the wanted facts its pool would hold.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from graphiti_core.edges import EntityEdge

from pipeline.graph.dialects.registry import for_driver
from pipeline.retrieval.first_stage import NO_FLOOR, FirstStage, MethodLists, search_recipe
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.setting import MAX_CANDIDATES, Setting

if TYPE_CHECKING:
    from pipeline.lab import Lab

DEEP = 1_000  # how far down BM25 and cosine are searched for a wanted fact that no list of the setting holds
NO_MIN_SCORE = -1e9  # below every fusion score (RRF and node distance are positive, MMR's lie in [-1, 1])


@dataclass(frozen=True)
class FactTrace:
    """One wanted fact in one pool's first stage."""

    method_ranks: dict[str, int]  # method -> 1-based rank in its list at the setting's depth (the methods that had it)
    cosine: float | None  # its similarity, when the cosine list without the floor had it (at depth or deeper)
    cosine_rank: int | None  # its rank in that list at the setting's depth, whatever the floor
    fused_rank: int | None  # its place in the fused order before the cut at N
    under_min_score: bool  # fused only once `reranker_min_score` is lifted
    deep: dict[str, int | None] = field(default_factory=dict)  # BM25 / cosine rank within DEEP, for a fact no list had


@dataclass(frozen=True)
class PoolTrace:
    setting: Setting
    depth: int  # what each method was asked for (graphiti's 2 x N)
    facts: dict[str, FactTrace]
    what_if: dict[str, frozenset[str]]  # a variant's label -> the wanted facts its pool would hold


def what_ifs(setting: Setting) -> dict[str, tuple[Recipe, int]]:
    """The variants worth asking of a setting, by label: a larger N (2x and 4x, up to the cap) and the recipe
    without each floor it has (`Recipe.floors`)."""
    recipe, n = setting.recipe, setting.candidates
    out = {f"N={m}": (recipe, m) for m in sorted({min(2 * n, MAX_CANDIDATES), min(4 * n, MAX_CANDIDATES)}) if m > n}
    floor = recipe.edge_config.sim_min_score
    if "cosine" in recipe.methods and floor > 0 and setting.first_stage == "exact":
        out[f"no cosine floor (now {floor:g})"] = (_variant(recipe, cosine_floor=False), n)
    if recipe.fusion_floor:
        label = f"no {recipe.fusion_label} floor (now {recipe.config.reranker_min_score:g})"
        out[label] = (_variant(recipe, fusion_floor=False), n)
    return out


def _variant(recipe: Recipe, cosine_floor: bool = True, fusion_floor: bool = True) -> Recipe:
    """The recipe without its cosine floor or its fusion's floor: an internal variant under the same name, never
    stored."""
    config = recipe.config.model_copy(deep=True)
    assert config.edge_config is not None
    if not cosine_floor:
        config.edge_config.sim_min_score = NO_FLOOR
    if not fusion_floor:
        config.reranker_min_score = NO_MIN_SCORE
    return replace(recipe, config_json=config.model_dump_json())


class Tracer:
    """A `RankHooks.trace`: traces the wanted facts in every pool `rank()` searches (`pools`, by the setting's
    pool), with the what-ifs when asked for."""

    def __init__(self, wanted: Collection[str], with_what_ifs: bool = True) -> None:
        self.wanted = frozenset(wanted)
        self.with_what_ifs = with_what_ifs
        self.pools: dict[tuple[object, ...], PoolTrace] = {}

    async def __call__(self, setting: Setting, first: FirstStage, lists: MethodLists) -> None:
        depth = 2 * setting.candidates
        recipe = setting.recipe
        unfloored: frozenset[str] = frozenset()
        if recipe.fusion_floor:
            lifted = await search_recipe(lists, _variant(recipe, fusion_floor=False), setting.candidates)
            unfloored = frozenset(lifted.fused) - frozenset(first.fused)
        similar = {}
        if "cosine" in recipe.methods and setting.first_stage == "exact":
            hits, _ms = await lists.similarities(depth)
            similar = {edge.uuid: (rank, score) for rank, (edge, score) in enumerate(hits, start=1)}
        fused = {u: rank for rank, u in enumerate(first.fused, start=1)}
        facts = {}
        for uuid in self.wanted:
            ranks = {m: found[uuid] for m, found in first.method_ranks.items() if uuid in found}
            rank, score = similar.get(uuid, (None, None))
            facts[uuid] = FactTrace(ranks, score, rank, fused.get(uuid), uuid in unfloored)
        lost = [u for u, t in facts.items() if not t.method_ranks and t.cosine_rank is None]
        if lost:
            facts |= await _deeper(lists, lost, facts)
        what_if = {}
        if self.with_what_ifs:
            for label, (variant, n) in what_ifs(setting).items():
                pool = await search_recipe(lists, variant, n)
                what_if[label] = frozenset(e.uuid for e in pool.edges) & self.wanted
        self.pools[setting.pool] = PoolTrace(setting, depth, facts, what_if)


async def _deeper(lists: MethodLists, lost: list[str], facts: dict[str, FactTrace]) -> dict[str, FactTrace]:
    """The lost facts' ranks in BM25 and cosine (without a floor) searched to DEEP."""
    bm25, _ms = await lists.bm25(DEEP)
    hits, _ms = await lists.similarities(DEEP)
    bm25_ranks = {edge.uuid: rank for rank, edge in enumerate(bm25, start=1)}
    cosine = {edge.uuid: (rank, score) for rank, (edge, score) in enumerate(hits, start=1)}
    out = {}
    for uuid in lost:
        rank, score = cosine.get(uuid, (None, None))
        out[uuid] = replace(facts[uuid], cosine=score, deep={"bm25": bm25_ranks.get(uuid), "cosine": rank})
    return out


async def read_facts(lab: Lab, group_id: str, uuids: Collection[str]) -> dict[str, EntityEdge]:
    """These facts as the graph has them now (from the deal's held facts when current), by uuid; a fact no longer
    in the graph is left out."""
    held = await lab.facts.fresh(group_id)
    if held is not None:
        return {u: held.edges[held.rows[u]] for u in uuids if u in held.rows}
    driver = lab.backend.driver(group_id)
    found = await for_driver(driver).held_facts(driver, sorted(set(uuids)))
    return {edge.uuid: edge for edge, _vector in found if edge.group_id == group_id}
