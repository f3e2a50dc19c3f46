"""How far an LLM judge agrees with the analysts, on the (query, fact) pairs both graded.

The analysts' grade of a pair is the one their judgments count (the adjudicated grade, else their lower
median); the judge's is its own. Quadratic-weighted Cohen's kappa on the 0-3 scale (a 0-vs-3 split weighs more
than 2-vs-3), the share of pairs graded exactly alike, and n. A judge is trusted for metrics only at or above a
kappa threshold (RETRIEVAL_LAB_JUDGE_MIN_KAPPA, default 0.4: "moderate" on the Landis-Koch scale) unless a
user asks for it anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.spotcheck.agreement import MIN_SHARED, cohen
from pipeline.spotcheck.verdicts import RELEVANCE, Grades, deal_grades
from pipeline.store.db import Store


@dataclass(frozen=True)
class JudgeAgreement:
    pairs: int  # pairs graded by the judge and by analysts (n)
    kappa: float | None  # quadratic-weighted Cohen's kappa; None when undefined
    exact: float | None  # share of those pairs graded alike
    judged_by_judge: int  # every pair the judge graded
    reason: str = ""  # why there is no kappa

    def trusted(self, threshold: float) -> bool:
        return self.kappa is not None and self.kappa >= threshold

    def text(self) -> str:
        if self.kappa is None:
            return f"LLM judge vs analysts: {self.reason}"
        return (
            f"LLM judge vs analysts: weighted kappa {self.kappa:.2f}, {self.exact:.0%} graded alike, "
            f"n = {self.pairs} shared pairs"
        )


def judge_agreement(store: Store, group_id: str, grades: Grades | None = None) -> JudgeAgreement:
    """On the pairs both graded; `grades`, when the caller already read the deal's."""
    grades = grades or deal_grades(store, group_id)
    humans, judge = grades.humans, grades.judge
    pairs = [
        (grades[fact], humans[query][fact])
        for query, grades in judge.items()
        for fact in grades
        if fact in humans.get(query, {})
    ]
    graded = sum(len(g) for g in judge.values())
    if len(pairs) < MIN_SHARED:
        return JudgeAgreement(
            len(pairs), None, None, graded,
            f"not enough overlap: {len(pairs)} pair(s) graded by both (at least {MIN_SHARED} needed; "
            "draw a calibration sample for analysts)",
        )  # fmt: skip
    exact = sum(1 for a, b in pairs if a == b) / len(pairs)
    if len({g for pair in pairs for g in pair}) < 2:
        return JudgeAgreement(
            len(pairs), None, exact, graded,
            f"every shared grade is the same ({len(pairs)} pairs), so kappa is undefined",
        )  # fmt: skip
    return JudgeAgreement(len(pairs), cohen(pairs, list(RELEVANCE), weighted=True), exact, graded)
