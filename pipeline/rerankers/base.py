"""The reranker contract: graphiti's `CrossEncoderClient`, plus scores aligned with the input.

Graphiti's `rank()` returns (passage, score) best first and keys by text, so identical facts collapse;
the pipeline calls `score()` instead, which keeps one score per candidate in input order and reports
tokens used. `rank()` is kept so any of ours can be handed to graphiti as its cross encoder.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from graphiti_core.cross_encoder.client import CrossEncoderClient

from pipeline.errors import RetrievalLabError
from pipeline.rerankers.specs import spec, traits


class RerankerFailed(RetrievalLabError):
    """The reranker could not score; the message says why (the pipeline falls back to first-stage order)."""


@dataclass(frozen=True)
class RerankOutcome:
    scores: tuple[float, ...]  # one per passage, in input order; higher is better
    tokens: int = 0  # billed tokens (0 for local rerankers)
    searches: int = 0  # billed search units (Cohere bills per search, not per token)
    model: str = ""


class LabReranker(CrossEncoderClient):
    name: str  # the id users pick ("local", "voyage", ...): its row in the table (specs.py)
    model: str = ""  # the model it runs ("rerank-2.5"), recorded with every run

    @property
    def label(self) -> str:
        """What it is called, from its row: 'Voyage rerank-2.5' for one with a model (the pickers' label)."""
        row = spec(self.name)
        return row.label_for(self.model) if row else self.name

    @property
    def description(self) -> str:
        """What it is, from its row."""
        row = spec(self.name)
        return row.note if row else ""

    @property
    def uses_vectors(self) -> bool:
        """True: the pipeline passes the candidates' stored fact embeddings (a trait in the table)."""
        return traits(self.name).uses_vectors

    @abstractmethod
    async def score(
        self, query: str, passages: Sequence[str], vectors: Sequence[Sequence[float]] | None = None
    ) -> RerankOutcome:
        """Score every passage. `vectors` are the passages' stored embeddings, when the caller has them."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        outcome = await self.score(query, passages)
        return sorted(zip(passages, outcome.scores, strict=True), key=lambda p: p[1], reverse=True)
