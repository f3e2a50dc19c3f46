"""Two stored runs side by side: parameters, overlap of their top k, rank changes, stage timings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pipeline.audit.describe import action_label
from pipeline.audit.records import AuditEntry
from pipeline.audit.repo import graph_changes
from pipeline.history.records import STAGES
from pipeline.retrieval.records import RetrievalRun
from pipeline.store.db import Store
from pipeline.utc import parse_time, stamp


@dataclass(frozen=True)
class RankDiff:
    uuid: str
    fact: str
    rank_a: int | None  # None: not in that run's top k
    rank_b: int | None

    @property
    def change(self) -> int | None:
        """Positive: ranked higher (smaller rank) in run B."""
        if self.rank_a is None or self.rank_b is None:
            return None
        return self.rank_a - self.rank_b


@dataclass(frozen=True)
class RunComparison:
    parameters: tuple[tuple[str, Any, Any], ...]  # (name, a, b)
    shared: int
    only_a: int
    only_b: int
    jaccard: float
    ranks: tuple[RankDiff, ...]
    stages_ms: tuple[tuple[str, float | None, float | None], ...]  # (stage, a, b)

    @property
    def differing(self) -> tuple[str, ...]:
        """The parameters that differ (when each run happened is not a parameter)."""
        return tuple(name for name, a, b in self.parameters if a != b and name != "when")


def run_parameters(run: RetrievalRun) -> dict[str, Any]:
    return {
        "deal": run.group_id,
        "query": run.query,
        "recipe": run.recipe,
        "first stage": run.first_stage,
        "N (candidates)": run.num_candidates,
        "k (top-k)": run.top_k,
        "reranker": run.reranker,
        "model": run.reranker_model or "-",
        "include superseded": run.include_superseded,
        "as of": run.as_of or "-",
        "reranked": run.rerank_used,
        "fallback": run.fallback_reason or "-",
        "rerank tokens": run.timings.rerank_tokens,
        "embedder": run.software.get("embedder", "-"),
        "graph backend": run.software.get("backend", "-"),
        "graphiti-core": run.software.get("graphiti_core", "-"),
        "when": run.created_at,
    }


def compare_runs(a: RetrievalRun, b: RetrievalRun) -> RunComparison:
    """Parameters, overlap of the top-k uuids, per-result rank differences and stage timings of two runs."""
    params_a, params_b = run_parameters(a), run_parameters(b)
    ranks_a = {r.uuid: r.ranked.rank for r in a.results}
    ranks_b = {r.uuid: r.ranked.rank for r in b.results}
    facts = {r.uuid: r.ranked.candidate.fact for r in (*b.results, *a.results)}
    order = [r.uuid for r in a.results] + [r.uuid for r in b.results if r.uuid not in ranks_a]
    shared = len(ranks_a.keys() & ranks_b.keys())
    union = len(ranks_a.keys() | ranks_b.keys())
    stages = [s for s in STAGES if s in a.timings.stages_ms or s in b.timings.stages_ms]
    return RunComparison(
        parameters=tuple((name, params_a[name], params_b[name]) for name in params_a),
        shared=shared,
        only_a=len(ranks_a) - shared,
        only_b=len(ranks_b) - shared,
        jaccard=shared / union if union else 1.0,
        ranks=tuple(RankDiff(u, facts[u], ranks_a.get(u), ranks_b.get(u)) for u in order),
        stages_ms=tuple((s, a.timings.stages_ms.get(s), b.timings.stages_ms.get(s)) for s in stages),
    )


@dataclass(frozen=True)
class GraphChanges:
    """The admin changes to a deal's graph between two of its runs."""

    entries: tuple[AuditEntry, ...]

    def text(self) -> str:
        if not self.entries:
            return (
                "No admin change to the graph between these runs (writes made outside this tool, such as new "
                "episodes, are not recorded here)."
            )
        shown = "; ".join(f"{action_label(e.action)} by {e.actor} at {stamp(e.at)} UTC" for e in self.entries[:5])
        more = f" and {len(self.entries) - 5} more" if len(self.entries) > 5 else ""
        return f"The graph changed between these runs ({len(self.entries)} admin change(s)): {shown}{more}."


def graph_changed_between(store: Store, a: RetrievalRun, b: RetrievalRun) -> GraphChanges | None:
    """Corrections, merges, their undos, resets and replacements made with this tool between two runs of one deal
    (from the audit log; to the second); None for runs of two deals."""
    times = (parse_time(a.created_at), parse_time(b.created_at))
    if a.group_id != b.group_id or times[0] is None or times[1] is None:
        return None
    start, end = sorted((times[0], times[1]))
    # a run's time is kept to the second: a change in the same second as either run counts as between them
    return GraphChanges(tuple(graph_changes(store, a.group_id, start, end + timedelta(seconds=1))))
