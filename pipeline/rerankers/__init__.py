"""The rerankers a user can pick, and whether each can run here.

- `none`: first-stage (RRF) order, no reranking.
- `local`: offline re-scorer, works without network (not a cross-encoder; see local.py).
- `voyage`: Voyage's hosted cross-encoder (`rerank-2.5` by default), needs VOYAGE_API_KEY.
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
    "reranker_choices",
]

RERANKERS = ("none", "local", "voyage")


@dataclass(frozen=True)
class RerankerChoice:
    name: str
    label: str
    available: bool
    note: str  # why not available, or what it is


def reranker_choices(settings: Settings) -> list[RerankerChoice]:
    from pipeline.rerankers.voyage import LAST_FAILURE

    voyage_note = (
        f"Voyage {settings.rerank_model} (hosted cross-encoder)"
        if settings.voyage_api_key
        else "no API key (set VOYAGE_API_KEY)"
    )
    failure = LAST_FAILURE.get(settings.rerank_model)
    if settings.voyage_api_key and failure:
        voyage_note = f"unreachable or failing: {failure}"
    return [
        RerankerChoice("none", "No reranking (first-stage order)", True, "RRF fusion of BM25, cosine and BFS"),
        RerankerChoice("local", "Local re-scorer (offline)", True, "bi-encoder + BM25 re-score, not a cross-encoder"),
        RerankerChoice(
            "voyage", f"Voyage {settings.rerank_model}", bool(settings.voyage_api_key) and not failure, voyage_note
        ),
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
    raise InvalidInput(f"Unknown reranker {name!r}; choose one of: {', '.join(RERANKERS)}.")


def _local_reranker() -> LabReranker:
    from pipeline.embedders import _local
    from pipeline.rerankers.local import LocalReranker

    return LocalReranker(_local())  # type: ignore[arg-type]
