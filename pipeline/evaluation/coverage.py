"""How far a comparison of two settings rests on judged facts: the kind of judgment set, and the gap between two
settings' coverage.

Two kinds of judgment set, told apart by what they hold:

- **sparse** (by design): a list of the relevant facts of each query and nothing else (TAT-QA, FinanceBench, MS
  MARCO, most BEIR sets and most labelled sets a team brings). An unjudged fact is taken as not relevant, as
  trec_eval and BEIR take it. Every judgment says "relevant", so judged@k is just the share of the top k that is
  relevant: it tells nothing about how sound a comparison is, and no setting can reach a high judged@k on them.
- **pooled**: judged from the settings' own top k (this tool's pools, an LLM judge, analysts' verdicts), with as many
  "not relevant" answers as relevant ones. A setting whose top k holds facts outside the pools is scored as if
  they were not relevant (pooling bias, Buckley and Voorhees 2004): the comparison is sound only as far as the
  lead does not come from the other setting's unjudged facts.

A set is pooled when it comes from the graded sources (analysts, the judge) or when at least `NOT_RELEVANT_SHARE`
of its judgments say "not relevant" (a set frozen from verdicts, a Quepid or TREC export with zeros); otherwise it
is sparse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

JudgmentKind = Literal["sparse", "pooled"]
SPARSE: JudgmentKind = "sparse"
POOLED: JudgmentKind = "pooled"
POOLED_SOURCES = frozenset({"verdicts", "judge", "verdicts+judge"})  # grades given to pooled pairs
# a set where this share of the judgments or more says "not relevant" was judged from pools, not listed
NOT_RELEVANT_SHARE = 0.25
# on a pooled set, a setting whose judged@k exceeds the other's by more than this has a lead that may come from the
# other's unjudged facts (counted as not relevant); 0.05 is half a fact of a top 10
COVERAGE_GAP = 0.05


def judgment_kind(qrels: Mapping[str, Mapping[str, int]], source: str) -> JudgmentKind:
    """`qrels`: query id -> fact uuid -> grade, of the queries evaluated; `source`: the sweep's judgments source."""
    if source in POOLED_SOURCES:
        return POOLED
    grades = [g for judged in qrels.values() for g in judged.values()]
    if grades and sum(g < 1 for g in grades) / len(grades) >= NOT_RELEVANT_SHARE:
        return POOLED
    return SPARSE


def unjudged_pairs(tops: Iterable[tuple[str, Sequence[str]]], qrels: Mapping[str, Mapping[str, int]]) -> int:
    """How many (query, fact) pairs of these top k (query id, fact uuids) nobody judged, each pair once."""
    return len({(qid, uuid) for qid, top in tops for uuid in top if uuid not in qrels.get(qid, {})})


def kind_words(kind: JudgmentKind) -> str:
    if kind == SPARSE:
        return "sparse judgments (relevant facts listed, unjudged counted not relevant)"
    return "pooled judgments (unjudged facts counted not relevant)"
