"""Spot-check samples: candidate (query, fact, citation) items, disagreement signals, seeded sampling.

Pure functions, no I/O. The same drafts, size, seed and priority always give the same items in the
same order: the drafts are first sorted by a total key, then shuffled by `random.Random(seed)`, then
(stable-)sorted by the priority, and the first `size` are kept.

Priorities
- `random`: the shuffled order.
- `lowest_score`: lowest reranker score first (the raw reranker score; the fused first-stage score when
  no reranker ran). The seed only breaks ties, so two seeds may give the same sample. Items with no
  score (fact samples) cannot be ordered this way and are refused.
- `disagreement`: facts whose sources disagree first, most signals first. A fact's signals are
  `mixed_channels` (its citations come from more than one source channel: document / Q&A / chat),
  `mixed_confidence` (its citations carry different confidences) and `superseded_relative` (it
  supersedes another fact or was superseded: a recorded or inferred supersession link, or it is
  invalidated). Items with no signal follow in shuffled order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.errors import InvalidInput
from pipeline.retrieval.records import Citation

Source = Literal["query_set", "runs", "fact_sample"]
Priority = Literal["random", "lowest_score", "disagreement"]
SOURCES: dict[str, str] = {
    "query_set": "Labelled query set (retrieve top-k)",
    "runs": "Past runs",
    "fact_sample": "Random sample of facts",
}
PRIORITIES: dict[str, str] = {
    "random": "Random order",
    "lowest_score": "Lowest reranker score first",
    "disagreement": "Sources disagree first",
}
SIGNALS: dict[str, str] = {
    "mixed_channels": "cited by more than one channel",
    "mixed_confidence": "citations differ in confidence",
    "superseded_relative": "supersedes or was superseded",
}
MAX_SIZE = 500


@dataclass(frozen=True)
class ItemDraft:
    """One candidate review item: a query (may be empty), a fact it returned, one citation of that fact."""

    query_id: str  # labelled query id ("q01") for query-set items; "" otherwise
    query: str  # "" for fact samples
    run_id: int | None  # the stored run it came from (past-runs source)
    fact_uuid: str
    fact: str
    rank: int | None  # 1-based rank in the run's results; None for fact samples
    score: float | None  # raw reranker score, else fused score; None for fact samples
    superseded: bool
    signals: tuple[str, ...]  # disagreement signals of the fact (see module doc)
    citation: Citation

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """Two drafts with the same identity are the same review item (e.g. one query run twice)."""
        return (self.query_id, self.query, self.fact_uuid, self.citation.episode_uuid)

    @property
    def sort_key(self) -> tuple[str, str, int, int, str, str]:
        return (
            self.query_id,
            self.query,
            self.run_id if self.run_id is not None else -1,
            self.rank if self.rank is not None else 0,
            self.fact_uuid,
            self.citation.episode_uuid,
        )


def disagreement_signals(citations: Iterable[Citation], has_superseded_relative: bool) -> tuple[str, ...]:
    """The fact-level signals (in `SIGNALS` order) for a fact with these citations."""
    citations = list(citations)
    signals = []
    if len({c.channel for c in citations}) > 1:
        signals.append("mixed_channels")
    if len({round(c.confidence, 6) for c in citations}) > 1:
        signals.append("mixed_confidence")
    if has_superseded_relative:
        signals.append("superseded_relative")
    return tuple(signals)


def check_request(size: int, seed: int, priority: str, source: str) -> None:
    if source not in SOURCES:
        raise InvalidInput(f"Unknown spot-check source {source!r}; one of: {', '.join(SOURCES)}.")
    if priority not in PRIORITIES:
        raise InvalidInput(f"Unknown priority {priority!r}; one of: {', '.join(PRIORITIES)}.")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
        raise InvalidInput(f"The sample size must be a whole number from 1 to {MAX_SIZE}; got {size!r}.")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InvalidInput(f"The seed must be a whole number from 0 to 2^63-1; got {seed!r}.")
    if priority == "lowest_score" and source == "fact_sample":
        raise InvalidInput("A fact sample has no reranker scores: pick another priority or another source.")


def sample_items(drafts: Sequence[ItemDraft], size: int, seed: int, priority: Priority) -> list[ItemDraft]:
    """Up to `size` distinct drafts, reproducibly chosen and ordered (see module doc)."""
    if priority not in PRIORITIES:
        raise InvalidInput(f"Unknown priority {priority!r}; one of: {', '.join(PRIORITIES)}.")
    pool: list[ItemDraft] = []
    seen: set[tuple[str, str, str, str]] = set()
    for draft in sorted(drafts, key=lambda d: d.sort_key):
        if draft.identity not in seen:  # keep the first (earliest run, best rank) of duplicates
            seen.add(draft.identity)
            pool.append(draft)
    rng = random.Random(seed)
    rng.shuffle(pool)
    if priority == "lowest_score":
        if any(d.score is None for d in pool):
            raise InvalidInput("Some items have no reranker score: pick another priority.")
        pool.sort(key=lambda d: d.score if d.score is not None else 0.0)
    elif priority == "disagreement":
        pool.sort(key=lambda d: -len(d.signals))
    return pool[:size]
