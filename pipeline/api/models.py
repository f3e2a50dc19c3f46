"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from. Each is imported when a front end first names it, so
a CLI command loads only the features it uses (the spot-check's statistics alone take a second to import)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

# feature module -> the values it hands the front ends
VALUES: dict[str, tuple[str, ...]] = {
    "pipeline.rerankers": ("RERANKERS", "SPECS"),
    "pipeline.rerankers.base": ("LabReranker", "RerankOutcome"),
    "pipeline.retrieval.hooks": ("RankHooks", "ScoreCall", "ScoreRow"),
    "pipeline.retrieval.recipes": ("DEFAULT_RECIPE", "METHOD_LABELS", "RECIPE_NAMES", "Recipe"),
    "pipeline.retrieval.records": (
        "BUDGETS_MS",
        "METHODS",
        "CandidatePool",
        "RankedCandidate",
        "Result",
        "RetrievalRun",
    ),
    "pipeline.retrieval.setting": ("MAX_CANDIDATES", "Setting"),
    "pipeline.retrieval.vector_index.records": ("FIRST_STAGES", "FirstStageName", "RecallCheck"),
    "pipeline.spotcheck.agreement": ("Agreement",),
    "pipeline.spotcheck.highlight": ("SpanMatch",),
    "pipeline.spotcheck.queue": ("REPLAY_S",),
    "pipeline.spotcheck.rates": ("Rate",),
    "pipeline.spotcheck.records": ("Queue", "QueueItem", "QueueSpec", "RelevanceRecord"),
    "pipeline.spotcheck.sampling": ("MAX_SIZE", "PRIORITIES", "SIGNALS", "SOURCES"),
    "pipeline.spotcheck.verdicts": (
        "QUESTIONS",
        "RELEVANCE",
        "RELEVANCE_MEANING",
        "VERDICTS",
        "Disagreement",
        "RateRow",
    ),
}
_HOME = {name: module for module, names in VALUES.items() for name in names}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    """A value, its feature imported when a front end first names it: a CLI command loads only what it uses."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
