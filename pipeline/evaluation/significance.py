"""Paired significance tests between two settings over the same queries (scipy.stats).

- Fisher's randomization test (the IR standard; ranx's default): under the null hypothesis each
  query's two scores are exchangeable, so the sign of each per-query difference is flipped at random;
  p is the share of 10,000 flips (fixed seed: reproducible) whose mean difference is at least as
  extreme as the observed one, two-sided. `scipy.stats.permutation_test(permutation_type="samples")`.
- The paired t-test (`scipy.stats.ttest_rel`), shown beside it.
- 95% bootstrap intervals (`scipy.stats.bootstrap`, percentile, fixed seed): of a mean (`mean_interval`) and of the
  mean per-query difference between two settings (`paired_interval`: how large a change is, not only whether there
  is one; the regression gate, `gate.py`, reads it).

Identical scores on every query, or a single query, give p = 1.0 for both (no evidence of a difference).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

RESAMPLES = 10_000
SEED = 0
ALPHA = 0.05


@dataclass(frozen=True)
class PairedTest:
    n: int
    mean_a: float
    mean_b: float
    p_randomization: float
    p_ttest: float

    @property
    def delta(self) -> float:
        return self.mean_b - self.mean_a

    @property
    def significant(self) -> bool:
        return self.p_randomization < ALPHA


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    return np.mean(x - y, axis=axis)


def paired_test(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES) -> PairedTest:
    """Test B against A, query by query (the sequences are aligned by query)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    n = int(x.size)
    if n == 0:
        return PairedTest(0, 0.0, 0.0, 1.0, 1.0)
    mean_a, mean_b = float(x.mean()), float(y.mean())
    if n < 2 or np.allclose(x, y, rtol=0.0, atol=1e-12):  # one query, or no difference: no evidence
        return PairedTest(n, mean_a, mean_b, 1.0, 1.0)
    randomization = stats.permutation_test(
        (y, x),
        _mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(SEED),
        batch=1000,
    )
    t = stats.ttest_rel(y, x)
    p_t = float(t.pvalue) if np.isfinite(t.pvalue) else 1.0
    return PairedTest(n, mean_a, mean_b, float(randomization.pvalue), p_t)


@lru_cache(maxsize=8192)
def _paired_cached(a: tuple[float, ...], b: tuple[float, ...]) -> PairedTest:
    return paired_test(a, b)


def paired_test_cached(a: Sequence[float], b: Sequence[float]) -> PairedTest:
    """`paired_test`, remembered by its scores: the page asks for the same tests on every rerun, and a sweep's
    settings often share a score list (an @10 metric is the same for every k)."""
    return _paired_cached(tuple(float(x) for x in a), tuple(float(x) for x in b))


@dataclass(frozen=True)
class MeanInterval:
    n: int
    mean: float
    low: float
    high: float  # the 95% bootstrap interval of the mean (percentile, fixed seed: reproducible)

    def text(self) -> str:
        return f"{self.mean:.3f} (95% CI {self.low:.3f}-{self.high:.3f}, {self.n} queries)"


def mean_interval(values: Sequence[float], resamples: int = RESAMPLES) -> MeanInterval:
    """The mean of per-query scores with its 95% bootstrap confidence interval (`scipy.stats.bootstrap`); one
    query, or the same score on every query, has no spread to resample: the interval is the mean itself."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return MeanInterval(0, 0.0, 0.0, 0.0)
    mean = float(x.mean())
    if x.size < 2 or np.allclose(x, x[0], rtol=0.0, atol=1e-12):
        return MeanInterval(int(x.size), mean, mean, mean)
    ci = stats.bootstrap(
        (x,), np.mean, n_resamples=resamples, method="percentile", rng=np.random.default_rng(SEED), vectorized=True
    ).confidence_interval
    return MeanInterval(int(x.size), mean, float(ci.low), float(ci.high))


def paired_interval(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES) -> MeanInterval:
    """The mean per-query difference B - A (the sequences aligned by query) with its 95% bootstrap interval: the
    queries are resampled as pairs, so what both settings find hard or easy cancels out. One query, or the same
    difference on every query, gives the mean difference itself as both ends (as `mean_interval` does)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    return mean_interval(y - x, resamples)
