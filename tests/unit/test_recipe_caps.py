"""A custom recipe's numbers that graphiti accepts but no sensible recipe has are refused in one line
(a walk 1,000,000 hops deep took 1,033 ms against 27 ms at depth 3)."""

from __future__ import annotations

import json

import pytest

from pipeline.errors import InvalidInput
from pipeline.retrieval.recipes import BFS_MAX_DEPTH, PRESETS, Recipe

WALK = ["breadth_first_search"]


@pytest.mark.parametrize(
    ("edge", "field"),
    [
        ({"search_methods": WALK, "bfs_max_depth": 1_000_000}, "bfs_max_depth"),
        ({"search_methods": WALK, "bfs_max_depth": 0}, "bfs_max_depth"),
        ({"search_methods": WALK, "bfs_max_depth": -5}, "bfs_max_depth"),
        ({"search_methods": ["cosine_similarity"], "sim_min_score": 5}, "sim_min_score"),
        ({"search_methods": ["cosine_similarity"], "sim_min_score": -1e300}, "sim_min_score"),
        ({"search_methods": ["cosine_similarity"], "reranker": "mmr", "mmr_lambda": 7}, "mmr_lambda"),
    ],
)
def test_out_of_range_values_are_one_line_naming_the_field(edge: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Recipe.from_config(json.dumps({"edge_config": edge}))
    line = str(caught.value)
    assert "\n" not in line and f"edge_config.{field}" in line and "give " in line


def test_the_cap_and_every_preset_still_pass() -> None:
    recipe = Recipe.from_config(json.dumps({"edge_config": {"search_methods": WALK, "bfs_max_depth": BFS_MAX_DEPTH}}))
    assert recipe.edge_config.bfs_max_depth == BFS_MAX_DEPTH
    for config in PRESETS.values():
        Recipe.from_config(config.model_dump_json())
