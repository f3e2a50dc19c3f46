"""The one place that touches graphiti-core's private (`_`-prefixed) API.

graphiti-core is pinned (pyproject.toml); when an upgrade renames or changes one of these, this module is the
only thing to mend. Everything else uses graphiti's public models, search utilities and client classes.
"""

from __future__ import annotations

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.utils.maintenance.dedup_helpers import (
    _cached_shingles,
    _jaccard_similarity,
    _lsh_bands,
    _minhash_signature,
    _normalize_name_for_fuzzy,
    _normalize_string_exact,
)

# graphiti's deterministic entity-resolution helpers, under public names
normalize_exact = _normalize_string_exact  # lowercase, collapsed whitespace: graphiti's exact-match key
normalize_fuzzy = _normalize_name_for_fuzzy  # alphanumerics only: the form graphiti shingles
shingles = _cached_shingles  # 3-character shingles of the fuzzy form
jaccard = _jaccard_similarity
minhash_signature = _minhash_signature
lsh_bands = _lsh_bands


def skip_index_creation(driver: GraphDriver) -> GraphDriver:
    """graphiti schedules index creation on every new driver; we build indexes explicitly when a deal is
    written, so reading a deal never creates a graph or races a shutdown."""
    task = getattr(driver, "_init_task", None)
    if task is not None:
        task.cancel()
    return driver
