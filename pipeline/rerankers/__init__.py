"""The rerankers a user can pick, what each one is (its traits), and whether each can run here.

- `none`: first-stage (RRF) order, no reranking.
- `local`: offline re-scorer, works without network (not a cross-encoder; see local.py).
- `voyage`: Voyage's hosted cross-encoder (`rerank-2.5` by default), needs VOYAGE_API_KEY; billed per token.
- `cohere`: Cohere's hosted cross-encoder (`rerank-v3.5` by default), needs COHERE_API_KEY; billed per search.

Each one is a row of the table in `specs.py` (label, traits, model setting, price unit, chart colour, note, factory,
exported code): the one place a reranker is added. The rest of the pipeline (and the dashboard) asks `spec(name)` /
`traits(name)` instead of comparing names, and builds one with `make_reranker` from its row. No module of this
package imports this `__init__`: they take what they need from `specs.py`, `base.py` and `hosted.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.rerankers.base import LabReranker, RerankerFailed, RerankOutcome
from pipeline.rerankers.hosted import LAST_FAILURE
from pipeline.rerankers.specs import (
    RERANKERS,
    SPECS,
    ExportCode,
    RerankerSpec,
    RerankerTraits,
    export_code,
    make_reranker,
    register,
    spec,
    traits,
)
from pipeline.settings import Settings

__all__ = [
    "RERANKERS",
    "SPECS",
    "ExportCode",
    "LabReranker",
    "RerankOutcome",
    "RerankerChoice",
    "RerankerFailed",
    "RerankerSpec",
    "RerankerTraits",
    "estimate_cost",
    "export_code",
    "has_key",
    "make_reranker",
    "register",
    "reranker_choices",
    "searches_for",
    "spec",
    "traits",
]


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


def _choice(spec: RerankerSpec, settings: Settings) -> RerankerChoice:
    label = spec.display_label(settings)
    if not spec.traits.hosted:
        return RerankerChoice(spec.name, label, True, spec.note)
    keyed = has_key(spec.name, settings)
    note = f"{label} ({spec.note})" if keyed else f"no API key (set {spec.traits.key_env})"
    failure = LAST_FAILURE.get(spec.model(settings))
    if keyed and failure:
        note = f"unreachable or failing: {failure}"
    return RerankerChoice(spec.name, label, keyed and not failure, note)


def reranker_choices(settings: Settings) -> list[RerankerChoice]:
    """One choice per row of the table, in its order (read now: a registered row is in it): its label, whether it
    can run here, and why not."""
    return [_choice(s, settings) for s in SPECS.values()]
