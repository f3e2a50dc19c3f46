"""The loss X-ray: where each judged-relevant fact was lost under a setting, from the lists `rank()` computes for it
(`pipeline/retrieval/trace.py` reads them), and the set's figures per setting.

A fact meets the stages in this order, and is named by the first it fails (`records.LOSS_STAGES`): it is in the graph;
it passes the date filter (current facts, or valid on the as-of date); a method's list holds it at graphiti's depth
(2 x N), or the cosine list would but for the floor; the fusion keeps it, above `reranker_min_score`; it is within
the first N; the reranker puts it within k.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from graphiti_core.edges import EntityEdge

from pipeline.retrieval.filters import passes, temporal_filter
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.records import RetrievalRun, iso
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import Setting
from pipeline.retrieval.trace import DEEP, FactTrace, PoolTrace, Tracer, read_facts
from pipeline.why.records import EXAMPLES, LOSS_STAGES, FactLoss, QueryLosses, SettingLosses, WhatIf

if TYPE_CHECKING:
    from pipeline.lab import Lab

METHOD_LABELS = {"bm25": "BM25", "cosine": "cosine", "bfs": "walk"}


async def query_losses(
    lab: Lab,
    group_id: str,
    query_id: str,
    text: str,
    relevant: Mapping[str, int],
    settings: Sequence[Setting],
    include_superseded: bool = False,
    as_of: datetime | None = None,
    hooks: RankHooks | None = None,
) -> tuple[list[QueryLosses], dict[str, dict[str, frozenset[str]]]]:
    """Each setting's losses on one query (its judged-relevant facts, uuid -> grade), and each setting's what-ifs
    (label -> the relevant facts the variant's pool would hold), by setting key."""
    tracer = Tracer(relevant)
    hooks = hooks or RankHooks(cite=False)
    hooks.trace = tracer
    runs = await rank(lab, text, group_id, settings, include_superseded, as_of, hooks=hooks)
    edges = await read_facts(lab, group_id, relevant)
    search_filter = temporal_filter(include_superseded, as_of)
    out, what_if = [], {}
    for setting, run in zip(settings, runs, strict=True):
        pool = tracer.pools[setting.pool]
        facts = tuple(
            _classify(
                uuid,
                grade,
                edges.get(uuid),
                passes(edges[uuid], search_filter) if uuid in edges else False,
                pool,
                run,
                as_of,
            )
            for uuid, grade in sorted(relevant.items(), key=lambda item: (-item[1], item[0]))
        )
        out.append(QueryLosses(query_id, text, setting.key, facts))
        what_if[setting.key] = pool.what_if
    return out, what_if


def _classify(
    uuid: str,
    grade: int,
    edge: EntityEdge | None,
    current: bool,
    pool: PoolTrace,
    run: RetrievalRun,
    as_of: datetime | None,
) -> FactLoss:
    setting = pool.setting
    trace = pool.facts[uuid]

    def loss(stage: str, detail: str, rank: int | None = None, twin: str | None = None) -> FactLoss:
        fact = edge.fact if edge is not None else ""
        return FactLoss(uuid, fact, grade, stage, detail, trace.method_ranks, trace.fused_rank, rank, twin)

    if edge is None:
        return loss("gone", "the judgment names a fact the graph no longer has (merged, corrected or rebuilt away)")
    if not current:
        return loss("filtered", _date_detail(edge, as_of))
    found = _ranks_text(trace.method_ranks)
    if not trace.method_ranks:
        floor = setting.recipe.edge_config.sim_min_score
        if trace.cosine_rank is not None and trace.cosine is not None and trace.cosine <= floor:
            return loss(
                "floor",
                f"cosine {trace.cosine:.3f} is not above the floor {floor:g} (it would rank {trace.cosine_rank} in "
                f"the cosine list of {pool.depth}); no other method found it",
            )
        return loss("unfound", f"in none of the {_methods(setting)} lists of {pool.depth}; {_deeper_text(trace)}")
    if trace.fused_rank is None:
        if trace.under_min_score:
            floor_value = setting.recipe.config.reranker_min_score
            return loss(
                "min_score",
                f"found ({found}) but its {setting.recipe.fusion_label} score is under "
                f"reranker_min_score {floor_value:g}",
            )
        return loss("fusion", f"found ({found}) but {setting.recipe.fusion_label} left it out")
    if trace.fused_rank > setting.candidates:
        return loss("cut_by_n", f"fused rank {trace.fused_rank}, below N={setting.candidates} ({found})")
    ranked = next((r for r in run.reranked if r.candidate.uuid == uuid), None)
    if ranked is None:  # the pool is the fused order's first N: never the case, said rather than hidden
        return loss("cut_by_n", f"fused rank {trace.fused_rank}, not in the pool of {setting.candidates}")
    twin = _twin_above(run, ranked.rank, edge.fact)
    moved = f"first-stage rank {trace.fused_rank} -> rank {ranked.rank}" if run.rerank_used else f"rank {ranked.rank}"
    if ranked.rank > setting.top_k:
        return loss("reranked_out", f"{moved}, below k={setting.top_k} ({found})", ranked.rank, twin)
    return loss("kept", f"{moved} ({found})", ranked.rank, twin)


def _date_detail(edge: EntityEdge, as_of: datetime | None) -> str:
    if as_of is None:
        ended = ", ".join(
            f"{name} {iso(value)}"
            for name, value in (("invalid_at", edge.invalid_at), ("expired_at", edge.expired_at))
            if value is not None
        )
        return f"superseded ({ended}): only current facts are searched"
    return (
        f"not valid on {iso(as_of)} (valid_at {iso(edge.valid_at) or 'unknown'}, "
        f"invalid_at {iso(edge.invalid_at) or 'none'})"
    )


def _methods(setting: Setting) -> str:
    return ", ".join(METHOD_LABELS[m] for m in setting.recipe.methods)


def _ranks_text(ranks: Mapping[str, int]) -> str:
    return ", ".join(f"{METHOD_LABELS[m]} rank {r}" for m, r in ranks.items())


def _deeper_text(trace: FactTrace) -> str:
    parts = []
    for method in ("bm25", "cosine"):
        rank = trace.deep.get(method)
        name = METHOD_LABELS[method]
        parts.append(f"{name} rank {rank}" if rank is not None else f"not in {name}'s first {DEEP:,}")
    score = f" (cosine {trace.cosine:.3f})" if trace.cosine is not None else ""
    return "searched deeper: " + ", ".join(parts) + score


def _twin_above(run: RetrievalRun, rank: int, fact: str) -> str | None:
    """A fact ranked above this one with the same text (whitespace and case aside)."""
    key = " ".join(fact.split()).casefold()
    return next(
        (r.candidate.uuid for r in run.reranked[: rank - 1] if " ".join(r.candidate.fact.split()).casefold() == key),
        None,
    )


def summarise(
    setting: Setting,
    per_query: Sequence[QueryLosses],
    what_ifs: Sequence[Mapping[str, frozenset[str]]],
) -> SettingLosses:
    """One setting's figures over the queries: facts per stage, example queries per stage, and each what-if's
    relevant facts reaching the reranker against the setting's own."""
    counts = Counter(f.stage for q in per_query for f in q.facts)
    examples: dict[str, tuple[tuple[str, str], ...]] = {}
    for stage in LOSS_STAGES:
        worst = sorted((q for q in per_query if q.count(stage)), key=lambda q: -q.count(stage))
        examples[stage] = tuple((q.query_id, q.text) for q in worst[:EXAMPLES])
    reached = sum(1 for q in per_query for f in q.facts if f.stage in ("reranked_out", "kept"))
    labels = list(dict.fromkeys(label for w in what_ifs for label in w))
    return SettingLosses(
        setting=setting.key,
        label=setting.label,
        relevant=sum(len(q.facts) for q in per_query),
        counts={stage: counts.get(stage, 0) for stage in LOSS_STAGES},
        examples=examples,
        what_ifs=tuple(WhatIf(label, reached, sum(len(w.get(label, ())) for w in what_ifs)) for label in labels),
    )
