"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from."""

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
