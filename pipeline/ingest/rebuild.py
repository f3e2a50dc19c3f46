"""How a loader (seed-demo, import-beir) writes its deal: fresh, rebuilt over its own unchanged deal, or, with
`--replace` only, over another source's deal or an admin's changes (`pipeline/deals/replace.py`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass

from pipeline.deals import DealInfo, DealRecord, save_deal
from pipeline.deals.replace import Loss, assess_loss, claim, refuse_without_replace, replace_deal
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store

Announce = Callable[[str], None]


@dataclass(frozen=True)
class Rebuild:
    """One loader run's intent: the deal's row once written, who asked, and whether `--replace` was given."""

    record: DealRecord  # with the content hash that makes the next identical run a no-op
    command: str  # "seed-demo", "import-beir": named in the refusal
    replace: bool = False
    actor: str = "loader"
    own_merges: Collection[str] = ()  # merge uuids the loader writes itself (not an admin's)


async def check_rebuild(backend: GraphBackend, store: Store, existing: DealInfo | None, plan: Rebuild) -> None:
    """Refuse (one line, nothing written) a rebuild that would discard what `--replace` must be asked for."""
    if existing is not None and not plan.replace:
        refuse_without_replace(await _loss(backend, store, existing, plan), plan.command)


async def rebuild_deal(
    backend: GraphBackend,
    store: Store,
    existing: DealInfo | None,
    plan: Rebuild,
    write: Callable[[], Awaitable[None]],
    announce: Announce | None = None,
) -> None:
    """Delete the deal's graph and `write` it again, then save its row (last: its hash marks it complete).
    Call `check_rebuild` first; with `--replace` over an existing deal, the loss is announced and audited."""
    group_id = plan.record.group_id

    async def rebuild() -> None:
        await backend.delete_graph(group_id)
        await write()
        save_deal(store, plan.record)

    if existing is not None and plan.replace:
        loss = await _loss(backend, store, existing, plan)
        if announce is not None:
            announce(loss.describe())
        await replace_deal(store, loss, plan.record, plan.actor, rebuild)
        return
    claim(store, plan.record)  # a crash from here on leaves a deal the next identical run rebuilds
    await rebuild()


async def _loss(backend: GraphBackend, store: Store, existing: DealInfo, plan: Rebuild) -> Loss:
    return await assess_loss(backend, store, existing, plan.record.source or "", plan.own_merges)
