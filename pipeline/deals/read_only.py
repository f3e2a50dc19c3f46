"""The per-deal read-only flag: kept in the store, audited, and given to the backend as the set of
group_ids it must not write (`backend.read_only_groups`)."""

from __future__ import annotations

from pipeline.audit import record_audit
from pipeline.deals.repo import read_only_groups, set_read_only
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store


def load_read_only_groups(backend: GraphBackend, store: Store) -> set[str]:
    """Refresh the backend's set from the store (in place: whoever holds the set sees the change)."""
    groups = read_only_groups(store)
    if backend.read_only_groups != groups:
        backend.read_only_groups.clear()
        backend.read_only_groups.update(groups)
    return groups


def set_deal_read_only(backend: GraphBackend, store: Store, group_id: str, read_only: bool, actor: str) -> None:
    """Record the flag with its audit entry in one transaction, then apply it to the backend."""
    with store.transaction() as tx:
        set_read_only(tx, group_id, read_only)
        action = "deal.read_only" if read_only else "deal.writable"
        record_audit(store, actor, action, group_id, group_id, {"read_only": read_only}, conn=tx)
    load_read_only_groups(backend, store)
