"""What every embedder of ours adds to graphiti's `EmbedderClient`: an identity and a query/document split.

Graphiti calls `create([text])` only to embed a search query, so `create` embeds queries; our loaders
embed facts, names and passages through `create_batch` / `embed_documents`. Voyage uses the split
(`input_type`); the local model ignores it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass

from graphiti_core.embedder.client import EmbedderClient


@dataclass(frozen=True)
class EmbedderInfo:
    model: str
    dim: int

    def describe(self) -> str:
        return f"{self.model} ({self.dim}-d)"


class LabEmbedder(EmbedderClient):
    info: EmbedderInfo

    @abstractmethod
    async def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    @abstractmethod
    async def embed_query(self, text: str) -> list[float]: ...

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        if isinstance(input_data, str):
            return await self.embed_query(input_data)
        if isinstance(input_data, list) and input_data and isinstance(input_data[0], str):
            return await self.embed_query(input_data[0])
        raise TypeError("only text input is supported")

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return await self.embed_documents(input_data_list)
