"""What the loss X-ray returns: for each judged-relevant fact under a setting, the first stage where it was lost
(or that it was kept), and per setting over a query set, how many were lost where, examples, and what-ifs."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.retrieval.setting import Setting

# the stages in the order a fact meets them on its way to the top k; the last is where the kept ones end
LOSS_STAGES = ("gone", "filtered", "unfound", "floor", "fusion", "min_score", "cut_by_n", "reranked_out", "kept")
LOSS_LABELS = {
    "gone": "no longer in the graph",
    "filtered": "filtered out by date (superseded, or not valid then)",
    "unfound": "in no method's list",
    "floor": "under the cosine floor",
    "fusion": "dropped by the fusion",
    "min_score": "under reranker_min_score",
    "cut_by_n": "cut by N",
    "reranked_out": "ranked below k (after the reranker, if any)",
    "kept": "kept in the top k",
}
EXAMPLES = 3  # example queries kept per stage and setting


@dataclass(frozen=True)
class FactLoss:
    uuid: str
    fact: str  # "" for a fact no longer in the graph
    grade: int
    stage: str  # one of LOSS_STAGES
    detail: str  # one line of evidence: ranks, scores, dates
    method_ranks: dict[str, int]  # at the setting's depth (2 x N), the methods that had it
    fused_rank: int | None  # in the fused order before the cut at N
    rank: int | None  # after reranking, when it reached the pool
    twin: str | None = None  # a fact with the same text ranked above it (graphiti's cross-encoder collapses them)


@dataclass(frozen=True)
class QueryLosses:
    query_id: str
    text: str
    setting: str  # the setting's key
    facts: tuple[FactLoss, ...]

    def count(self, stage: str) -> int:
        return sum(1 for f in self.facts if f.stage == stage)


@dataclass(frozen=True)
class WhatIf:
    label: str  # "N=100", "no cosine floor (now 0.6)"
    reached: int  # judged-relevant facts that reach the reranker (in the pool) under the setting
    would_reach: int  # ... under the variant

    def sentence(self, relevant: int) -> str:
        gain = self.would_reach - self.reached
        share = f" ({gain / relevant:+.1%} of the {relevant} relevant)" if relevant else ""
        if gain == 0:
            return f"{self.label}: no more relevant facts would reach the reranker ({self.reached} do now)."
        more = "more" if gain > 0 else "fewer"
        return (
            f"{self.label}: {abs(gain)} {more} relevant facts would reach the reranker, {self.reached} -> "
            f"{self.would_reach}{share}."
        )


@dataclass(frozen=True)
class SettingLosses:
    setting: str  # the setting's key
    label: str  # how pages and the CLI name it
    relevant: int  # judged-relevant facts over the queries
    counts: dict[str, int]  # stage -> facts, every stage present; they add up to `relevant`
    examples: dict[str, tuple[tuple[str, str], ...]]  # stage -> (query id, query text), queries that lost one there
    what_ifs: tuple[WhatIf, ...]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["what_ifs"] = [{**asdict(w), "sentence": w.sentence(self.relevant)} for w in self.what_ifs]
        return data


@dataclass(frozen=True)
class LossReport:
    group_id: str
    source: str  # where the judgments came from (`labelled`, `set:NAME`, ...)
    set_label: str
    queries: int  # judged queries with at least one relevant fact
    include_superseded: bool
    as_of: str | None
    settings: tuple[SettingLosses, ...]
    per_query: tuple[QueryLosses, ...]  # every query under every setting

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = [s.to_dict() for s in self.settings]
        data["stages"] = dict(LOSS_LABELS)
        return data


@dataclass(frozen=True)
class SweptReport:
    """The X-ray of a saved sweep (`lab.why.experiment_report`): the settings it chose, in the report's order, and
    one line for each thing it left out."""

    experiment: int
    report: LossReport
    settings: tuple[Setting, ...]
    notes: tuple[str, ...]
