"""Recipes in the dashboard's words and links: each preset explained from its own config, the line for a pool short
of N, and links that carry each side's recipe by name (left out for the default)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dashboard.common.links import compare_params, compare_url, scores_params, scores_to_compare
from dashboard.common.recipes import HELP, pool_note
from pipeline.retrieval.recipes import DEFAULT_RECIPE, RECIPE_NAMES, Recipe
from pipeline.retrieval.setting import setting


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("graphiti-default", "BM25 + cosine, RRF, cosine floor 0.6"),
        ("vector", "cosine, RRF, cosine floor 0.6"),
        ("bm25", "BM25, RRF"),
        ("hybrid-walk", "BM25 + cosine + graph BFS (depth 3), RRF"),
        ("mmr", "BM25 + cosine, MMR (λ 0.5), cosine floor 0.6, MMR floor 0"),
        ("node-distance", "BM25 + cosine, node distance from the top hit's entity, cosine floor 0.6"),
        ("episode-mentions", "BM25 + cosine, episode mentions, cosine floor 0.6"),
    ],
)
def test_each_preset_is_explained_from_its_config(name: str, line: str) -> None:
    assert Recipe.preset(name).describe() == line
    assert f"**{name}**: {line}" in HELP


def test_every_preset_is_in_the_help() -> None:
    assert all(f"**{name}**" in HELP for name in RECIPE_NAMES)


def test_the_vector_index_has_no_cosine_floor() -> None:
    assert Recipe.preset("graphiti-default").floors("vector_index") == []
    assert Recipe.preset("mmr").floors("vector_index") == ["MMR floor 0"]


def test_a_short_pool_says_why() -> None:
    assert pool_note(setting("mmr", 50), 50) is None
    assert pool_note(setting("mmr", 50), 12) == (
        "The first stage found 12 of N=50 candidates: the recipe's floors leave no more."
    )
    # hybrid-walk has no floor: a small deal's short pool is not blamed on one
    assert pool_note(setting("hybrid-walk", 50), 7) == (
        "The first stage found 7 of N=50 candidates: its methods find no more on this deal."
    )


def test_compare_links_carry_each_sides_recipe_by_name() -> None:
    a, b = setting("vector", 25, "none", 5), setting(DEFAULT_RECIPE, 30, "local", 7)
    params = compare_params("demo", "q", a, b)
    assert params["compare.a.recipe"] == "vector" and "compare.b.recipe" not in params  # the default left out
    assert (params["compare.a.n"], params["compare.b.k"], params["compare.b.reranker"]) == ("25", "7", "local")
    assert "compare.first" not in params
    a_index, b_index = (replace(s, first_stage="vector_index") for s in (a, b))
    assert compare_params("demo", "q", a_index, b_index)["compare.first"] == "vector_index"
    with pytest.raises(ValueError, match="share one first stage"):
        compare_params("demo", "q", a_index, b)
    assert "compare.a.recipe=vector" in compare_url("demo", "q", a, b)


def test_scores_links_keep_the_recipe_on_both_sides_of_compare() -> None:
    side = setting("bm25", 20, "local", 5, "vector_index")
    params = scores_params("demo", "q", side)
    assert (params["scores.recipe"], params["scores.first"]) == ("bm25", "vector_index")
    assert (params["scores.reranker"], params["scores.n"], params["scores.k"]) == ("local", "20", "5")
    back = scores_to_compare("demo", "q", side)
    assert back["compare.a.recipe"] == back["compare.b.recipe"] == "bm25"
    assert (back["compare.a.reranker"], back["compare.b.reranker"]) == ("none", "local")
    assert back["compare.first"] == "vector_index"
    plain = scores_to_compare("demo", "q", setting(DEFAULT_RECIPE, 20, "none", 5))
    assert "compare.a.recipe" not in plain and "compare.b.recipe" not in plain
    assert (plain["compare.a.reranker"], plain["compare.b.reranker"]) == ("none", "local")
