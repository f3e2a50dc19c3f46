"""How far reviewers agree, per question, on the items they answered in common.

- Two reviewers: Cohen's kappa (statsmodels `cohens_kappa`) on the items both answered. Relevance grades
  are ordered, so a 0-vs-3 split weighs more than 2-vs-3: quadratic weights (Fleiss-Cohen). Support
  verdicts are categories: unweighted kappa.
- Three or more: Krippendorff's alpha (`krippendorff.alpha`), ordinal for relevance, nominal for support,
  on the items at least two of them answered (alpha pairs the answers an item has; a reviewer who skipped
  an item is a missing value, not a disagreement).
- Fewer than 2 shared items, or every shared answer in one category (kappa and alpha are undefined: no
  variation to agree on): "not enough overlap", said with the reason, never a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import cohens_kappa

Question = Literal["relevance", "support"]
MIN_SHARED = 2


@dataclass(frozen=True)
class Agreement:
    question: Question
    statistic: str  # what was computed, e.g. "Cohen's kappa (quadratic weights)"; "" when nothing was
    value: float | None
    items: int  # items the statistic was computed on
    reviewers: tuple[str, ...]
    reason: str = ""  # why there is no value
    # share of those items answered alike by everyone who answered them: beside a chance-corrected statistic,
    # which reads 0 when most items agree but all in one category
    alike: float | None = None

    def text(self) -> str:
        if self.value is None:
            return self.reason
        who = " and ".join(self.reviewers) if len(self.reviewers) == 2 else f"{len(self.reviewers)} reviewers"
        return (
            f"{self.statistic} = {self.value:.2f}, {self.alike:.0%} answered alike ({who}, {self.items} shared items)"
        )


def agreement(
    answers: Mapping[int, Mapping[str, int]], question: Question, categories: Sequence[int], names: Mapping[str, str]
) -> Agreement:
    """`answers`: item -> {reviewer key: category index}; `categories`: every index the question allows
    (in order); `names`: reviewer key -> display name."""
    reviewers = sorted({r for by in answers.values() for r in by})
    shown = tuple(names.get(r, r) for r in reviewers)
    if len(reviewers) < 2:
        return Agreement(question, "", None, 0, shown, "Not enough overlap: agreement needs two reviewers.")
    if len(reviewers) == 2:
        a, b = reviewers
        shared = [(by[a], by[b]) for by in answers.values() if a in by and b in by]
        values = [v for pair in shared for v in pair]
        statistic = "Cohen's kappa" + (" (quadratic weights)" if question == "relevance" else "")
    else:
        shared = [tuple(by.values()) for by in answers.values() if len(by) >= 2]
        values = [v for group in shared for v in group]
        statistic = f"Krippendorff's alpha ({'ordinal' if question == 'relevance' else 'nominal'})"
    if len(shared) < MIN_SHARED:
        both = "both" if len(reviewers) == 2 else "two or more"
        return Agreement(
            question, statistic, None, len(shared), shown,
            f"Not enough overlap: {len(shared)} item(s) answered by {both} reviewers (at least {MIN_SHARED} needed).",
        )  # fmt: skip
    if len(set(values)) < 2:
        return Agreement(
            question, statistic, None, len(shared), shown,
            f"Not enough overlap: every shared answer is the same ({len(shared)} items), so agreement is undefined.",
        )  # fmt: skip
    if len(reviewers) == 2:
        value = cohen(shared, categories, weighted=question == "relevance")
    else:
        value = alpha(answers, reviewers, categories, "ordinal" if question == "relevance" else "nominal")
    alike = sum(1 for group in shared if len(set(group)) == 1) / len(shared)
    return Agreement(question, statistic, value, len(shared), shown, alike=alike)


def cohen(pairs: Sequence[tuple[int, int]], categories: Sequence[int], weighted: bool) -> float:
    """Cohen's kappa of two reviewers' (a, b) answers; quadratic weights on the category order when `weighted`."""
    index = {c: i for i, c in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)))
    for a, b in pairs:
        table[index[a], index[b]] += 1
    if weighted:
        return float(cohens_kappa(table, wt="quadratic", return_results=False))
    return float(cohens_kappa(table, return_results=False))


def alpha(
    answers: Mapping[int, Mapping[str, int]], reviewers: Sequence[str], categories: Sequence[int], level: str
) -> float:
    """Krippendorff's alpha over reviewers x items (NaN where a reviewer did not answer)."""
    items = [by for by in answers.values() if len(by) >= 2]
    data = np.array([[by.get(r, np.nan) for by in items] for r in reviewers], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, value_domain=list(categories), level_of_measurement=level))
