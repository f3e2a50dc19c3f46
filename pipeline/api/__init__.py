"""The application layer: all that the pages (`dashboard/`, `app_pages/`), the CLI (`pipeline/cli/`) and the
benchmarks import from the engine, with `pipeline.api.models` (the values it hands out) and `pipeline.errors` (what
it raises, each a line a user can act on).

`Lab` opens the graph and the store; each feature is a handle on it (`lab.spotcheck`, ...), whose calls take plain
values and return the read models of `pipeline.api.models`, so no page holds a store, a repo module or a driver.
The handles live in their features (`pipeline/<feature>/api.py`, beside the feature's logic and its SQL).

Features still imported directly by a front end move behind their handle one at a time; the architecture test
holds the count of engine modules the front ends import (`tests/unit/test_architecture.py`) and only lowers it.

A front end with no Lab in reach uses the functions here: the admin unlock gate and its signed cookie (before any
Lab), the restore (run with no Lab open), the scoped store and the store-only handles (`on_store`) of the pages
that read the store while the graph backend is down, and two pure helpers the pages call on records alone
(`describe_audit_entry`, `supersession_chains`).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pipeline.admin.token import sign, verify
from pipeline.admin.unlock import secrets_match, try_unlock
from pipeline.audit.describe import describe as describe_audit_entry
from pipeline.deals.access import scoped_store
from pipeline.lab import Lab

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pipeline.audit.api import Audit
    from pipeline.backup.restore import RestoreResult
    from pipeline.corrections.api import Corrections
    from pipeline.history.api import History
    from pipeline.merges.api import Merges
    from pipeline.store import Store
    from pipeline.temporal.records import FactRow, Link

__all__ = [
    "Lab",
    "StoreFeatures",
    "describe_audit_entry",
    "on_store",
    "restore_backup",
    "scoped_store",
    "secrets_match",
    "sign",
    "supersession_chains",
    "try_unlock",
    "verify",
]


class StoreFeatures:
    """The handles whose calls read or write the SQLite store alone, on an object with a `store` and no graph: the
    pages that keep working while the graph backend is down (History, Latency, Audit), the benchmarks that fill a
    store. The same handle classes as the Lab's; only their store-only calls may be made here."""

    store: Store

    @cached_property
    def history(self) -> History:
        from pipeline.history.api import History

        return History(cast(Lab, self))

    @cached_property
    def audit(self) -> Audit:
        from pipeline.audit.api import Audit

        return Audit(cast(Lab, self))

    @cached_property
    def corrections(self) -> Corrections:
        """Only `list_corrections` (the others need the graph)."""
        from pipeline.corrections.api import Corrections

        return Corrections(cast(Lab, self))

    @cached_property
    def merges(self) -> Merges:
        """Only `rejected_pairs` and `undone_merges` (the others need the graph)."""
        from pipeline.merges.api import Merges

        return Merges(cast(Lab, self))


class _OnStore(StoreFeatures):
    def __init__(self, store: Store) -> None:
        self.store = store


def on_store(store: Store) -> StoreFeatures:
    """The store-only handles on `store`."""
    return _OnStore(store)


def restore_backup(source: Path, data_dir: Path, force: bool = False) -> RestoreResult:
    """Put a backup made by `back_up` into `data_dir` (no Lab is open: it would start the server on what is
    replaced). Imported when called, as the CLI loads only its command's feature."""
    from pipeline.backup.restore import restore_backup as restore

    return restore(source, data_dir, force)


def supersession_chains(facts: Sequence[FactRow], links: Sequence[Link]) -> dict[str, str]:
    """fact uuid -> the id of its supersession chain. Imported when called: the temporal records load the sentence
    splitter, which no CLI command but the Timeline's needs."""
    from pipeline.temporal.supersession import chains

    return chains(facts, links)
