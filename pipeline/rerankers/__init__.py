"""The rerankers a user can pick, what each one is (its traits), and whether each can run here.

- `none`: first-stage (RRF) order, no reranking.
- `local`: offline re-scorer, works without network (not a cross-encoder; see local.py).
- `voyage`: Voyage's hosted cross-encoder (`rerank-2.5` by default), needs VOYAGE_API_KEY; billed per token.
- `cohere`: Cohere's hosted cross-encoder (`rerank-v3.5` by default), needs COHERE_API_KEY; billed per search.

The rest of the pipeline (and the dashboard) asks `traits(name)` instead of comparing names.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.errors import InvalidInput
from pipeline.rerankers.base import LabReranker, RerankerFailed, RerankOutcome
from pipeline.settings import Settings

__all__ = [
    "RERANKERS",
    "LabReranker",
    "RerankOutcome",
    "RerankerChoice",
    "RerankerFailed",
    "RerankerTraits",
    "estimate_cost",
    "has_key",
    "make_reranker",
    "reranker_choices",
    "searches_for",
    "traits",
]


@dataclass(frozen=True)
class RerankerTraits:
    hosted: bool = False  # runs on someone else's servers: the candidates leave this machine
    priced: bool = False  # billed per token (cost from `settings.rerank_prices_per_mtok`)
    uses_vectors: bool = False  # re-scores with the candidates' stored fact embeddings
    pool_independent: bool = False  # a fact's score ignores the other candidates (a cross-encoder)
    key_env: str | None = None  # the environment variable holding its API key, when it needs one
    key_setting: str | None = None  # the `Settings` field that variable fills
    per_search: bool = False  # billed per search (a query with up to DOCUMENTS_PER_SEARCH documents), not per token


TRAITS: dict[str, RerankerTraits] = {
    "none": RerankerTraits(),
    "local": RerankerTraits(uses_vectors=True),
    "voyage": RerankerTraits(
        hosted=True, priced=True, pool_independent=True, key_env="VOYAGE_API_KEY", key_setting="voyage_api_key"
    ),
    "cohere": RerankerTraits(
        hosted=True,
        priced=True,
        pool_independent=True,
        key_env="COHERE_API_KEY",
        key_setting="cohere_api_key",
        per_search=True,
    ),
}
RERANKERS = tuple(TRAITS)
_UNKNOWN = RerankerTraits()  # a name not in the registry (a stored run of a test reranker): nothing special


def traits(name: str) -> RerankerTraits:
    return TRAITS.get(name, _UNKNOWN)


def has_key(name: str, settings: Settings) -> bool:
    """True when the reranker needs no key, or its key is set."""
    field = traits(name).key_setting
    return field is None or bool(getattr(settings, field))


DOCUMENTS_PER_SEARCH = 100  # Cohere: one search unit per query and up to 100 documents (each under 500 tokens)


def searches_for(documents: int) -> int:
    """The search units of one rerank call of `documents` candidates, as Cohere bills them (longer documents
    count as several: an estimate, where the API's own `billed_units` is not at hand)."""
    return -(-documents // DOCUMENTS_PER_SEARCH)


def estimate_cost(tokens: int, model: str, settings: Settings, searches: int = 0) -> float | None:
    """Dollars for `tokens` (or `searches`, for a model billed per search) reranked with `model`; None when
    the model's price is not in the settings."""
    per_search = settings.rerank_prices_per_1k_searches.get(model)
    if per_search is not None:
        return searches * per_search / 1000
    price = settings.rerank_prices_per_mtok.get(model)
    if price is None:
        return None
    return tokens * price / 1_000_000


@dataclass(frozen=True)
class RerankerChoice:
    name: str
    label: str
    available: bool
    note: str  # why not available, or what it is


def _hosted_choice(name: str, vendor: str, model: str, settings: Settings) -> RerankerChoice:
    from pipeline.rerankers.hosted import LAST_FAILURE

    keyed = has_key(name, settings)
    note = f"{vendor} {model} (hosted cross-encoder)" if keyed else f"no API key (set {traits(name).key_env})"
    failure = LAST_FAILURE.get(model)
    if keyed and failure:
        note = f"unreachable or failing: {failure}"
    return RerankerChoice(name, f"{vendor} {model}", keyed and not failure, note)


def reranker_choices(settings: Settings) -> list[RerankerChoice]:
    return [
        RerankerChoice("none", "No reranking (first-stage order)", True, "RRF fusion of BM25, cosine and BFS"),
        RerankerChoice("local", "Local re-scorer (offline)", True, "bi-encoder + BM25 re-score, not a cross-encoder"),
        _hosted_choice("voyage", "Voyage", settings.voyage_rerank_model, settings),
        _hosted_choice("cohere", "Cohere", settings.cohere_rerank_model, settings),
    ]


def make_reranker(name: str, settings: Settings, model: str | None = None) -> LabReranker | None:
    """The reranker called `name` (None for "none"); an unknown name is rejected with the valid ones."""
    if name == "none":
        return None
    if name == "local":
        return _local_reranker()
    if name == "voyage":
        from pipeline.rerankers.voyage import VoyageReranker

        return VoyageReranker(settings, model)
    if name == "cohere":
        from pipeline.rerankers.cohere import CohereReranker

        return CohereReranker(settings, model)
    raise InvalidInput(f"Unknown reranker {name!r}; choose one of: {', '.join(RERANKERS)}.")


def _local_reranker() -> LabReranker:
    from pipeline.embedders import _local
    from pipeline.rerankers.local import LocalReranker

    return LocalReranker(_local())  # type: ignore[arg-type]
