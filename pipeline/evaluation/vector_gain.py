"""Each reranked setting against pure vector search at the same N and k: the gain in percent, with its paired test.

This answers the claim every reranking vendor makes ("20-35% over pure vector search") on the user's own deal and
judgments, from a sweep whose recipes include `vector` (graphiti's cosine search alone, floor 0.6).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.evaluation.recommend import p_words
from pipeline.evaluation.records import SweepResult, check_metric
from pipeline.evaluation.significance import PairedTest, paired_test_cached
from pipeline.retrieval.recipes import Recipe

VECTOR = "vector"


@dataclass(frozen=True)
class Gain:
    key: str  # the reranked setting
    vector_key: str  # pure vector search at the same N and k, no reranker
    metric: str
    test: PairedTest

    @property
    def percent(self) -> float | None:
        """(setting - vector) / vector in percent; None when vector search scores 0."""
        return None if self.test.mean_a == 0 else 100 * self.test.delta / self.test.mean_a

    @property
    def line(self) -> str:
        pct = "n/a (vector scores 0)" if self.percent is None else f"{self.percent:+.1f}%"
        return (
            f"{self.key}: {pct} {self.metric} over {self.vector_key} "
            f"({self.test.mean_a:.3f} -> {self.test.mean_b:.3f}, {p_words(self.test.p_randomization)})"
        )


def gains_over_vector(result: SweepResult, metric: str) -> list[Gain]:
    """One per reranked setting with a vector setting of the same N and k in the sweep (none without `vector`)."""
    check_metric(metric)
    keys = {s.key for s in result.settings}
    scores = result.scores(metric)
    gains = []
    for s in result.settings:
        base = replace(s.setting, recipe=Recipe.preset(VECTOR), reranker="none").key
        if s.setting.reranker != "none" and base in keys:
            gains.append(Gain(s.key, base, metric, paired_test_cached(scores[base], scores[s.key])))
    return gains
