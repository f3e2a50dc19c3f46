"""A judged comparison of two settings on one query, outside the dashboard (the CLI's `compare`): one first
stage per N, each side's reranker applied to it, then the same verdict, metrics, overlap and confidence the
Compare page shows."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.comparison.confidence import Confidence, assess
from pipeline.comparison.judged import QueryJudgments, SideScore, query_judgments, side_score, verdict_line
from pipeline.comparison.overlap import Overlap, overlap
from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.numbers import whole_number
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.records import RetrievalRun
from pipeline.retrieval.retrieve import retrieve, with_reranker


@dataclass(frozen=True)
class SideSetting:
    reranker: str
    candidates: int
    top_k: int

    @classmethod
    def parse(cls, text: str, flag: str) -> SideSetting:
        """'local:50:10' -> SideSetting('local', 50, 10); anything else is refused in one line."""
        parts = text.split(":")
        numbers = [whole_number(part) for part in parts[1:]]
        if len(parts) != 3 or parts[0] not in RERANKERS or numbers[0] is None or numbers[1] is None:
            raise InvalidInput(
                f"{flag} must be RERANKER:N:K with RERANKER one of {', '.join(RERANKERS)} (e.g. local:50:10); "
                f"got {text!r}."
            )
        return cls(parts[0], numbers[0], numbers[1])

    def label(self) -> str:
        return f"{self.reranker}, N={self.candidates}, k={self.top_k}"


@dataclass(frozen=True)
class Comparison:
    a: RetrievalRun
    b: RetrievalRun
    overlap: Overlap
    confidence: Confidence
    judged: QueryJudgments | None
    scores: tuple[SideScore, SideScore] | None
    verdict: str | None


async def compare(lab: Lab, query: str, group_id: str, a: SideSetting, b: SideSetting) -> Comparison:
    pools: dict[int, RetrievalRun] = {}
    runs = []
    for side in (a, b):
        if side.candidates not in pools:
            depth = max(s.top_k for s in (a, b) if s.candidates == side.candidates)
            pools[side.candidates] = await retrieve(lab, query, group_id, side.candidates, depth, "none")
        ranked = await with_reranker(lab, pools[side.candidates], side.reranker)
        runs.append(replace(ranked, top_k=side.top_k, results=ranked.results[: side.top_k]))
    run_a, run_b = runs
    judged = await query_judgments(lab, group_id, run_a.query)
    scores = verdict = None
    if judged is not None and judged.scorable:
        scores = (
            side_score(judged.grades, [r.uuid for r in run_a.results], a.top_k),
            side_score(judged.grades, [r.uuid for r in run_b.results], b.top_k),
        )
        verdict = verdict_line(*scores)
    shared = overlap([r.uuid for r in run_a.results], [r.uuid for r in run_b.results])
    return Comparison(run_a, run_b, shared, await assess(lab, run_a), judged, scores, verdict)
