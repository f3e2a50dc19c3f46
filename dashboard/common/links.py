"""Links between pages: the URL query parameters a page reads its state from (its widgets are bound to them).

Compare's two sides are `compare.a.*` and `compare.b.*` (reranker, N, k); the deal is the sidebar's
`sidebar.deal`. Evaluate links a per-query win or loss here, Scores and Compare link each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from dashboard.common.sidebar import DEAL_KEY


@dataclass(frozen=True)
class Setting:
    """One setting of a query: reranker, N (candidates) and k (handed on); a side of Compare, a Scores view."""

    reranker: str
    num_candidates: int
    top_k: int


def compare_params(group_id: str, query: str, a: Setting, b: Setting, first_stage: str = "exact") -> dict[str, str]:
    """Compare's URL parameters for `query` with setting `a` on the left and `b` on the right."""
    params = {DEAL_KEY: group_id, "compare.q": query}
    for name, side in (("a", a), ("b", b)):
        params[f"compare.{name}.reranker"] = side.reranker
        params[f"compare.{name}.n"] = str(side.num_candidates)
        params[f"compare.{name}.k"] = str(side.top_k)
    if first_stage != "exact":
        params["compare.first"] = first_stage
    return params


def compare_url(group_id: str, query: str, a: Setting, b: Setting, first_stage: str = "exact") -> str:
    """A relative link to Compare (`compare_params`)."""
    return f"compare?{urlencode(compare_params(group_id, query, a, b, first_stage))}"


def scores_to_compare(group_id: str, query: str, side: Setting, first_stage: str = "exact") -> dict[str, str]:
    """Scores' setting on Compare's right, beside the same N and k without reranking (a setting without
    reranking goes on the left, beside the local reranker: Compare's default pair)."""
    baseline = Setting("none", side.num_candidates, side.top_k)
    if side.reranker == "none":
        return compare_params(group_id, query, side, Setting("local", side.num_candidates, side.top_k), first_stage)
    return compare_params(group_id, query, baseline, side, first_stage)


def scores_params(group_id: str, query: str, side: Setting, first_stage: str = "exact") -> dict[str, str]:
    """Scores' URL parameters for `query` under one setting (Compare links each side there)."""
    params = {
        DEAL_KEY: group_id,
        "scores.q": query,
        "scores.reranker": side.reranker,
        "scores.n": str(side.num_candidates),
        "scores.k": str(side.top_k),
    }
    if first_stage != "exact":
        params["scores.first"] = first_stage
    return params
