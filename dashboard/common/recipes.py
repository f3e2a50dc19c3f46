"""The first-stage recipe on Compare and Scores: a select box of graphiti's presets by name, each explained from its
own config (methods, fusion, floors), and the line a side shows when the recipe's floors leave fewer than N.

The URL holds the recipe's name (`compare.a.recipe`, `compare.b.recipe`, `scores.recipe`), left out for the default;
a name that is no preset is dropped from the URL with one line (`url_state`), and the default is used.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboard.common.url_state import linked_text
from pipeline.retrieval.recipes import DEFAULT_RECIPE, RECIPE_NAMES, Recipe, preset
from pipeline.retrieval.setting import Setting

METHOD_LABELS = {"bm25": "BM25", "cosine": "cosine", "bfs": "graph BFS"}
FUSION_LABELS = {"rrf": "RRF", "mmr": "MMR", "node_distance": "node distance", "episode_mentions": "episode mentions"}


def fusion_label(recipe: Recipe) -> str:
    return FUSION_LABELS[recipe.fusion]


def floors(recipe: Recipe, first_stage: str = "exact") -> list[str]:
    """The recipe's floors that can leave a pool short of N: graphiti's cosine floor (`sim_min_score`, not applied
    by the vector index), and the fusion's `reranker_min_score` (MMR drops scores below it, 0 included)."""
    edge = recipe.edge_config
    found = []
    if "cosine" in recipe.methods and edge.sim_min_score > 0 and first_stage == "exact":
        found.append(f"cosine floor {edge.sim_min_score:g}")
    min_score = recipe.config.reranker_min_score
    if recipe.fusion == "mmr" or min_score > 0:
        found.append(f"{fusion_label(recipe)} floor {min_score:g}")
    return found


def describe(recipe: Recipe) -> str:
    """One line from the recipe's own config, e.g. "BM25 + cosine, RRF, cosine floor 0.6"."""
    edge = recipe.edge_config
    methods = " + ".join(
        METHOD_LABELS[m] + (f" (depth {edge.bfs_max_depth})" if m == "bfs" else "") for m in recipe.methods
    )
    fusion = fusion_label(recipe)
    if recipe.fusion == "mmr":
        fusion += f" (λ {edge.mmr_lambda:g})"
    elif recipe.fusion == "node_distance":
        fusion += f" from entity {recipe.center}" if recipe.center else " from the top hit's entity"
    return ", ".join([methods, fusion, *floors(recipe)])


HELP = "graphiti's edge search presets: the methods, their fusion and floors.\n\n" + "\n".join(
    f"- **{name}**: {describe(preset(name))}" for name in RECIPE_NAMES
)


def recipe_control(ns: str, side: str = "", where: DeltaGenerator | None = None) -> Recipe:
    """The recipe select box under key `{ns}.{side}recipe`, seeded from the URL's name when the page is drawn
    (as the reranker is); the name goes back into the URL unless it is the default."""
    key = f"{ns}.{side}recipe"
    if key not in st.session_state:
        rule = f"a first-stage recipe ({', '.join(RECIPE_NAMES)})"
        st.session_state[key] = linked_text(key, RECIPE_NAMES, "recipe", rule, once=False) or DEFAULT_RECIPE
    name = (where or st).selectbox("First-stage recipe", RECIPE_NAMES, key=key, help=HELP)
    if name == DEFAULT_RECIPE:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = name
    return preset(name)


def pool_note(setting: Setting, found: int) -> str | None:
    """One line when the first stage found fewer than N candidates, saying why; None when it found N."""
    if found >= setting.candidates:
        return None
    why = (
        "the recipe's floors leave no more"
        if floors(setting.recipe, setting.first_stage)
        else "its methods find no more on this deal"
    )
    return f"The first stage found {found} of N={setting.candidates} candidates: {why}."
