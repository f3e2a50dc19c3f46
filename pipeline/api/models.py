"""The values the application layer (`pipeline.api`) hands out and takes: records, read models and the fixed
vocabularies a page draws (verdicts, grades, sampling choices). Re-exported from the features that define them, so a
page names one module whatever feature a value comes from."""

from pipeline.ingest.beir import ImportResult
from pipeline.ingest.demo import DATA_DIR as DEMO_DATA_DIR
from pipeline.ingest.demo.seed import DEMO_GROUP, SeedResult
from pipeline.ingest.fields import DATE_RULE
from pipeline.ingest.loading import WRITE_BATCH, DealContent, EntitySpec, EpisodeSpec, FactSpec
from pipeline.ingest.progress import ProgressLines, Report, Step
from pipeline.ingest.rebuild import Rebuild
from pipeline.judge.client import JudgeConfig
from pipeline.judge.prompt import PROMPT_VERSION
from pipeline.pools.judging import PoolJudged
from pipeline.pools.records import Pool, PoolProgress, PoolSpec
from pipeline.query_sets.export import ExportReport
from pipeline.query_sets.history import HISTORY_LIMIT, HISTORY_SET_NAME
from pipeline.query_sets.importer import ImportReport
from pipeline.query_sets.logs import DEDUPED_FORMATS, SetRead
from pipeline.query_sets.records import LabelledQuery, QuerySet, SaveResult, SetInfo
from pipeline.spotcheck.agreement import Agreement
from pipeline.spotcheck.highlight import SpanMatch
from pipeline.spotcheck.queue import REPLAY_S
from pipeline.spotcheck.rates import Rate
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec, RelevanceRecord
from pipeline.spotcheck.sampling import MAX_SIZE, PRIORITIES, SIGNALS, SOURCES
from pipeline.spotcheck.verdicts import QUESTIONS, RELEVANCE, RELEVANCE_MEANING, VERDICTS, Disagreement, RateRow
from pipeline.warm_up import WarmUp

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
# One list a feature: ruff keeps each sorted (RUF022), so the sections stay apart.
__all__ += [
    # query sets
    "DEDUPED_FORMATS",
    "HISTORY_LIMIT",
    "HISTORY_SET_NAME",
    "ExportReport",
    "ImportReport",
    "LabelledQuery",
    "QuerySet",
    "SaveResult",
    "SetInfo",
    "SetRead",
]
__all__ += [
    # judging pools
    "Pool",
    "PoolJudged",
    "PoolProgress",
    "PoolSpec",
]
__all__ += [
    # LLM judge
    "PROMPT_VERSION",
    "JudgeConfig",
]
__all__ += [
    # loading deals (the demo deal, BEIR folders, the loaders' path)
    "DATE_RULE",
    "DEMO_DATA_DIR",
    "DEMO_GROUP",
    "WRITE_BATCH",
    "DealContent",
    "EntitySpec",
    "EpisodeSpec",
    "FactSpec",
    "ImportResult",
    "ProgressLines",
    "Rebuild",
    "Report",
    "SeedResult",
    "Step",
]
__all__ += [
    # warm-up (Lab.warm_up)
    "WarmUp",
]
