"""A query's judgments and what they say about each side of a comparison.

Judgments come from the registered sources of `pipeline.evaluation.judgments`: the deal's labelled set
(matched by query text, trimmed, case-insensitive) and analysts' relevance verdicts; a fact graded by both
keeps the labelled grade. Each side's nDCG@k, recall@k and MRR@k are computed by `pipeline.evaluation.metrics`
(ir_measures) on the side's own top k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.evaluation.judgments import EvalSet, load_eval_set
from pipeline.evaluation.metrics import per_query

if TYPE_CHECKING:
    from pipeline.lab import Lab

SOURCES = ("labelled", "verdicts")  # in order of precedence


@dataclass(frozen=True)
class QueryJudgments:
    grades: dict[str, int]  # fact uuid -> grade (0-3)
    sources: tuple[str, ...]  # labels of the sources that judged this query

    @property
    def scorable(self) -> bool:
        return any(g >= 1 for g in self.grades.values())


@dataclass(frozen=True)
class SideScore:
    top_k: int
    ndcg: float
    recall: float
    mrr: float
    relevant: int  # facts of grade >= 1 in the side's top k


def normalise_query(text: str) -> str:
    return " ".join(text.split()).casefold()


def judgments_in(eval_set: EvalSet, query: str) -> dict[str, int] | None:
    """The grades of `query` in one eval set, matched by text (trimmed, case-insensitive); None if absent."""
    wanted = normalise_query(query)
    for q in eval_set.queries:
        if normalise_query(q.text) == wanted and q.id in eval_set.qrels:
            return dict(eval_set.qrels[q.id])
    return None


async def query_judgments(lab: Lab, group_id: str, query: str) -> QueryJudgments | None:
    """Every judgment of `query` on this deal, or None when no source judged it."""
    grades: dict[str, int] = {}
    sources: list[str] = []
    for source in SOURCES:
        try:
            eval_set = await load_eval_set(lab, group_id, source)
        except InvalidInput:  # this deal has no judgments of that kind
            continue
        found = judgments_in(eval_set, query)
        if found:
            sources.append(eval_set.label)
            for uuid, grade in found.items():
                grades.setdefault(uuid, grade)
    return QueryJudgments(grades, tuple(sources)) if grades else None


def side_score(grades: Mapping[str, int], ranking: Sequence[str], top_k: int) -> SideScore:
    """nDCG@k, recall@k and MRR@k of one side's top k against the query's grades."""
    top = list(ranking[:top_k])
    names = (f"ndcg@{top_k}", f"recall@{top_k}", f"mrr@{top_k}")
    values = per_query({"q": dict(grades)}, {"q": top}, names).get("q", dict.fromkeys(names, 0.0))
    relevant = sum(1 for uuid in top if grades.get(uuid, 0) >= 1)
    return SideScore(top_k, values[names[0]], values[names[1]], values[names[2]], relevant)
