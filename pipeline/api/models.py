"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from. Each is imported when a front end first names it, so
a CLI command loads only the features it uses (the spot-check's statistics alone take a second to import)."""

from __future__ import annotations

from pipeline.api.exports import lazy

# feature module -> the values it hands the front ends
VALUES: dict[str, tuple[str, ...]] = {
    "pipeline.comparison.confidence": ("Confidence",),
    "pipeline.comparison.examples": ("Example",),
    "pipeline.comparison.judged": ("QueryJudgments",),
    "pipeline.evaluation.jobs.records": ("SweepJob",),
    "pipeline.evaluation.judgments": ("EvalSet",),
    "pipeline.evaluation.recommend": ("Recommendation",),
    "pipeline.evaluation.records": (
        "BASELINE",
        "CONDENSED",
        "CONDENSED_NAMES",
        "DEFAULT_METRIC",
        "DEFAULT_SAMPLE",
        "JUDGED",
        "METRIC_NAMES",
        "STALE",
        "PoolGap",
        "QueryRow",
        "SettingResult",
        "SweepResult",
        "SweepSpec",
        "SweepStats",
    ),
    "pipeline.figures": ("FIGURE",),
    "pipeline.gate.ranking": ("Ranking",),
    "pipeline.gate.records": ("GATE_METRIC", "MAX_DROP", "Limits", "Selection", "Side", "StoredBaseline", "Verdict"),
    "pipeline.graph.embedded.redis_process": ("QUERY_LOG_ARMS",),
    "pipeline.graph.embedded_falkordb": ("EmbeddedFalkorDB",),
    "pipeline.numbers": ("MAX_INTEGER",),
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
    "pipeline.retrieval.walk_parity": ("WALK_FILTERS",),
    "pipeline.settings": ("Settings",),
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
    "pipeline.store.db": ("Store",),
    "pipeline.timing": ("PHASES", "StageTimer"),
    "pipeline.utc": ("MISSING",),
}
__all__, __getattr__ = lazy(__name__, VALUES)
