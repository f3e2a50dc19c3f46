"""graphiti's own search, stock, for one deal: what the first stage is measured and checked against (benchmarks,
parity tests). A `Graphiti` with every client passed in (any left out would become an OpenAI client); retrieval
needs no LLM, so the LLM slot holds a client that refuses to be used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphiti_core import Graphiti
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

from pipeline.errors import RetrievalLabError
from pipeline.rerankers.base import LabReranker, RerankOutcome
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.recipes import Recipe

if TYPE_CHECKING:
    from pipeline.lab import Lab

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")


class NoLLMClient(LLMClient):
    """Retrieval Lab never asks an LLM; anything that tries gets a clear error instead of a network call."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="unused", model="none"))

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
    ) -> dict[str, object]:
        raise RetrievalLabError("Retrieval Lab runs without an LLM; this graphiti operation needs one.")


class NoCrossEncoder(LabReranker):
    """The stock search's cross-encoder slot: a fusion recipe never calls it."""

    name = label = description = "unused"

    async def score(self, query: str, passages: Sequence[str], vectors: Any = None) -> RerankOutcome:
        raise RetrievalLabError("A first-stage recipe does not rerank; this stock search asked its cross-encoder.")


def graphiti_for(lab: Lab, group_id: str, cross_encoder: LabReranker) -> Graphiti:
    return Graphiti(
        graph_driver=lab.backend.driver(group_id),
        llm_client=NoLLMClient(),
        embedder=lab.embedder,
        cross_encoder=cross_encoder,
    )


async def stock_search_ms(graphiti: Graphiti, query: str, group_id: str, recipe: Recipe, candidates: int) -> float:
    """One stock `search_()` of current facts with the recipe's config at N: its wall time in ms."""
    started = time.perf_counter()
    await graphiti.search_(
        query,
        recipe.search_config(candidates),
        group_ids=[group_id],
        center_node_uuid=recipe.center,
        search_filter=temporal_filter(False, None),
    )
    return (time.perf_counter() - started) * 1000
