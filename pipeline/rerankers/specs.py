"""Every fact about a reranker, in one frozen spec per reranker: the one table the pipeline and the dashboard read.

A page, a CLI line or a chart that needs to know something about a reranker (its label, whether it is free,
its key, its model setting, its colour) asks `spec(name)` (or `traits(name)`) instead of comparing names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pipeline.settings import Settings

PriceUnit = Literal["free", "per 1M tokens", "per 1k searches"]
UNKNOWN_COLOUR = "#555"  # a chart marker for a name not in the table


@dataclass(frozen=True)
class RerankerTraits:
    hosted: bool = False  # runs on someone else's servers: the candidates leave this machine
    priced: bool = False  # billed (per token from `settings.rerank_prices_per_mtok`, or per search)
    uses_vectors: bool = False  # re-scores with the candidates' stored fact embeddings
    pool_independent: bool = False  # a fact's score ignores the other candidates (a cross-encoder)
    key_env: str | None = None  # the environment variable holding its API key, when it needs one
    key_setting: str | None = None  # the `Settings` field that variable fills
    per_search: bool = False  # billed per search (a query with up to DOCUMENTS_PER_SEARCH documents), not per token


@dataclass(frozen=True)
class RerankerSpec:
    name: str
    # what a picker shows; a hosted reranker's label is its vendor ("Voyage"), shown with its model
    label: str
    note: str  # what it is (a hosted one's note adds its vendor and model in front)
    colour: str  # its marker colour in charts
    traits: RerankerTraits = field(default_factory=RerankerTraits)
    model_setting: str | None = None  # the `Settings` field naming its model (None: no model to choose)

    @property
    def free(self) -> bool:
        """Costs nothing to run: no bill, whatever the prices in the settings say."""
        return not self.traits.priced

    @property
    def price_unit(self) -> PriceUnit:
        if self.free:
            return "free"
        return "per 1k searches" if self.traits.per_search else "per 1M tokens"

    def model(self, settings: Settings) -> str:
        """The model the settings choose for it ("" when it has no model setting)."""
        return str(getattr(settings, self.model_setting)) if self.model_setting else ""

    def display_label(self, settings: Settings) -> str:
        """'Voyage rerank-2.5' for a reranker with a model; its label otherwise."""
        return f"{self.label} {self.model(settings)}" if self.model_setting else self.label

    def key_status(self, has_key: bool) -> str:
        """The `python -m pipeline status` line of a reranker that needs a key."""
        return "API key set" if has_key else f"no API key ({self.label} reranker off)"


SPECS: dict[str, RerankerSpec] = {
    s.name: s
    for s in (
        RerankerSpec("none", "No reranking (first-stage order)", "the recipe's own fused order", colour="#8c9bb5"),
        RerankerSpec(
            "local",
            "Local re-scorer (offline)",
            "bi-encoder + BM25 re-score, not a cross-encoder",
            colour="#2f6fde",
            traits=RerankerTraits(uses_vectors=True),
        ),
        RerankerSpec(
            "voyage",
            "Voyage",
            "hosted cross-encoder",
            colour="#e8912d",
            traits=RerankerTraits(
                hosted=True, priced=True, pool_independent=True, key_env="VOYAGE_API_KEY", key_setting="voyage_api_key"
            ),
            model_setting="voyage_rerank_model",
        ),
        RerankerSpec(
            "cohere",
            "Cohere",
            "hosted cross-encoder",
            colour="#39a37b",
            traits=RerankerTraits(
                hosted=True,
                priced=True,
                pool_independent=True,
                key_env="COHERE_API_KEY",
                key_setting="cohere_api_key",
                per_search=True,
            ),
            model_setting="cohere_rerank_model",
        ),
    )
}
_UNKNOWN_TRAITS = RerankerTraits()  # a name not in the table (a stored run of a test reranker): nothing special


def spec(name: str) -> RerankerSpec | None:
    """The spec of `name`; None for a name not in the table."""
    return SPECS.get(name)


def traits(name: str) -> RerankerTraits:
    found = SPECS.get(name)
    return found.traits if found else _UNKNOWN_TRAITS


def colour(name: str) -> str:
    found = SPECS.get(name)
    return found.colour if found else UNKNOWN_COLOUR


def is_free(name: str) -> bool:
    """True for a reranker that is never billed; an unknown name counts as not free (its price is looked up)."""
    found = SPECS.get(name)
    return found is not None and found.free
