"""The first-stage recipe on Compare and Scores: a select box of graphiti's presets by name, each explained from its
own config (methods, fusion, floors), and the line a side shows when the recipe's floors leave fewer than N.

The URL holds the recipe's name (`compare.a.recipe`, `compare.b.recipe`, `scores.recipe`), left out for the default;
a name that is no preset is dropped from the URL with one line (`url_state`), and the default is used.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboard.common.page_state.url import publish_id, restore_text
from pipeline.api.models import DEFAULT_RECIPE, RECIPE_NAMES, Recipe, Setting

HELP = "graphiti's edge search presets: the methods, their fusion and floors.\n\n" + "\n".join(
    f"- **{name}**: {Recipe.preset(name).describe()}" for name in RECIPE_NAMES
)


def recipe_control(ns: str, side: str = "", where: DeltaGenerator | None = None) -> Recipe:
    """The recipe select box under key `{ns}.{side}recipe`, seeded from the URL's name (as the reranker is); the
    name goes back into the URL unless it is the default."""
    key = f"{ns}.{side}recipe"
    restore_text(key, RECIPE_NAMES, "recipe", f"a first-stage recipe ({', '.join(RECIPE_NAMES)})")
    st.session_state.setdefault(key, DEFAULT_RECIPE)
    name = (where or st).selectbox("First-stage recipe", RECIPE_NAMES, key=key, help=HELP)
    publish_id(key, None if name == DEFAULT_RECIPE else name)
    return Recipe.preset(name)


def pool_note(setting: Setting, found: int) -> str | None:
    """One line when the first stage found fewer than N candidates, saying why; None when it found N."""
    if found >= setting.candidates:
        return None
    why = (
        "the recipe's floors leave no more"
        if setting.recipe.floors(setting.first_stage)
        else "its methods find no more on this deal"
    )
    return f"The first stage found {found} of N={setting.candidates} candidates: {why}."
