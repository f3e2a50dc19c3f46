"""A `Graphiti` for one deal with every client passed in (any left out would become an OpenAI client).

Retrieval needs no LLM, so the LLM slot holds a client that refuses to be used.
"""

from __future__ import annotations

import os

from graphiti_core import Graphiti
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

from pipeline.api import Lab
from pipeline.api.models import LabReranker
from pipeline.errors import RetrievalLabError

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


def graphiti_for(lab: Lab, group_id: str, cross_encoder: LabReranker) -> Graphiti:
    return Graphiti(
        graph_driver=lab.backend.driver(group_id),
        llm_client=NoLLMClient(),
        embedder=lab.embedder,
        cross_encoder=cross_encoder,
    )
