"""The application layer: all that the pages (`dashboard/`, `app_pages/`), the CLI (`pipeline/cli/`) and the
benchmarks import from the engine, with `pipeline.api.models` (the values it hands out) and `pipeline.errors` (what
it raises, each a line a user can act on).

`Lab` opens the graph and the store; each feature is a handle on it (`lab.spotcheck`, ...), whose calls take plain
values and return the read models of `pipeline.api.models`, so no page imports a repo module or calls a driver.
The handles live in their features (`pipeline/<feature>/api.py`, beside the feature's logic and its SQL). The
architecture test holds the front ends to these three modules (`tests/unit/test_architecture.py`).

A front end with no Lab in reach uses the functions here: the admin unlock gate and its signed cookie (before any
Lab), the restore (run with no Lab open), the scoped store and the store-only handles (`on_store`) of the pages
that read the store while the graph backend is down, and two pure helpers the pages call on records alone
(`describe_audit_entry`, `supersession_chains`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.api.exports import lazy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pipeline.audit.describe import Described
    from pipeline.audit.records import AuditEntry
    from pipeline.temporal.records import FactRow, Link

# what a front end calls before it has a Lab, or needs none for: defining module -> functions
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "pipeline.lab": ("Lab", "StoreFeatures", "on_store"),  # on_store: the pages that work with the graph down
    "pipeline.rerankers": ("has_key", "make_reranker", "reranker_choices", "traits"),  # the reranker table
    "pipeline.rerankers.specs": ("colour",),
    "pipeline.settings": ("get_settings", "settings_error_line"),
    "pipeline.store": ("open_store", "store_path"),
    "pipeline.store.integrity": ("damaged_store", "store_absent"),
    "pipeline.deals.access": ("scoped_store",),
    "pipeline.admin.token": ("sign", "verify"),  # the admin gate, before a Lab is open
    "pipeline.admin.unlock": ("secrets_match", "try_unlock"),
    "pipeline.backup.restore": ("restore_backup",),  # no Lab may be open on what it replaces
    "pipeline.text": ("clip", "one_line"),
    "pipeline.numbers": ("decimal_number", "whole_number"),
    "pipeline.csv_cells": ("safe_cell",),
    "pipeline.utc": ("day", "now_iso", "stamp", "utc_now"),
    "pipeline.figures": ("is_money_or_share",),
    "pipeline.graph.embedded.redis_process": ("server_pids", "time_start"),  # the embedded server's benchmarks
    "pipeline.query_sets": ("load_query_set",),  # a benchmark reading a store before (or without) a Lab
    "pipeline.ingest.fields": ("date_field",),  # the CLI's date arguments
    "pipeline.ingest.loading": ("stable_uuid",),  # synthetic data keyed as the loaders key it
}
_functions, __getattr__ = lazy(__name__, FUNCTIONS)
__all__ = ["describe_audit_entry", "supersession_chains", *_functions]


def describe_audit_entry(entry: AuditEntry) -> Described:
    """What an audit entry did, in words, and how it is undone (if it can be)."""
    from pipeline.audit.describe import describe

    return describe(entry)


def supersession_chains(facts: Sequence[FactRow], links: Sequence[Link]) -> dict[str, str]:
    """fact uuid -> the id of its supersession chain."""
    from pipeline.temporal.supersession import chains

    return chains(facts, links)
