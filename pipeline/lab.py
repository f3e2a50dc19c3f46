"""A `Lab` bundles what every command needs: settings, the graph backend, the embedder, the store; it gives the
backend the deals' read-only flags and sets them (audited)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, cast

from pipeline.audit import record_audit
from pipeline.deals import DealInfo, list_deals, require_deal
from pipeline.deals.access import DealAccess, scoped_store
from pipeline.deals.repo import migrate_legacy_deals, read_only_groups, set_read_only
from pipeline.deals.require import find_deal
from pipeline.embedders import LabEmbedder, make_embedder
from pipeline.errors import RetrievalLabError
from pipeline.graph.backend import GraphBackend, connect
from pipeline.journal.recovery import recover
from pipeline.settings import Settings, get_settings
from pipeline.store import Store, store_path
from pipeline.store.integrity import missing_store, store_absent
from pipeline.store.private import make_private_dir

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from pipeline.audit.api import Audit
    from pipeline.backup.api import Backup
    from pipeline.comparison.api import Comparison
    from pipeline.corrections.api import Corrections
    from pipeline.deals.api import DealBook
    from pipeline.evaluation.api import Evaluation
    from pipeline.gate.api import Gate
    from pipeline.history.api import History
    from pipeline.ingest.api import Ingest
    from pipeline.judge.api import Judge
    from pipeline.merges.api import Merges
    from pipeline.pools.api import Pools
    from pipeline.query_sets.api import QuerySets
    from pipeline.retrieval.api import Retrieval
    from pipeline.retrieval.held_facts import HeldFacts
    from pipeline.spotcheck.api import Spotcheck
    from pipeline.temporal.api import Temporal
    from pipeline.warm_up import WarmUp
    from pipeline.why.api import Why

log = logging.getLogger(__name__)


@cache
def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


# The per-deal read-only flag: kept in the store, audited, and given to the backend as the set of group_ids it must
# not write (`backend.read_only_groups`).


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


class StoreFeatures:
    """The handles whose calls read or write the SQLite store alone: a Lab's, and those on a bare store
    (`on_store`) for the pages that keep working while the graph backend is down (History, Latency, Audit) and the
    benchmarks that fill a store. On a bare store only their store-only calls may be made."""

    store: Store

    @cached_property
    def history(self) -> History:
        """Stored runs: recording, listing, comparing them, and their latency and cost."""
        from pipeline.history.api import History

        return History(cast(Lab, self))

    @cached_property
    def audit(self) -> Audit:
        """The audit log of admin actions."""
        from pipeline.audit.api import Audit

        return Audit(cast(Lab, self))

    @cached_property
    def corrections(self) -> Corrections:
        """Fact corrections and their undo (on a bare store: `list_corrections` only)."""
        from pipeline.corrections.api import Corrections

        return Corrections(cast(Lab, self))

    @cached_property
    def merges(self) -> Merges:
        """Entity merge candidates, merges, rejections and undos (on a bare store: the rejected and undone lists)."""
        from pipeline.merges.api import Merges

        return Merges(cast(Lab, self))


class _OnStore(StoreFeatures):
    def __init__(self, store: Store) -> None:
        self.store = store


def on_store(store: Store) -> StoreFeatures:
    """The store-only handles on `store`."""
    return _OnStore(store)


@dataclass
class Lab(StoreFeatures):
    settings: Settings
    backend: GraphBackend
    embedder: LabEmbedder
    _recovering: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)

    def software(self) -> dict[str, str]:
        """What a ranking ran on besides its setting, recorded with every run and experiment: graphiti-core's
        version (its search code is the first stage), the graph backend and the embedder."""
        return {
            "graphiti_core": package_version("graphiti-core"),
            "backend": self.backend.label,
            "embedder": self.embedder.info.describe(),
        }

    @classmethod
    async def open(cls, settings: Settings | None = None) -> Lab:
        settings = settings or get_settings()
        make_private_dir(settings.resolved_data_dir)  # before the embedded server writes anything there
        backend = await connect(settings)
        lab = cls(settings=settings, backend=backend, embedder=make_embedder(settings))
        try:
            await lab._require_store()
            await lab._attach()
        except Exception as exc:
            await backend.close()
            problem = backend.connection_lost(exc)  # the server went away while we attached: one line naming it
            if problem is None:
                raise
            raise problem from exc
        except BaseException:
            await backend.close()
            raise
        return lab

    async def _require_store(self) -> None:
        """Refuse an embedded graph holding deals whose store is gone (pipeline/store/integrity.py), before
        anything opens, and so creates, an empty store in its place."""
        path = store_path(self.settings.resolved_data_dir)
        if self.backend.embedded is None or not store_absent(path):
            return
        groups = await self.backend.cypher.group_ids()
        if groups and store_absent(path):  # asked again: another process may have created it meanwhile
            raise missing_store(path, groups)

    async def _attach(self) -> None:
        """Give the backend the read-only deals, move earlier versions' deal nodes into the store, then finish
        any admin action a killed process left half-done (if no other process holds the admin lock now;
        otherwise the next admin action does it before it starts)."""
        load_read_only_groups(self.backend, self.store)
        await migrate_legacy_deals(self.backend, self.store)
        await self.recover_journal()

    async def recover_journal(self) -> list[dict[str, str]]:
        """Roll back (or complete) interrupted admin actions; what was finished. Never raises for a graph that
        does not answer: admin actions stay refused (one line) until recovery succeeds."""
        if self.backend.read_only:
            return []
        try:
            return await recover(self)
        except RetrievalLabError as exc:
            log.warning("journal recovery postponed: %s", exc)
            return []

    # The features' handles (`pipeline.api`), each imported when first used: a CLI command loads only its own
    # feature (the spot-check's statistics take a second to import).

    @cached_property
    def facts(self) -> HeldFacts:
        """The deals' facts this process holds in memory for ranking (pipeline/retrieval/held_facts.py)."""
        from pipeline.retrieval.held_facts import HeldFacts

        return HeldFacts(self)

    @cached_property
    def retrieval(self) -> Retrieval:
        """Ranking a query under settings, its citations' episodes, the deal's vector index."""
        from pipeline.retrieval.api import Retrieval

        return Retrieval(self)

    @cached_property
    def spotcheck(self) -> Spotcheck:
        """Review queues, analysts' answers, adjudication and their summaries."""
        from pipeline.spotcheck.api import Spotcheck

        return Spotcheck(self)

    @cached_property
    def evaluation(self) -> Evaluation:
        """Sweeps (as jobs or directly), their judgments, saved experiments, their comparison and exports."""
        from pipeline.evaluation.api import Evaluation

        return Evaluation(self)

    @cached_property
    def gate(self) -> Gate:
        """The regression gate: a candidate ranked against a baseline, its checks, baseline and JUnit files."""
        from pipeline.gate.api import Gate

        return Gate(self)

    @cached_property
    def comparison(self) -> Comparison:
        """Two settings on one query: judged verdict, per-side scores, overlap, confidence, example queries."""
        from pipeline.comparison.api import Comparison

        return Comparison(self)

    @cached_property
    def temporal(self) -> Temporal:
        """The deal's facts over time: timelines, what was true on a date, supersessions."""
        from pipeline.temporal.api import Temporal

        return Temporal(self)

    @cached_property
    def backup(self) -> Backup:
        """Backups of the data directory (a restore is `pipeline.api.restore_backup`: no Lab is open for it)."""
        from pipeline.backup.api import Backup

        return Backup(self)

    @cached_property
    def deal_book(self) -> DealBook:
        """The deals' counts and summaries (`deal()` and `deals()` check and list the deals themselves)."""
        from pipeline.deals.api import DealBook

        return DealBook(self)

    @cached_property
    def query_sets(self) -> QuerySets:
        """Labelled query sets: stored, read from files or History, imported, frozen from verdicts, exported."""
        from pipeline.query_sets.api import QuerySets

        return QuerySets(self)

    @cached_property
    def pools(self) -> Pools:
        """Judging pools: built from settings' top k, judged by the LLM judge, calibration samples, progress."""
        from pipeline.pools.api import Pools

        return Pools(self)

    @cached_property
    def judge(self) -> Judge:
        """The LLM judge's configuration and prompt (its run on a pool is `pools.judge`)."""
        from pipeline.judge.api import Judge

        return Judge(self)

    @cached_property
    def why(self) -> Why:
        """The loss X-ray: where each judged-relevant fact was lost under a setting, and what-ifs."""
        from pipeline.why.api import Why

        return Why(self)

    @cached_property
    def ingest(self) -> Ingest:
        """Loading deals: the demo deal (seed, reset, its examples and labelled pairs), BEIR folders."""
        from pipeline.ingest.api import Ingest

        return Ingest(self)

    def admin_section(self) -> AbstractAsyncContextManager[None]:
        """The admin lock (`async with lab.admin_section():`), with every journal entry a killed process left
        open finished first (pipeline/journal/run.py)."""
        from pipeline.journal.run import admin_section

        return admin_section(self)

    async def warm_up(self) -> WarmUp:
        """Pay what a first query costs once per process (model, connections, compiled searches) on the deal the
        app opens, recording nothing (pipeline/warm_up.py)."""
        from pipeline.warm_up import warm_up

        return await warm_up(self)

    @property
    def store(self) -> Store:
        """The SQLite store (deals' bookkeeping, audit log, runs, verdicts) in the data directory, scoped to
        the deals this deployment may show: its repo functions leave other deals out."""
        return scoped_store(self.settings.resolved_data_dir, self.settings.allowed_deals)

    @property
    def access(self) -> DealAccess:
        """The deployment's allow-list (RETRIEVAL_LAB_ALLOWED_DEALS)."""
        return DealAccess.of(self.settings.allowed_deals)

    def require_access(self, group_id: str, action: str) -> None:
        """Refuse (one line) any command on a deal this deployment may not show: loaders and resets included,
        whether or not the deal exists yet."""
        self.access.require(group_id, action)

    async def deal(self, group_id: str) -> DealInfo:
        """The deal, checked: it exists, may be shown here, and fits the configured embedder."""
        load_read_only_groups(self.backend, self.store)
        return await require_deal(self.backend, self.store, group_id, self.embedder.info, self.settings.allowed_deals)

    async def deals(self) -> list[DealInfo]:
        """Every deal in the graph that this deployment may show."""
        load_read_only_groups(self.backend, self.store)
        return await list_deals(self.backend, self.store, self.settings.allowed_deals)

    async def set_read_only(self, group_id: str, read_only: bool, actor: str) -> DealInfo:
        """Set a deal read-only (or writable again), audited; the deal as it is afterwards."""
        await find_deal(self.backend, self.store, group_id, self.settings.allowed_deals)
        set_deal_read_only(self.backend, self.store, group_id, read_only, actor)
        return await find_deal(self.backend, self.store, group_id, self.settings.allowed_deals)

    async def recover(self) -> str | None:
        """If the backend stopped answering, reconnect (restarting the embedded server, whose append-only
        file keeps everything acknowledged). Returns what happened, None when all was well; raises
        BackendUnavailable when the backend cannot be brought back."""
        async with self._recovering:  # sessions that find it down together reconnect once
            problem = await self.backend.lost()
            if problem is None:
                return None
            await self.backend.close()
            self.backend = await connect(self.settings)
            load_read_only_groups(self.backend, self.store)
            repaired = self.backend.embedded.notice if self.backend.embedded is not None else ""
            return f"{problem}; reconnected to {self.backend.label}" + (f"; {repaired}" if repaired else "")

    async def close(self) -> None:
        await self.backend.close()
