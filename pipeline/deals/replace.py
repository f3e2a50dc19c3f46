"""Loaders never clobber: what rebuilding a deal would lose, the refusal without `--replace`, the replace itself.

A loader (seed-demo, import-beir) rebuilds a deal on its own only when it built that deal itself (same
source) and no admin has changed it since (no open correction, no merge but the loader's own). Anything
else needs `--replace`; then what is lost is said first, the replace is audited (`deal.replace`, with the
counts) and the deal's open corrections are closed as discarded by it, never left "open" with an undo that
has nothing to restore.

`replace_deal` runs these steps in order (each a boundary a write-ahead journal can record):
1. claim: the deal's row names the new source with no content hash, so a rerun of the same command
   rebuilds rather than skips or refuses;
2. one SQLite transaction: the `deal.replace` audit entry and the open corrections closed;
3. the loader's rebuild (it deletes the old graph first, then writes the new one and its row).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from pipeline.audit import record_audit
from pipeline.corrections.repo import discard_open_corrections, list_corrections
from pipeline.deals.discovery import deal_counts
from pipeline.deals.records import DealInfo, DealRecord
from pipeline.deals.repo import save_deal
from pipeline.errors import InvalidInput
from pipeline.graph.backend import GraphBackend
from pipeline.query_sets.repo import list_sets
from pipeline.spotcheck.repo_answers import verdict_rows
from pipeline.store import Store

ACTION_REPLACE = "deal.replace"
T = TypeVar("T")


@dataclass(frozen=True)
class Loss:
    """What rebuilding an existing deal discards."""

    group_id: str
    source: str  # what built the deal ("graphiti" when we did not)
    new_source: str  # what would rebuild it
    facts: int
    corrections: tuple[str, ...]  # ids of the open admin corrections
    merges: tuple[str, ...]  # uuids of the merges the loader did not write itself
    query_sets: tuple[str, ...]  # the deal's stored sets: their judgments name facts that may go
    verdicts: int  # analysts' spot-check verdicts on the deal's facts

    @property
    def other_source(self) -> bool:
        return self.source != self.new_source

    @property
    def admin_changes(self) -> bool:
        return bool(self.corrections or self.merges)

    @property
    def needs_replace(self) -> bool:
        return self.other_source or self.admin_changes

    def counts(self) -> dict[str, Any]:
        """For the audit entry."""
        return {
            "source": self.source,
            "new_source": self.new_source,
            "facts": self.facts,
            "corrections": len(self.corrections),
            "correction_ids": list(self.corrections),
            "merges": len(self.merges),
            "merge_uuids": list(self.merges),
            "query_sets": list(self.query_sets),
            "verdicts": self.verdicts,
        }

    def why(self) -> str:
        """Why a plain rebuild is refused, e.g. "was built by beir:mini and has 1 open admin correction"."""
        reasons = [f"was built by {self.source}"] if self.other_source else []
        changes = _plural(len(self.corrections), "open admin correction"), _plural(len(self.merges), "admin merge")
        if self.admin_changes:
            reasons.append("has " + " and ".join(c for c in changes if not c.startswith("0 ")))
        return " and ".join(reasons)

    def describe(self) -> str:
        """One line: what a replace discards."""
        sets = ", ".join(repr(s) for s in self.query_sets) or "none"
        return (
            f"replacing deal {self.group_id!r} ({self.source}) with {self.new_source} discards "
            f"{_plural(self.facts, 'fact')}, {_plural(len(self.corrections), 'open correction')} and "
            f"{_plural(len(self.merges), 'admin merge')}; its query sets ({sets}) and "
            f"{_plural(self.verdicts, 'spot-check verdict')} may name facts that go"
        )


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


async def assess_loss(
    backend: GraphBackend, store: Store, deal: DealInfo, new_source: str, own_merges: Collection[str] = ()
) -> Loss:
    """What rebuilding `deal` with `new_source` would discard (reads only). `own_merges`: the uuids of the
    merges the loader writes itself (the demo's seeded ones), which are not an admin's."""
    group_id = deal.group_id
    merges = [r["m"]["uuid"] for r in await backend.cypher.merge_records(group_id)]
    return Loss(
        group_id=group_id,
        source=deal.source,
        new_source=new_source,
        facts=(await deal_counts(backend, group_id)).facts,
        corrections=tuple(c.id for c in list_corrections(store, group_id) if not c.undone),
        merges=tuple(sorted(m for m in merges if m not in set(own_merges))),
        query_sets=tuple(s.name for s in list_sets(store, group_id)),
        verdicts=len(verdict_rows(store, group_id)),
    )


def refuse_without_replace(loss: Loss, command: str) -> None:
    """One line, nothing written: a rebuild that would discard another source's deal or an admin's changes."""
    if loss.needs_replace:
        raise InvalidInput(
            f"Deal {loss.group_id!r} {loss.why()}: {command} would discard it; choose another --group, or pass "
            f"--replace to replace it. Nothing was written."
        )


def claim(store: Store, record: DealRecord) -> None:
    """The deal's row as the loader will leave it, but with no content hash: from here until the rebuild
    completes, a rerun of the same loader rebuilds (same source, no hash) instead of refusing or skipping."""
    save_deal(store, DealRecord(**{**record.__dict__, "content_hash": None}))


async def replace_deal(
    store: Store, loss: Loss, record: DealRecord, actor: str, rebuild: Callable[[], Awaitable[T]]
) -> T:
    """Replace an existing deal (`--replace`): claim it, audit the replace and close its open corrections (one
    transaction), then run the loader's `rebuild`. The audit entry's details are `loss.counts()`."""
    claim(store, record)
    with store.transaction() as conn:
        audit_id = record_audit(store, actor, ACTION_REPLACE, loss.group_id, loss.group_id, loss.counts(), conn=conn)
        discard_open_corrections(conn, loss.group_id, f"{ACTION_REPLACE} ({actor})", audit_id)
    return await rebuild()
