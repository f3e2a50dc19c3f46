"""Rank-biased overlap (RBO) of two rankings, extrapolated: Webber, Moffat and Zobel, "A similarity measure
for indefinite rankings", ACM TOIS 28(4), 2010, equation 32 (RBO_ext for lists of uneven length; eq. 30
when they are even).

RBO weighs agreement at depth d by p^(d-1): with p = 0.9 the top 10 carry about 86% of the weight. It is 1
for identical lists and 0 for disjoint ones. The `rbo` package on PyPI pins numpy<2, hence these few lines.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_P = 0.9


def rbo_ext(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_P) -> float:
    """RBO_ext of rankings `a` and `b` (items best first, no repeats) with persistence `p` in (0, 1)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1); got {p}")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap = 0  # X_d: items shared by the first d of each list (the short list stops growing at s)
    x_s = 0
    weighted = 0.0  # sum over d of A_d p^d, where A_d = X_d / d
    for d in range(1, ell + 1):
        item_long = long_[d - 1]
        if d <= s:
            item_short = short[d - 1]
            if item_short == item_long:
                overlap += 1
            else:
                overlap += (item_short in seen_long) + (item_long in seen_short)
            seen_short.add(item_short)
        else:
            overlap += item_long in seen_short
        seen_long.add(item_long)
        weighted += overlap / d * p**d
        if d == s:
            x_s = overlap
        if d > s:  # the unseen part of the short list is assumed to agree as its seen part did
            weighted += x_s * (d - s) / (s * d) * p**d
    x_l = overlap
    return (1 - p) / p * weighted + ((x_l - x_s) / ell + x_s / s) * p**ell
