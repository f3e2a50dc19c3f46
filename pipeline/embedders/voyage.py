"""Voyage `voyage-finance-2` (1024-d) through the official SDK, with `input_type` query vs document."""

from __future__ import annotations

import voyageai

from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.settings import VOYAGE_EMBEDDER, Settings

BATCH_SIZE = 128  # the API's limit on texts per request


def voyage_client(settings: Settings) -> voyageai.AsyncClient:
    """The async SDK client; always with a timeout (the SDK default would wait 600 s)."""
    key = settings.voyage_api_key.get_secret_value() if settings.voyage_api_key else None
    return voyageai.AsyncClient(
        api_key=key,
        max_retries=0,  # retries are ours (tenacity), so that they are bounded and visible
        timeout=settings.voyage_timeout_s,
        base_url=settings.voyage_base_url,
    )


class VoyageEmbedder(LabEmbedder):
    info = EmbedderInfo(model=VOYAGE_EMBEDDER, dim=1024)

    def __init__(self, settings: Settings) -> None:
        self._client = voyage_client(settings)

    async def _embed(self, texts: list[str], input_type: str) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            result = await self._client.embed(
                texts[start : start + BATCH_SIZE], model=self.info.model, input_type=input_type
            )
            vectors.extend([list(map(float, v)) for v in result.embeddings])
        return vectors

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return await self._embed(texts, "document")

    async def embed_query(self, text: str) -> list[float]:
        return (await self._embed([text], "query"))[0]
