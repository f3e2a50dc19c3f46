"""Comparing two settings on one query as the Compare and Scores pages and `pipeline compare` use it:
`lab.comparison`. The judged verdict, per-side scores, overlap, the low-confidence rule and the example queries;
the values it hands out are in `pipeline.api.models`, the logic lives in the modules named beside each call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.comparison import compare, confidence, examples, judged, overlap, verdict
from pipeline.retrieval.records import RetrievalRun
from pipeline.retrieval.setting import Setting

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Comparison:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    async def compare(self, query: str, group_id: str, a: Setting, b: Setting) -> compare.Comparison:
        """The query under both settings: verdict, per-side scores, overlap, confidence (`pipeline compare`)."""
        return await compare.compare(self.lab, query, group_id, a, b)

    async def assess(self, run: RetrievalRun) -> confidence.Confidence:
        """Whether the deal probably holds no good answer to the run's query (the low-confidence rule)."""
        return await confidence.assess(self.lab, run)

    async def query_judgments(self, group_id: str, query: str) -> judged.QueryJudgments | None:
        """The query's grades from the deal's labelled set or its relevance verdicts; None when not judged."""
        return await judged.query_judgments(self.lab, group_id, query)

    def examples(self, group_id: str) -> list[examples.Example]:
        """The deal's example queries, those that show reranking's effect first."""
        return examples.examples(self.lab.store, group_id)

    side_score = staticmethod(judged.side_score)
    side_names = staticmethod(verdict.side_names)
    verdict = staticmethod(verdict.verdict)
    overlap = staticmethod(overlap.overlap)
