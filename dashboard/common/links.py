"""Links between pages: the URL query parameters a page reads its state from (its widgets are bound to them).

Compare's two sides are `compare.a.*` and `compare.b.*` (recipe, reranker, N, k; the recipe by name, left out
when it is the default), their one first stage `compare.first`; the deal is the sidebar's `sidebar.deal`.
Evaluate links a per-query win or loss here, Scores and Compare link each other. A side is the pipeline's
`Setting` (pipeline/retrieval/setting.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from dashboard.common.sidebar import DEAL_KEY
from pipeline.api.models import DEFAULT_RECIPE, Setting


def _side(params: dict[str, str], prefix: str, side: Setting) -> None:
    if side.recipe.key != DEFAULT_RECIPE:
        params[f"{prefix}.recipe"] = side.recipe.key
    params[f"{prefix}.reranker"] = side.reranker
    params[f"{prefix}.n"] = str(side.candidates)
    params[f"{prefix}.k"] = str(side.top_k)


def compare_params(group_id: str, query: str, a: Setting, b: Setting) -> dict[str, str]:
    """Compare's URL parameters for `query` with setting `a` on the left and `b` on the right (Compare has one
    first stage for both sides: they must agree on it)."""
    if a.first_stage != b.first_stage:
        raise ValueError(f"Compare's sides share one first stage; got {a.first_stage!r} and {b.first_stage!r}.")
    params = {DEAL_KEY: group_id, "compare.q": query}
    for name, side in (("a", a), ("b", b)):
        _side(params, f"compare.{name}", side)
    if a.first_stage != "exact":
        params["compare.first"] = a.first_stage
    return params


def compare_url(group_id: str, query: str, a: Setting, b: Setting) -> str:
    """A relative link to Compare (`compare_params`)."""
    return f"compare?{urlencode(compare_params(group_id, query, a, b))}"


def scores_to_compare(group_id: str, query: str, side: Setting) -> dict[str, str]:
    """Scores' setting on Compare's right, beside the same recipe, N and k without reranking (a setting without
    reranking goes on the left, beside the local reranker: Compare's default pair)."""
    if side.reranker == "none":
        return compare_params(group_id, query, side, replace(side, reranker="local"))
    return compare_params(group_id, query, replace(side, reranker="none"), side)


def scores_params(group_id: str, query: str, side: Setting) -> dict[str, str]:
    """Scores' URL parameters for `query` under one setting (Compare links each side there)."""
    params = {DEAL_KEY: group_id, "scores.q": query}
    _side(params, "scores", side)
    if side.first_stage != "exact":
        params["scores.first"] = side.first_stage
    return params


def evidence_params(
    group_id: str, uuid: str, kind: str = "fact", query: str | None = None, side: Setting | None = None
) -> dict[str, str]:
    """The Evidence page's URL parameters: a fact's (or an entity's) neighbourhood; with `query`, where the fact
    ranks for it under `side` (the page's default setting when none is given)."""
    params = {DEAL_KEY: group_id, f"evidence.{kind}": uuid}
    if query:
        params["evidence.q"] = query
        if side is not None:
            params["evidence.setting"] = side.text
    return params


def query_links(group_id: str, query: str, side: Setting, scores_box: Any, compare_box: Any) -> None:
    """Links to `query` under `side` on Scores and on Compare (beside the same setting reranked or not), each in its
    column or container."""
    scores_box.page_link(
        "app_pages/scores.py",
        label="Scores",
        icon=":material/table_chart:",
        query_params=scores_params(group_id, query, side),
    )
    compare_box.page_link(
        "app_pages/compare.py",
        label="Compare",
        icon=":material/compare_arrows:",
        query_params=scores_to_compare(group_id, query, side),
    )
