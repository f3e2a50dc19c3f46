"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from."""

from pipeline.comparison.confidence import Confidence
from pipeline.comparison.examples import Example
from pipeline.comparison.judged import QueryJudgments
from pipeline.evaluation.jobs.records import SweepJob
from pipeline.evaluation.judgments import EvalSet
from pipeline.evaluation.recommend import Recommendation
from pipeline.evaluation.records import (
    BASELINE,
    CONDENSED,
    CONDENSED_NAMES,
    DEFAULT_METRIC,
    DEFAULT_SAMPLE,
    JUDGED,
    METRIC_NAMES,
    STALE,
    PoolGap,
    QueryRow,
    SettingResult,
    SweepResult,
    SweepSpec,
    SweepStats,
)
from pipeline.gate.ranking import Ranking
from pipeline.gate.records import GATE_METRIC, MAX_DROP, Limits, Selection, Side, StoredBaseline, Verdict
from pipeline.spotcheck.agreement import Agreement
from pipeline.spotcheck.highlight import SpanMatch
from pipeline.spotcheck.queue import REPLAY_S
from pipeline.spotcheck.rates import Rate
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec, RelevanceRecord
from pipeline.spotcheck.sampling import MAX_SIZE, PRIORITIES, SIGNALS, SOURCES
from pipeline.spotcheck.verdicts import QUESTIONS, RELEVANCE, RELEVANCE_MEANING, VERDICTS, Disagreement, RateRow

__all__ = [
    # citation spot-check
    "MAX_SIZE",
    "PRIORITIES",
    "QUESTIONS",
    "RELEVANCE",
    "RELEVANCE_MEANING",
    "REPLAY_S",
    "SIGNALS",
    "SOURCES",
    "VERDICTS",
    "Agreement",
    "Disagreement",
    "Queue",
    "QueueItem",
    "QueueSpec",
    "Rate",
    "RateRow",
    "RelevanceRecord",
    "SpanMatch",
]
# evaluation (sweeps, their jobs, saved experiments)
__all__ += [
    "BASELINE",
    "CONDENSED",
    "CONDENSED_NAMES",
    "DEFAULT_METRIC",
    "DEFAULT_SAMPLE",
    "JUDGED",
    "METRIC_NAMES",
    "STALE",
    "EvalSet",
    "PoolGap",
    "QueryRow",
    "Recommendation",
    "SettingResult",
    "SweepJob",
    "SweepResult",
    "SweepSpec",
    "SweepStats",
]
# regression gate
__all__ += [
    "GATE_METRIC",
    "MAX_DROP",
    "Limits",
    "Ranking",
    "Selection",
    "Side",
    "StoredBaseline",
    "Verdict",
]
# comparison of two settings on one query
__all__ += [
    "Confidence",
    "Example",
    "QueryJudgments",
]
