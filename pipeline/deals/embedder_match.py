"""Does the configured embedder fit a deal's stored vectors? If not, the one line that says what to set.

A deal's vectors were made by some embedder; a query embedded by another one (another dimension, or
another model of the same dimension) would rank nonsense, so such a query is refused. The refusal names
the setting that would work: from the stored dimension (a small table of well-known models), or from the
model our store recorded when we built the deal.
"""

from __future__ import annotations

from pipeline.deals.records import DealInfo
from pipeline.embedders.base import EmbedderInfo
from pipeline.settings import LOCAL_EMBEDDER

SETTING = "RETRIEVAL_LAB_EMBEDDER"

# stored dimension -> a RETRIEVAL_LAB_EMBEDDER value that makes vectors of that size
SUGGESTED_BY_DIM: dict[int, str] = {
    384: "local",
    1024: "voyage:voyage-finance-2",
    1536: "openai:text-embedding-3-small",
    3072: "openai:text-embedding-3-large",
}
# the dimension an OpenAI model makes without a `:DIM` suffix
OPENAI_DEFAULT_DIM = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


def setting_for_dim(dim: int) -> str:
    """A RETRIEVAL_LAB_EMBEDDER value for `dim`-d vectors, e.g. 1536 -> "openai:text-embedding-3-small"."""
    return SUGGESTED_BY_DIM.get(dim, f"openai:MODEL:{dim}")


def setting_for_model(model: str, dim: int | None) -> str:
    """The RETRIEVAL_LAB_EMBEDDER value that configures `model` (as our store recorded it)."""
    if model == LOCAL_EMBEDDER:
        return "local"
    if ":" in model:  # already written as a setting
        return model
    if model.startswith("voyage"):
        return f"voyage:{model}"
    if dim is None or OPENAI_DEFAULT_DIM.get(model) == dim:
        return f"openai:{model}"
    return f"openai:{model}:{dim}"


def embedder_mismatch(deal: DealInfo, embedder: EmbedderInfo) -> str | None:
    """None when `embedder` fits the deal, else one line naming the setting to use."""
    dim = deal.embedder_dim
    if dim is not None and dim != embedder.dim:
        return (
            f"Deal {deal.group_id!r} holds {dim}-d vectors; the configured embedder is {embedder.describe()}. "
            f"Set {SETTING}={setting_for_dim(dim)} ({dim}-d) or another {dim}-d model."
        )
    if deal.embedder_model is not None and deal.embedder_model != embedder.model:
        return (
            f"Deal {deal.group_id!r} was built with {deal.embedder_label}; the configured embedder is "
            f"{embedder.describe()}. Set {SETTING}={setting_for_model(deal.embedder_model, dim)}."
        )
    return None


def match_label(deal: DealInfo, embedder: EmbedderInfo) -> str:
    """ "yes", or "no: RETRIEVAL_LAB_EMBEDDER=<value>" (what `deals` and the sidebar show)."""
    if embedder_mismatch(deal, embedder) is None:
        return "yes"
    if deal.embedder_dim is not None and deal.embedder_dim != embedder.dim:
        return f"no: {SETTING}={setting_for_dim(deal.embedder_dim)}"
    return f"no: {SETTING}={setting_for_model(deal.embedder_model or '', deal.embedder_dim)}"
