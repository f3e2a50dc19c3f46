"""Loading deals as the pages, the CLI and the benchmarks do it: `lab.ingest` (the demo deal, a BEIR folder, and
the loaders' own path for a generated deal). Each call writes through the lab's graph backend and embedder into
its data directory; the values it hands out are in `pipeline.api.models`. The logic lives in the modules named
beside each call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.deals import DealInfo
from pipeline.ingest import beir, loading, rebuild
from pipeline.ingest.demo import seed
from pipeline.ingest.progress import Report
from pipeline.merges.labelled import LabelledEvaluation
from pipeline.store import Store

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Ingest:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- the bundled demo deal (demo/seed.py) ---

    async def seed_demo(
        self,
        group_id: str = seed.DEMO_GROUP,
        force: bool = False,
        replace: bool = False,
        actor: str = "loader",
        announce: rebuild.Announce | None = None,
    ) -> seed.SeedResult:
        """Seed the demo deal as `group_id` (`force`: rebuild even if unchanged; `replace`: over another source's
        deal or an admin's changes, the loss `announce`d and audited)."""
        lab = self.lab
        return await seed.seed_demo(
            lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id, force, replace, actor, announce
        )

    async def reset_demo(self, actor: str, group_id: str = seed.DEMO_GROUP) -> seed.SeedResult:
        """Admin action: rebuild the demo deal from its bundled data, dropping every change made to it."""
        return await seed.reset_demo(self.lab, actor, group_id)

    async def measure_examples(self, group_id: str) -> int | None:
        """Sweep the seeded demo deal's labelled set and save it: the experiment's id, None when it has one."""
        return await seed.measure_examples(self.lab, group_id)

    async def labelled_evaluation(self, group_id: str) -> LabelledEvaluation | None:
        """Precision and recall on the demo's labelled entity pairs; None for deals not built from the demo data."""
        return await seed.labelled_evaluation(self.lab, group_id)

    # --- a BEIR-style folder (beir.py) ---

    async def import_beir(
        self,
        folder: Path,
        group_id: str,
        replace: bool = False,
        report: Report | None = None,
        actor: str = "loader",
        announce: rebuild.Announce | None = None,
    ) -> beir.ImportResult:
        """Import `folder` as deal `group_id`; `report` hears each step."""
        lab = self.lab
        return await beir.import_beir(
            lab.backend,
            lab.embedder,
            lab.settings.resolved_data_dir,
            folder,
            group_id,
            replace,
            report,
            actor,
            announce,
        )

    # --- the loaders' own path, for a deal generated elsewhere (loading.py, rebuild.py) ---

    stable_uuid = staticmethod(loading.stable_uuid)

    async def write_deal(self, group_id: str, content: loading.DealContent, report: Report | None = None) -> None:
        """Embed (with the lab's embedder) and save everything of the deal."""
        await loading.write_deal(self.lab.backend, group_id, content, self.lab.embedder, report)

    async def check_rebuild(self, store: Store, existing: DealInfo | None, plan: rebuild.Rebuild) -> None:
        """Refuse (one line, nothing written) a rebuild that would discard what `--replace` must be asked for."""
        await rebuild.check_rebuild(self.lab.backend, store, existing, plan)

    async def rebuild_deal(
        self,
        store: Store,
        existing: DealInfo | None,
        plan: rebuild.Rebuild,
        write: Callable[[Report], Awaitable[None]],
        announce: rebuild.Announce | None = None,
        report: Report | None = None,
    ) -> None:
        """Delete the deal's graph and `write` it again, then save its row (call `check_rebuild` first)."""
        await rebuild.rebuild_deal(self.lab.backend, store, existing, plan, write, announce, report)
