"""Does the deal probably hold no good answer to this query? The rule behind Compare's low-confidence banner.

Rerankers' scores cannot say it: the local re-scorer and the displayed 0-1 scores are min-max over the pool,
so the best candidate of a nonsense query still scores "norm 1.00". What can is absolute: the cosine between
the query and the closest fact of the deal (the cosine list's rank 1, from its stored embedding). A recipe whose
cosine floor left no cosine hit (graphiti's 0.6 floor leaves none for a nonsense query) or that runs no cosine
search has no such list, so the closest facts are ranked by cosine alone, floorless, under the run's date filter.

Measured with the local embedder (all-MiniLM-L6-v2), N=50, the best cosine was
- 0.374-0.898 (median 0.63) on the demo deal's 54 labelled queries, 0.324-0.930 (median 0.71) on all 1,663
  TAT-QA test queries;
- 0.089-0.287 (demo) and 0.192-0.329 (TAT-QA) on 12 off-topic queries ("purple elephant trampoline", "cat
  videos", "tallest mountain on mars", ...).
A floor of 0.35 flags every off-topic query, none of the demo's labelled queries and 2 of TAT-QA's 1,663
(`python -m benchmarks low-confidence --group G [--split test]` measures it on any deal).

Another embedder's cosines live on another scale, so there the rule falls back to what needs no calibration:
no candidate was found by BM25 and BM25 and cosine share nothing in their top 10 (flags 11 of the 12 off-topic
queries on the demo deal, 4 of 12 on TAT-QA, no labelled query on either).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from pipeline.graph.dialects.registry import for_driver
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.recipes import NEAREST
from pipeline.retrieval.records import Candidate, RetrievalRun
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import Setting
from pipeline.settings import LOCAL_EMBEDDER

if TYPE_CHECKING:
    from pipeline.lab import Lab

COSINE_FLOOR = {LOCAL_EMBEDDER: 0.35}  # embedder model -> best cosine below which the deal has no good answer
AGREEMENT_DEPTH = 10


@dataclass(frozen=True)
class Confidence:
    low: bool
    best_cosine: float | None  # None: no stored embedding to measure it with
    floor: float | None  # the calibrated floor for this embedder, if any
    bm25_hits: int  # candidates BM25 found
    agreement: int  # facts in both BM25's and cosine's top AGREEMENT_DEPTH

    @property
    def reason(self) -> str:
        if self.best_cosine is not None and self.floor is not None:
            return (
                f"the closest fact of the deal has cosine {self.best_cosine:.2f} to the query "
                f"(below {self.floor:.2f}, the floor measured on the demo deal's and TAT-QA's labelled queries)"
            )
        return (
            f"BM25 found {self.bm25_hits} of the candidates and BM25 and cosine share "
            f"{self.agreement} of their top {AGREEMENT_DEPTH}"
        )


def agreement(candidates: tuple[Candidate, ...], depth: int = AGREEMENT_DEPTH) -> int:
    """How many candidates both BM25 and cosine ranked within `depth`."""
    return sum(
        1
        for c in candidates
        if (c.method_ranks.get("bm25") or depth + 1) <= depth and (c.method_ranks.get("cosine") or depth + 1) <= depth
    )


def judge(best_cosine: float | None, floor: float | None, bm25_hits: int, agreed: int) -> Confidence:
    """The rule itself, on measured signals."""
    low = best_cosine < floor if best_cosine is not None and floor is not None else bm25_hits == 0 and agreed == 0
    return Confidence(low, best_cosine, floor, bm25_hits, agreed)


async def assess(lab: Lab, run: RetrievalRun) -> Confidence:
    """The rule applied to one run's first stage."""
    candidates = run.candidates
    bm25_hits = sum(1 for c in candidates if c.method_ranks.get("bm25"))
    agreed = agreement(candidates)
    floor = COSINE_FLOOR.get(lab.embedder.info.model)
    best = await best_cosine(lab, run) if floor is not None else None
    return judge(best, floor, bm25_hits, agreed)


async def best_cosine(lab: Lab, run: RetrievalRun) -> float | None:
    """Cosine between the query and the deal's closest few facts (stored embeddings); their maximum."""
    driver = lab.backend.driver(run.group_id)
    dialect = for_driver(driver)
    vector = await lab.embedder.embed_query(run.query)
    top = [c.uuid for c in run.candidates if (c.method_ranks.get("cosine") or 99) <= 3]
    if not top:
        as_of = datetime.fromisoformat(run.as_of) if run.as_of else None
        nearest = Setting(NEAREST, 3, "none", 3)
        hooks = RankHooks(cite=False)
        (found,) = await rank(lab, run.query, run.group_id, [nearest], run.include_superseded, as_of, hooks=hooks)
        top = [c.uuid for c in found.candidates]
    stored = await dialect.fact_vectors(driver, top) if top else {}
    if not stored:
        return None
    query = np.asarray(vector, dtype=np.float64)
    matrix = np.asarray(list(stored.values()), dtype=np.float64)
    if matrix.shape[1] != query.shape[0]:
        return None
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    return float(np.max(matrix @ query / np.clip(norms, 1e-12, None)))
