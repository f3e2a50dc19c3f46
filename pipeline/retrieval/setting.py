"""A setting: how one ranked list is made. A first-stage recipe at N candidates, a reranker over those N, the top k
handed on, and where the cosine list comes from (graphiti's exact scan or the deal's vector index)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline.errors import InvalidInput
from pipeline.numbers import whole_number
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.recipes import CUSTOM, DEFAULT_RECIPE, Recipe, validation_line
from pipeline.retrieval.vector_index.records import FIRST_STAGES, FirstStageName

MAX_CANDIDATES = 200
MAX_TOP_K = 100


@dataclass(frozen=True)
class Setting:
    recipe: Recipe
    candidates: int = 50  # N
    reranker: str = "none"
    top_k: int = 10
    first_stage: FirstStageName = "exact"

    def validate(self) -> Setting:
        """The setting, or InvalidInput saying what to change (an unknown reranker is refused where it is made)."""
        if not 1 <= self.candidates <= MAX_CANDIDATES:
            raise InvalidInput(f"Candidates (N) must be between 1 and {MAX_CANDIDATES}; got {self.candidates}.")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise InvalidInput(f"Top-k must be between 1 and {MAX_TOP_K}; got {self.top_k}.")
        if self.top_k > self.candidates:
            raise InvalidInput(f"Top-k ({self.top_k}) cannot exceed the number of candidates N ({self.candidates}).")
        if self.first_stage not in FIRST_STAGES:
            raise InvalidInput(f"Unknown first stage {self.first_stage!r}; one of: {', '.join(FIRST_STAGES)}.")
        return self

    @property
    def pool(self) -> tuple[Recipe, int, str]:
        """What its candidates depend on: settings with the same pool share one first stage."""
        return (self.recipe, self.candidates, self.first_stage)

    @cached_property  # a sweep's result looks its settings up by key, row after row
    def key(self) -> str:
        """The key a sweep stores this setting's rows under (experiments, URLs): `RECIPE RERANKER N=50 k=10`.
        Sweeps rank with the exact first stage; another first stage is appended so two settings never share a key."""
        index = "" if self.first_stage == "exact" else f" {self.first_stage}"
        return f"{self.recipe.key} {self.reranker} N={self.candidates} k={self.top_k}{index}"

    @property
    def label(self) -> str:
        """How a page, the CLI and a sentence name the setting: `graphiti-default + local, N=50, k=10`."""
        index = ", vector index" if self.first_stage == "vector_index" else ""
        return f"{self.recipe.key} + {self.reranker}, N={self.candidates}, k={self.top_k}{index}"

    @property
    def text(self) -> str:
        """The form `parse` reads: `RECIPE:RERANKER:N:K`."""
        return f"{self.recipe.key}:{self.reranker}:{self.candidates}:{self.top_k}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form `from_dict` reads (a gate's `production.json`, a baseline file's setting, a pool's
        settings): a custom recipe's SearchConfig rides beside its key."""
        data: dict[str, Any] = {
            "recipe": self.recipe.key,
            "candidates": self.candidates,
            "reranker": self.reranker,
            "top_k": self.top_k,
            "first_stage": self.first_stage,
        }
        if self.recipe.name == CUSTOM:
            data["search_config"] = json.loads(self.recipe.config_json)
        return data

    @classmethod
    def from_dict(cls, data: object, where: str) -> Setting:
        """A setting from a JSON object (`to_dict`'s shape, or a graphiti SearchConfig as "search_config" in place
        of "recipe"); anything else is refused in one line starting with `where`. The exact first stage only: a
        setting read from a file is ranked by the sweep engine, which searches exactly."""
        try:
            raw = _SettingFile.model_validate(data)
        except ValidationError as exc:
            raise InvalidInput(
                f"{where}: not a setting ({validation_line(exc, echo=False)}); give "
                '{"recipe": "graphiti-default", "candidates": 50, "reranker": "local", "top_k": 10} '
                'or a "search_config" in place of "recipe".'
            ) from None
        if raw.first_stage != "exact":
            raise InvalidInput(f"{where}: first_stage {raw.first_stage!r}: the gate ranks with exact search only.")
        if raw.reranker not in RERANKERS:
            raise InvalidInput(f"{where}: unknown reranker {raw.reranker!r}; one of: {', '.join(RERANKERS)}.")
        if raw.search_config is not None:
            config = raw.search_config if isinstance(raw.search_config, str) else json.dumps(raw.search_config)
            recipe = Recipe.from_config(config, f"{where}: search_config")
            if raw.recipe is not None and raw.recipe != recipe.key:
                raise InvalidInput(
                    f"{where}: recipe {raw.recipe!r} is not its search_config (that is {recipe.key!r}); leave one out."
                )
        else:
            name = DEFAULT_RECIPE if raw.recipe is None else raw.recipe
            if name.strip().endswith(".json"):
                raise InvalidInput(f'{where}: give the SearchConfig itself as "search_config", not a file name.')
            try:
                recipe = Recipe.parse(name)
            except InvalidInput as exc:
                raise InvalidInput(f"{where}: {exc}") from None
        try:
            return cls(recipe, raw.candidates, raw.reranker, raw.top_k).validate()
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from None

    @classmethod
    def parse(cls, text: str, flag: str, first_stage: FirstStageName = "exact") -> Setting:
        """`[RECIPE:]RERANKER:N:K` (e.g. `vector:local:50:10`, `local:50:10` for the default recipe); anything
        else is refused in one line."""
        parts = text.rsplit(":", 3)
        recipe_text = parts.pop(0) if len(parts) == 4 else DEFAULT_RECIPE
        numbers = [whole_number(part) for part in parts[1:]]
        if len(parts) != 3 or parts[0] not in RERANKERS or None in numbers:
            raise InvalidInput(
                f"{flag} must be [RECIPE:]RERANKER:N:K with RERANKER one of {', '.join(RERANKERS)} "
                f"(e.g. graphiti-default:local:50:10); got {text!r}."
            )
        n, k = (n for n in numbers if n is not None)
        return cls(Recipe.parse(recipe_text), n, parts[0], k, first_stage).validate()


class _SettingFile(BaseModel):
    """`Setting.to_dict()`'s shape; a custom recipe as graphiti's SearchConfig (an object or its JSON text)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    recipe: str | None = None
    candidates: int
    reranker: str
    top_k: int
    first_stage: str = "exact"
    search_config: dict[str, Any] | str | None = None


def setting(
    recipe: str | Recipe = DEFAULT_RECIPE,
    candidates: int = 50,
    reranker: str = "none",
    top_k: int = 10,
    first_stage: FirstStageName = "exact",
) -> Setting:
    """A setting with its recipe given by name (or as a Recipe)."""
    return Setting(
        Recipe.preset(recipe) if isinstance(recipe, str) else recipe, candidates, reranker, top_k, first_stage
    )
