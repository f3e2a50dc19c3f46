"""What every embedder of ours adds to graphiti's `EmbedderClient`: an identity and a query/document split.

Graphiti calls `create([text])` only to embed a search query, so `create` embeds queries; our loaders
embed facts, names and passages through `create_batch` / `embed_documents`. Voyage uses the split
(`input_type`); the local model and OpenAI ignore it.

`info.model` is the bare model name a deal records ("voyage-finance-2"); `info.provider` only changes how it
is shown ("voyage:voyage-finance-2 (1024-d)"), not what it equals: two infos match on model and dimension.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field

from graphiti_core.embedder.client import EmbedderClient

from pipeline.errors import EmbedderUnavailable

HOSTED = ("voyage", "openai")


@dataclass(frozen=True)
class EmbedderInfo:
    model: str
    dim: int
    provider: str = field(default="", compare=False)  # "local", "voyage", "openai"; "" when unknown

    def describe(self) -> str:
        name = f"{self.provider}:{self.model}" if self.provider in HOSTED else self.model
        return f"{name} ({self.dim}-d)"


class LabEmbedder(EmbedderClient):
    info: EmbedderInfo

    @abstractmethod
    async def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    @abstractmethod
    async def embed_query(self, text: str) -> list[float]: ...

    def forget_queries(self) -> None:
        """Drop any query vectors kept for reuse (benchmarks time every query cold); most embedders keep none."""

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        if isinstance(input_data, str):
            return await self.embed_query(input_data)
        if isinstance(input_data, list) and input_data and isinstance(input_data[0], str):
            return await self.embed_query(input_data[0])
        raise TypeError("only text input is supported")

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return await self.embed_documents(input_data_list)

    def check_vectors(self, vectors: list[list[float]], count: int) -> list[list[float]]:
        """`vectors` if there is one per text, each of `info.dim` components; else EmbedderUnavailable."""
        who = self.info.describe()
        if len(vectors) != count:
            raise EmbedderUnavailable(f"Embedder {who} returned {len(vectors)} vectors for {count} texts.")
        sizes = sorted({len(v) for v in vectors})
        if sizes and sizes != [self.info.dim]:
            raise EmbedderUnavailable(
                f"Embedder {who} returned {'/'.join(map(str, sizes))}-d vectors, not {self.info.dim}-d: "
                "give the model's own size as :DIM in RETRIEVAL_LAB_EMBEDDER."
            )
        return vectors
