"""OpenAI embeddings (or any server that speaks OpenAI's embeddings API, at OPENAI_BASE_URL) through
graphiti's own `OpenAIEmbedder`, so vectors are made exactly as graphiti's ingestion makes them.

graphiti's client sends no `dimensions`: it asks for the model's full vector and keeps its first
`embedding_dim` components (`embedding[:embedding_dim]`). With `openai:text-embedding-3-small:512` we do the
same, which is what a graph written by graphiti with `EMBEDDING_DIM=512` holds. The kept components are not
re-normalised; cosine search, the only use graphiti makes of them, does not mind.

We hand graphiti's client our own `AsyncOpenAI`, so that every request has a timeout (the SDK's default is
600 s) and bounded retries (the SDK's own, on 429, 5xx and lost connections). It is built on first use:
without OPENAI_API_KEY that first use is one line naming the variable, not a traceback at start-up. Every
failure is one line (EmbedderUnavailable). OpenAI has no query/document distinction: both go the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import openai
from graphiti_core.embedder.openai import OpenAIEmbedder as GraphitiOpenAIEmbedder
from graphiti_core.embedder.openai import OpenAIEmbedderConfig

from pipeline.embedder_spec import EmbedderSpec
from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.errors import EmbedderUnavailable
from pipeline.openai_errors import openai_failure
from pipeline.settings import Settings
from pipeline.text import one_line

BATCH_SIZE = 256  # texts per request (the API takes up to 2,048, and at most 300k tokens in all)
REASON_CHARS = 160

T = TypeVar("T")


class OpenAIEmbedder(LabEmbedder):
    def __init__(self, settings: Settings, spec: EmbedderSpec | None = None) -> None:
        spec = spec or settings.embedder_spec
        if spec.provider != "openai":
            raise ValueError(f"not an OpenAI embedder: {spec}")
        self.info = EmbedderInfo(spec.model, spec.dim, "openai")
        self._settings = settings
        self._graphiti: GraphitiOpenAIEmbedder | None = None

    @property
    def _where(self) -> str:
        return self._settings.openai_base_url or "the OpenAI API"

    def _client(self) -> GraphitiOpenAIEmbedder:
        if self._graphiti is None:
            key = self._settings.openai_api_key.get_secret_value().strip() if self._settings.openai_api_key else ""
            if not key:
                raise EmbedderUnavailable(
                    f"The embedder {self.info.describe()} needs an API key: set OPENAI_API_KEY "
                    "(for a compatible server at OPENAI_BASE_URL that wants none, any value)."
                )
            client = openai.AsyncOpenAI(
                api_key=key,
                base_url=self._settings.openai_base_url,
                timeout=self._settings.openai_timeout_s,
                max_retries=self._settings.openai_max_retries,
            )
            config = OpenAIEmbedderConfig(
                api_key=key,
                base_url=self._settings.openai_base_url,
                embedding_model=self.info.model,
                embedding_dim=self.info.dim,
            )
            self._graphiti = GraphitiOpenAIEmbedder(config, client=client)
        return self._graphiti

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            batch = [t if t.strip() else " " for t in texts[start : start + BATCH_SIZE]]  # the API refuses ""
            vectors.extend(await self._call(self._client().create_batch, batch))
        return self.check_vectors(vectors, len(texts))

    async def embed_query(self, text: str) -> list[float]:
        vector = await self._call(self._client().create, [text if text.strip() else " "])
        return self.check_vectors([vector], 1)[0]

    async def _call(self, method: Callable[[list[str]], Awaitable[T]], texts: list[str]) -> T:
        try:
            return await method(texts)
        except openai.OpenAIError as exc:
            raise EmbedderUnavailable(f"Embedder {self.info.describe()}: {self._reason(exc)}") from None
        except (AttributeError, KeyError, IndexError, TypeError, ValueError):
            # the SDK builds its objects from the JSON: a body of the wrong shape fails here
            raise EmbedderUnavailable(
                f"Embedder {self.info.describe()}: malformed response from {self._where}."
            ) from None

    def _reason(self, exc: openai.OpenAIError) -> str:
        where, retries = self._where, self._settings.openai_max_retries
        after = f" (after {retries} retries)" if retries else ""
        timeout_s, model = self._settings.openai_timeout_s, self.info.model
        described = openai_failure(exc, where, model, "RETRIEVAL_LAB_EMBEDDER", timeout_s, REASON_CHARS, after)
        if described:
            return f"{described}."
        return f"{one_line(exc, REASON_CHARS)} ({type(exc).__name__})"
