"""Embedders: the offline local model by default; Voyage or OpenAI (or a compatible server) when
`RETRIEVAL_LAB_EMBEDDER` names one (`pipeline/embedder_spec.py` reads it)."""

from __future__ import annotations

from functools import lru_cache

from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.embedders.local_minilm import LocalMiniLMEmbedder
from pipeline.embedders.openai import OpenAIEmbedder
from pipeline.settings import Settings

__all__ = ["EmbedderInfo", "LabEmbedder", "make_embedder"]


@lru_cache(maxsize=1)
def _local() -> LabEmbedder:
    return LocalMiniLMEmbedder()


def make_embedder(settings: Settings) -> LabEmbedder:
    """The configured embedder (the local model is loaded once per process). Hosted ones connect on
    first use, so a missing key is one line then, not a failure to start."""
    spec = settings.embedder_spec
    if spec.provider == "voyage":
        from pipeline.embedders.voyage import VoyageEmbedder  # on first use: the voyageai SDK takes 0.6 s to load

        return VoyageEmbedder(settings, spec)
    if spec.provider == "openai":
        return OpenAIEmbedder(settings, spec)
    return _local()
