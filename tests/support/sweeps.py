"""A minimal stored sweep for tests of what is built from one (exported modules, charts, costs)."""

from __future__ import annotations

from pipeline.evaluation.records import SettingResult, SweepResult, SweepSpec, SweepStats
from pipeline.retrieval.setting import setting


def hybrid_walk_sweep(rerankers: tuple[str, ...], group_id: str = "demo") -> SweepResult:
    """One hybrid-walk setting per reranker at N=50, k=10, each scoring ndcg@k 0.5; no rows, no queries."""
    settings = tuple(
        SettingResult(
            setting("hybrid-walk", 50, r, 10), "", True, {"ndcg@k": 0.5}, {}, 10.0, 20.0, 0, 0.0, 0, None, None
        )
        for r in rerankers
    )
    return SweepResult(
        spec=SweepSpec(group_id, (50,), (10,), rerankers, recipes=("hybrid-walk",)),
        eval_set={},
        created_at="2026-11-27",
        settings=settings,
        rows=(),
        queries={},
        qrels={},
        facts={},
        stats=SweepStats(0, 0, 0, 0, 0, 0.0),
        baseline="hybrid-walk none N=50 k=10",
    )
