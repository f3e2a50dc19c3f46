"""An LLM judge grades a pool: every pair of it, on the analysts' rubric, as the reviewer `judge:<model>`.

Grades come from `pipeline.judge.grade_pairs` (cached per model, prompt version and pair texts, so a second run
of the same pool costs nothing and a run cut short resumes) and are stored beside the analysts' answers in one
transaction, each with the judge's reason and the prompt version as its note. The run is audited
(`judge.graded`: model, prompt version, pairs, cache hits, requests, tokens, cost, time, any failure). A failure
keeps every grade obtained and is reported in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.audit import record_audit
from pipeline.errors import InvalidInput
from pipeline.judge import JudgePair, JudgeReport, grade_pairs, judge_config, judge_reviewer
from pipeline.judge.grade import Progress
from pipeline.pools.records import Pool
from pipeline.pools.repo import pool_of
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.repo_answers import save_relevances
from pipeline.spotcheck.verdicts import MAX_NOTE

if TYPE_CHECKING:
    from pipeline.lab import Lab


@dataclass(frozen=True)
class PoolJudged:
    pool: Pool
    reviewer: str
    report: JudgeReport
    written: int  # grades new or changed in the store

    def text(self) -> str:
        r = self.report
        return (
            f"{len(r.grades):,} of {self.pool.pairs:,} pairs of pool #{self.pool.queue_id} graded by {self.reviewer} "
            f"(prompt {r.prompt_version}): {r.cached:,} from the cache, {r.calls:,} requests, "
            f"{r.input_tokens + r.output_tokens:,} tokens, ${r.cost_usd:.4f}, {r.elapsed_s:.1f} s"
        )


async def judge_pool(lab: Lab, group_id: str, pool_id: int, actor: str, progress: Progress | None = None) -> PoolJudged:
    config = judge_config(lab.settings)  # no key: one line naming OPENAI_API_KEY, before anything runs
    await lab.deal(group_id)
    pool = pool_of(lab.store, pool_id)
    if pool is None or pool.group_id != group_id:
        raise InvalidInput(f"Deal {group_id!r} has no judging pool #{pool_id}.")
    items = queue_items(lab.store, pool_id)
    report = await grade_pairs(lab.store, config, [JudgePair(i.id, i.query, i.fact) for i in items], progress)
    reviewer = judge_reviewer(config.model)
    notes = [(int(g.key), g.grade, f"{g.reason} · {report.prompt_version}"[:MAX_NOTE]) for g in report.grades]
    written = save_relevances(lab.store, reviewer, notes)
    details = {
        "pool": pool_id,
        "model": config.model,
        "prompt_version": report.prompt_version,
        "pairs": len(items),
        "graded": len(report.grades),
        "written": written,
        "cached": report.cached,
        "requests": report.calls,
        "input_tokens": report.input_tokens,
        "output_tokens": report.output_tokens,
        "cost_usd": round(report.cost_usd, 6),
        "elapsed_s": round(report.elapsed_s, 2),
        "failure": report.failure,
    }
    record_audit(lab.store, actor, "judge.graded", group_id, f"pool #{pool_id}", details)
    return PoolJudged(pool, reviewer, report, written)
