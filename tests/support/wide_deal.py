"""A deal holding 1536-d vectors (as graphiti's default OpenAI embedder makes them), written by our loader with
a stand-in embedder and no bookkeeping of ours: like another team's graph. Session fixture `wide_deal`
(import it into a test module: `from tests.support.wide_deal import wide_deal`)."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

import pytest

from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.ingest.loading import DealContent, EntitySpec, EpisodeSpec, FactSpec, write_deal
from pipeline.lab import Lab

WIDE = "openai_1536"  # a deal written with 1536-d vectors (as graphiti's default OpenAI embedder makes)


class HashEmbedder(LabEmbedder):
    """Stands in for a 1536-d model we cannot run here: unit vectors from a hash of the text."""

    def __init__(self, model: str, dim: int) -> None:
        self.info = EmbedderInfo(model, dim)

    def _vector(self, text: str) -> list[float]:
        seed = hashlib.sha256(text.encode()).digest()
        raw = [seed[i % len(seed)] - 127.5 + i % 7 for i in range(self.info.dim)]
        norm = math.sqrt(sum(v * v for v in raw))
        return [v / norm for v in raw]

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    async def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def tiny_deal(fact: str) -> DealContent:
    """Two entities, one fact, the episode it cites."""
    when = datetime(2026, 1, 12, tzinfo=UTC)
    return DealContent(
        episodes=[EpisodeSpec("p1", "memo p1", fact, "document", when, "memo", "memo.pdf", page=1)],
        entities=[EntitySpec("a", "Northwind Traders"), EntitySpec("b", "FY2025 revenue")],
        facts=[FactSpec("f1", "a", "b", "REPORTED_REVENUE", fact, ("p1",), when)],
    )


@pytest.fixture(scope="session")
async def wide_deal(lab: Lab) -> str:
    """A group holding 1536-d vectors, written without any bookkeeping of ours (like another team's graph)."""
    await lab.backend.delete_graph(WIDE)
    fact = "Northwind Traders reported FY2025 revenue of $812 million"
    await write_deal(lab.backend, WIDE, tiny_deal(fact), HashEmbedder("text-embedding-3-small", 1536))
    return WIDE
