"""A judged comparison of two settings on one query, outside the dashboard (the CLI's `compare`): both sides ranked
together (a shared pool is retrieved once), then the same verdict, metrics, overlap and confidence the Compare page
shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.comparison.confidence import Confidence, assess
from pipeline.comparison.judged import QueryJudgments, SideScore, query_judgments, side_score
from pipeline.comparison.overlap import Overlap, overlap
from pipeline.comparison.verdict import Verdict, side_names, verdict
from pipeline.retrieval.records import RetrievalRun
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import Setting

if TYPE_CHECKING:
    from pipeline.lab import Lab


@dataclass(frozen=True)
class Comparison:
    a: RetrievalRun
    b: RetrievalRun
    overlap: Overlap
    confidence: Confidence
    judged: QueryJudgments | None
    scores: tuple[SideScore, SideScore] | None
    verdict: Verdict | None


async def compare(lab: Lab, query: str, group_id: str, a: Setting, b: Setting) -> Comparison:
    run_a, run_b = await rank(lab, query, group_id, [a, b])
    judged = await query_judgments(lab, group_id, run_a.query)
    scores = said = None
    if judged is not None and judged.scorable:
        scores = (
            side_score(judged.grades, [r.uuid for r in run_a.results], a.top_k),
            side_score(judged.grades, [r.uuid for r in run_b.results], b.top_k),
        )
        said = verdict(*scores, side_names(a, b))
    shared = overlap([r.uuid for r in run_a.results], [r.uuid for r in run_b.results])
    return Comparison(run_a, run_b, shared, await assess(lab, run_a), judged, scores, said)
