"""Which labelled queries make a demo: those where the deal's latest sweep saw reranking change the result.

From the latest saved experiment of the deal (`pipeline.evaluation.experiments`), the reranked setting with
the best mean nDCG@10 is paired with first-stage order at the same N and k (the sweep's own "none" setting,
else its baseline); each labelled query is an example with its own change in nDCG@10, gains first, then
losses; queries the reranker did not change are left out. Without an experiment (or one without such a
pair), every labelled query is an example, as before, without a note.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.evaluation.experiments import list_experiments, load_experiment
from pipeline.evaluation.records import SweepResult
from pipeline.query_sets import load_query_set
from pipeline.retrieval.setting import Setting
from pipeline.store.db import Store

METRIC = "ndcg@10"
MIN_CHANGE = 0.01


@dataclass(frozen=True)
class Example:
    text: str
    delta: float | None = None  # the change in nDCG@10 reranking made to this query, when a sweep measured it
    setting: Setting | None = None  # the reranked setting that made it (with `delta`)
    experiment: str = ""  # "#3 'name'"

    @property
    def note(self) -> str:
        if self.delta is None or self.setting is None:
            return ""
        verb = "lifts" if self.delta > 0 else "lowers"
        return (
            f"Reranking ({self.setting.label}) {verb} nDCG@10 by "
            f"{self.delta:+.2f} on this query in experiment {self.experiment}."
        )


def examples(store: Store, group_id: str) -> list[Example]:
    """The deal's example queries, those that show reranking's effect first (see the module doc)."""
    found = list_experiments(store, group_id)
    if found:
        info, result = load_experiment(store, found[0].id, rankings=False)
        picked = swept_examples(result, f"#{info.id} '{info.name}'")
        if picked:
            return picked
    query_set = load_query_set(store, group_id)
    return [Example(q.text) for q in query_set.queries] if query_set else []


def swept_examples(result: SweepResult, experiment: str) -> list[Example]:
    """Queries whose nDCG@10 reranking changed, biggest gain first, losses after; [] with no pair to compare."""
    reranked = [s for s in result.grid if s.setting.reranker != "none"]
    if not reranked:
        return []
    best = max(reranked, key=lambda s: s.metric(METRIC))
    keys = {s.key for s in result.settings}
    base = replace(best.setting, reranker="none").key
    if base not in keys:
        base = result.baseline
    if base not in keys:
        return []
    before, after = result.per_query(base, METRIC), result.per_query(best.key, METRIC)
    changes = [(after[q] - before[q], q) for q in after if q in before and abs(after[q] - before[q]) >= MIN_CHANGE]
    changes.sort(key=lambda c: (c[0] < 0, -abs(c[0])))
    return [
        Example(result.queries[q][0], delta, best.setting, experiment) for delta, q in changes if q in result.queries
    ]
