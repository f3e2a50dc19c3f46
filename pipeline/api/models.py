"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from."""

from pipeline.admin.unlock import UnlockResult
from pipeline.audit.describe import UndoKind
from pipeline.audit.records import AuditEntry
from pipeline.audit.repo import AuditFilter
from pipeline.corrections.records import CORRECTION_CHANNELS, CorrectionRequest
from pipeline.deals.records import DealInfo, DealRecord
from pipeline.history.compare import RunComparison
from pipeline.history.latency import BUDGETED_STAGES, SEQUENTIAL_STAGES, StagePercentiles, TimingTable
from pipeline.history.records import RunFilter, RunSummary, Source, StoredRun
from pipeline.merges.candidates import CandidateReport, EntityRef
from pipeline.merges.labelled import LabelledEvaluation
from pipeline.merges.records import MergeView
from pipeline.merges.repo import Rejection
from pipeline.merges.scoring import DEFAULT_THRESHOLD, W_COSINE, W_SHINGLE, PairSignals, PRPoint
from pipeline.spotcheck.agreement import Agreement
from pipeline.spotcheck.highlight import SpanMatch
from pipeline.spotcheck.queue import REPLAY_S
from pipeline.spotcheck.rates import Rate
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec, RelevanceRecord
from pipeline.spotcheck.sampling import MAX_SIZE, PRIORITIES, SIGNALS, SOURCES
from pipeline.spotcheck.verdicts import QUESTIONS, RELEVANCE, RELEVANCE_MEANING, VERDICTS, Disagreement, RateRow
from pipeline.temporal.records import (
    AsOfAnswer,
    EntityMatch,
    FactRow,
    Selection,
    SelectionKind,
    Supersession,
    SupersessionCounts,
    Timeline,
)

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

# run history and latency
__all__ += [
    "BUDGETED_STAGES",
    "SEQUENTIAL_STAGES",
    "RunComparison",
    "RunFilter",
    "RunSummary",
    "Source",
    "StagePercentiles",
    "StoredRun",
    "TimingTable",
]

# facts over time
__all__ += [
    "AsOfAnswer",
    "EntityMatch",
    "FactRow",
    "Selection",
    "SelectionKind",
    "Supersession",
    "SupersessionCounts",
    "Timeline",
]

# fact corrections
__all__ += [
    "CORRECTION_CHANNELS",
    "CorrectionRequest",
]

# entity merges
__all__ += [
    "DEFAULT_THRESHOLD",
    "W_COSINE",
    "W_SHINGLE",
    "CandidateReport",
    "EntityRef",
    "LabelledEvaluation",
    "MergeView",
    "PRPoint",
    "PairSignals",
    "Rejection",
]

# audit log
__all__ += [
    "AuditEntry",
    "AuditFilter",
    "UndoKind",
]

# admin unlock
__all__ += [
    "UnlockResult",
]

# deals
__all__ += [
    "DealInfo",
    "DealRecord",
]
