"""A rate with its 95% Wilson score interval (statsmodels' `proportion_confint(method="wilson")`).

Wilson rather than the normal approximation: spot-check samples are small and rates sit near 0 or 1, where
the normal interval runs past [0, 1] or collapses to a point (0 of 5 would read "0% ± 0").
"""

from __future__ import annotations

from dataclasses import dataclass

from statsmodels.stats.proportion import proportion_confint

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Rate:
    hits: int
    n: int

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% Wilson interval; None when nothing was counted."""
        if not self.n:
            return None
        low, high = proportion_confint(self.hits, self.n, alpha=1 - CONFIDENCE, method="wilson")
        return float(low), float(high)

    def text(self) -> str:
        """ "62% (95% CI 41-79%, n=21)"; "no answers" when n is 0."""
        if not self.interval:
            return "no answers"
        low, high = self.interval
        return f"{self.value:.0%} (95% CI {low:.0%}-{high:.0%}, n={self.n})"
