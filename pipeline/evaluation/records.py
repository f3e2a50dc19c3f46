"""A sweep's records: what to run (`SweepSpec`), what came out per query and setting, and the metric names.

`pipeline/evaluation/sweep.py` runs a sweep into these; experiments store them, the page and the CLI show them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.evaluation.recommend import Recommendation, pareto_front, recommend
from pipeline.rerankers import (
    RERANKERS,
)
from pipeline.retrieval.retrieve import MAX_CANDIDATES, MAX_TOP_K

FIXED = ("ndcg@10", "recall@10", "mrr@10")  # on the top 10 of the reranked list, whatever k
AT_K = ("ndcg", "recall", "precision", "hit")  # on the setting's top k: stored as "ndcg@k", ...
METRIC_NAMES = (*FIXED, *(f"{kind}@k" for kind in AT_K))
BASELINE = ("none", 50, 10)  # reranker, N, k: what every setting is tested against
SIGNIFICANCE_METRIC = "ndcg@10"


class SweepCancelled(RetrievalLabError):
    """The sweep was cancelled; nothing was saved."""


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


Progress = Callable[[int, int, str], None]  # (queries done, queries in all, message)


@dataclass(frozen=True)
class SweepSpec:
    group_id: str
    candidates: tuple[int, ...] = (10, 25, 50, 100)
    top_ks: tuple[int, ...] = (3, 5, 10)
    rerankers: tuple[str, ...] = ("none", "local")
    judgments: str = "labelled"
    split: str | None = None
    limit_queries: int | None = None
    include_superseded: bool = False
    use_cache: bool = True

    def validate(self) -> SweepSpec:
        if not self.candidates or not self.top_ks or not self.rerankers:
            raise InvalidInput("Pick at least one candidate count, one top-k and one reranker.")
        for n in self.candidates:
            if not 1 <= n <= MAX_CANDIDATES:
                raise InvalidInput(f"Candidates (N) must be between 1 and {MAX_CANDIDATES}; got {n}.")
        for k in self.top_ks:
            if not 1 <= k <= MAX_TOP_K:
                raise InvalidInput(f"Top-k must be between 1 and {MAX_TOP_K}; got {k}.")
        for name in self.rerankers:
            if name not in RERANKERS:
                raise InvalidInput(f"Unknown reranker {name!r}; choose one of: {', '.join(RERANKERS)}.")
        if not any(k <= n for n in self.candidates for k in self.top_ks):
            raise InvalidInput("Every top-k is larger than every candidate count: no setting to run.")
        return SweepSpec(
            self.group_id,
            tuple(sorted(set(self.candidates))),
            tuple(sorted(set(self.top_ks))),
            tuple(dict.fromkeys(self.rerankers)),
            self.judgments,
            self.split,
            self.limit_queries,
            self.include_superseded,
            self.use_cache,
        )

    def grid(self) -> list[tuple[str, int, int]]:
        """(reranker, N, k) of every setting asked for; k > N is skipped (k cannot exceed N)."""
        return [(r, n, k) for r in self.rerankers for n in self.candidates for k in self.top_ks if k <= n]


def setting_key(reranker: str, candidates: int, top_k: int) -> str:
    return f"{reranker} N={candidates} k={top_k}"


@dataclass(frozen=True)
class QueryRow:
    setting: str
    query_id: str
    metrics: dict[str, float]
    latency_ms: float
    ranking: tuple[str, ...]  # the top max(10, k) fact uuids


@dataclass(frozen=True)
class SettingResult:
    reranker: str
    candidates: int
    top_k: int
    reranker_model: str
    in_grid: bool  # False: the baseline, added because the grid lacks it
    metrics: dict[str, float]  # mean over queries
    by_type: dict[str, dict[str, float]]  # query type -> metric -> mean
    p50_ms: float
    p95_ms: float
    tokens: int
    cost_usd: float | None  # for all the queries of the sweep
    fallbacks: int  # queries where the reranker failed and first-stage order was kept
    p_value: float | None  # Fisher randomization against the baseline, on SIGNIFICANCE_METRIC
    p_ttest: float | None

    @property
    def key(self) -> str:
        return setting_key(self.reranker, self.candidates, self.top_k)

    def metric(self, name: str) -> float:
        return self.metrics[name]


@dataclass(frozen=True)
class SweepStats:
    queries: int
    pools_retrieved: int
    pools_cached: int
    rerank_calls: int
    rerank_cached: int
    seconds: float
    phases_ms: dict[str, float] = field(default_factory=dict)  # summed per phase over queries (phases.py)


@dataclass(frozen=True)
class SweepResult:
    spec: SweepSpec
    eval_set: dict[str, Any]  # EvalSet.summary() of the queries evaluated
    created_at: str
    settings: tuple[SettingResult, ...]
    rows: tuple[QueryRow, ...]
    queries: dict[str, tuple[str, str]]  # query id -> (text, type)
    qrels: dict[str, dict[str, int]]
    facts: dict[str, str]  # uuid -> fact text, for every uuid in a ranking or a judgment
    stats: SweepStats
    baseline: str = field(default=setting_key(*BASELINE))
    fingerprint: dict[str, Any] = field(default_factory=dict)  # the run's graph, judgments and settings (issue 17)

    def setting(self, key: str) -> SettingResult:
        for s in self.settings:
            if s.key == key:
                return s
        raise InvalidInput(f"No setting {key!r} in this sweep.")

    @property
    def grid(self) -> tuple[SettingResult, ...]:
        return tuple(s for s in self.settings if s.in_grid)

    def recommendation(self, metric: str = "ndcg@10") -> Recommendation:
        return recommend(self.grid, metric)

    def pareto(self, metric: str = "ndcg@10") -> set[str]:
        return pareto_front(self.grid, metric)

    def per_query(self, key: str, metric: str) -> dict[str, float]:
        return {r.query_id: r.metrics[metric] for r in self.rows if r.setting == key}

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = [{"key": s.key, **asdict(s)} for s in self.settings]
        data["recommendation"] = asdict(self.recommendation())
        return data
