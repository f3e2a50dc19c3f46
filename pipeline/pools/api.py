"""Judging pools as the pages and the CLI use them: `lab.pools`. Each call reads or writes this deployment's store
(scoped to the deals it may show) and the graph through the lab; the values it hands out are in
`pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.judge.grade import Progress
from pipeline.pools import build as building
from pipeline.pools import judging, repo
from pipeline.pools.records import Pool, PoolProgress, PoolSpec
from pipeline.spotcheck.verdicts import Grades

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Pools:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- building (build.py) ---

    async def build(self, spec: PoolSpec) -> Pool:
        """Pool the settings' top k over the set's queries, pairs already judged left out."""
        return await building.build_pool(self.lab, spec)

    def calibrate(self, group_id: str, pool_id: int, size: int, seed: int, created_by: str, name: str = "") -> Pool:
        """A seeded sample of `size` pairs the LLM judge graded in the pool and no analyst has, for analysts."""
        return building.draw_calibration(self.lab, group_id, pool_id, size, seed, created_by, name)

    # --- the LLM judge's run (judging.py) ---

    async def judge(
        self, group_id: str, pool_id: int, actor: str, progress: Progress | None = None
    ) -> judging.PoolJudged:
        """The LLM judge grades every pair of the pool; a failure keeps the grades obtained (in the report)."""
        return await judging.judge_pool(self.lab, group_id, pool_id, actor, progress)

    # --- reading (repo.py) ---

    def deal_pools(self, group_id: str) -> list[Pool]:
        """The deal's pools and calibration samples, newest first."""
        return repo.list_pools(self.lab.store, group_id)

    def of_queue(self, queue_id: int) -> Pool | None:
        """The pool a review queue is; None for a plain review queue."""
        return repo.pool_of(self.lab.store, queue_id)

    def progress(self, pool: Pool, grades: Grades | None = None) -> PoolProgress:
        """How many of the pool's pairs analysts and the judge have graded; `grades`: the deal's, when read."""
        return repo.pool_progress(self.lab.store, pool, grades)
