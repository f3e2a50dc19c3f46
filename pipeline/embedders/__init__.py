"""Embedders: the offline local model by default, Voyage when configured."""

from __future__ import annotations

from functools import lru_cache

from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.settings import VOYAGE_EMBEDDER, Settings

__all__ = ["EmbedderInfo", "LabEmbedder", "make_embedder"]


@lru_cache(maxsize=1)
def _local() -> LabEmbedder:
    from pipeline.embedders.local_minilm import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder()


def make_embedder(settings: Settings) -> LabEmbedder:
    """The configured embedder (the local model is loaded once per process)."""
    if settings.embedder_name == VOYAGE_EMBEDDER:
        from pipeline.embedders.voyage import VoyageEmbedder

        return VoyageEmbedder(settings)
    return _local()
