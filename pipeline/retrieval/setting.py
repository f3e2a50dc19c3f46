"""A setting: how one ranked list is made. A first-stage recipe at N candidates, a reranker over those N, the top k
handed on, and where the cosine list comes from (graphiti's exact scan or the deal's vector index)."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import InvalidInput
from pipeline.numbers import whole_number
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.recipes import DEFAULT_RECIPE, Recipe, parse_recipe, preset
from pipeline.vector_index.records import FIRST_STAGES, FirstStageName

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

    @property
    def label(self) -> str:
        index = ", vector index" if self.first_stage == "vector_index" else ""
        return f"{self.recipe.key} + {self.reranker}, N={self.candidates}, k={self.top_k}{index}"

    @property
    def text(self) -> str:
        """The form `parse` reads: `RECIPE:RERANKER:N:K`."""
        return f"{self.recipe.key}:{self.reranker}:{self.candidates}:{self.top_k}"

    def to_dict(self) -> dict[str, object]:
        return {
            "recipe": self.recipe.key,
            "candidates": self.candidates,
            "reranker": self.reranker,
            "top_k": self.top_k,
            "first_stage": self.first_stage,
        }

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
        return cls(parse_recipe(recipe_text), n, parts[0], k, first_stage).validate()


def setting(
    recipe: str | Recipe = DEFAULT_RECIPE,
    candidates: int = 50,
    reranker: str = "none",
    top_k: int = 10,
    first_stage: FirstStageName = "exact",
) -> Setting:
    """A setting with its recipe given by name (or as a Recipe)."""
    return Setting(preset(recipe) if isinstance(recipe, str) else recipe, candidates, reranker, top_k, first_stage)
