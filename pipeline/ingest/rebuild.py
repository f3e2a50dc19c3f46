"""How a loader (seed-demo, import-beir) writes its deal: fresh, rebuilt over its own unchanged deal, or, with
`--replace` only, over another source's deal or an admin's changes (`pipeline/deals/replace.py`).

While it writes, the deal's row says so: facts written of all, and the process writing them. A killed import leaves
that on the row, so `deals`, `status` and the pages say "import interrupted at 1,000 of 3,190 facts — re-run the
same command" (the claim also dropped the content hash: the same command then rebuilds it), until a run completes
and saves the row whole."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, replace

from pipeline.deals import DealInfo, DealRecord, save_deal
from pipeline.deals.replace import Loss, assess_loss, claim, refuse_without_replace, replace_deal
from pipeline.deals.repo import record_import_progress
from pipeline.graph.backend import GraphBackend
from pipeline.ingest.progress import Report, Step, facts_written
from pipeline.journal import failpoint
from pipeline.processes import this_process
from pipeline.store import Store

FAILPOINT_KIND = "deal.import"  # TEST HOOK: a failpoint after each batch of facts, step "facts_<written>"

Announce = Callable[[str], None]


@dataclass(frozen=True)
class Rebuild:
    """One loader run's intent: the deal's row once written, who asked, and whether `--replace` was given."""

    record: DealRecord  # with the content hash that makes the next identical run a no-op
    command: str  # "seed-demo", "import-beir": named in the refusal
    replace: bool = False
    actor: str = "loader"
    own_merges: Collection[str] = ()  # merge uuids the loader writes itself (not an admin's)
    facts: int = 0  # facts the loader writes: the "of all" of its progress on the deal's row


async def check_rebuild(backend: GraphBackend, store: Store, existing: DealInfo | None, plan: Rebuild) -> None:
    """Refuse (one line, nothing written) a rebuild that would discard what `--replace` must be asked for."""
    if existing is not None and not plan.replace:
        refuse_without_replace(await _loss(backend, store, existing, plan), plan.command)


async def rebuild_deal(
    backend: GraphBackend,
    store: Store,
    existing: DealInfo | None,
    plan: Rebuild,
    write: Callable[[Report], Awaitable[None]],
    announce: Announce | None = None,
    report: Report | None = None,
) -> None:
    """Delete the deal's graph and `write` it again (it reports its steps to the callback it is given),
    then save its row (last: its hash, and no import in progress, mark it complete). Call `check_rebuild` first;
    with `--replace` over an existing deal, the loss is announced and audited."""
    group_id = plan.record.group_id
    claimed = replace(plan.record, import_done=0, import_total=plan.facts, import_owner=this_process())

    def track(step: Step) -> None:
        if facts_written(step):
            record_import_progress(store, group_id, step.done)
            failpoint.reached(FAILPOINT_KIND, f"facts_{step.done}", store.path.parent)
        if report is not None:
            report(step)

    async def rebuild() -> None:
        await backend.delete_graph(group_id)
        await write(track)
        save_deal(store, plan.record)

    if existing is not None and plan.replace:
        loss = await _loss(backend, store, existing, plan)
        if announce is not None:
            announce(loss.describe())
        await replace_deal(store, loss, claimed, plan.actor, rebuild)
        return
    claim(store, claimed)  # a crash from here on leaves a deal the next identical run rebuilds, marked interrupted
    await rebuild()


async def _loss(backend: GraphBackend, store: Store, existing: DealInfo, plan: Rebuild) -> Loss:
    return await assess_loss(backend, store, existing, plan.record.source or "", plan.own_merges)
