"""The loss X-ray as pages and the CLI use it: `lab.why`. Every ranking goes through the one `rank()`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.evaluation.judgments import EvalSet, load_eval_set
from pipeline.rerankers import make_reranker
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.records import iso
from pipeline.retrieval.setting import Setting
from pipeline.why.records import FactLoss, LossReport, QueryLosses, SweptReport
from pipeline.why.swept import SWEPT_SETTINGS, swept_settings
from pipeline.why.xray import query_losses, summarise

if TYPE_CHECKING:
    from pipeline.lab import Lab

Progress = Callable[[int, int, str], None]


class Why:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    async def report(
        self,
        group_id: str,
        settings: Sequence[Setting],
        source: str = "labelled",
        include_superseded: bool = False,
        as_of: datetime | None = None,
        query_ids: Sequence[str] | None = None,
        limit_queries: int | None = None,
        progress: Progress | None = None,
    ) -> LossReport:
        """Where each judged-relevant fact of the set (`source`, as the sweep reads it) was lost under each
        setting; `query_ids` or `limit_queries` narrow the queries (in the set's order)."""
        if not settings:
            raise InvalidInput("Give at least one setting to X-ray.")
        await self.lab.deal(group_id)
        eval_set = await load_eval_set(self.lab, group_id, source)
        return await self._report(
            group_id, eval_set, settings, include_superseded, as_of, query_ids, limit_queries, progress
        )

    async def _report(
        self,
        group_id: str,
        eval_set: EvalSet,
        settings: Sequence[Setting],
        include_superseded: bool,
        as_of: datetime | None,
        query_ids: Sequence[str] | None,
        limit_queries: int | None,
        progress: Progress | None,
    ) -> LossReport:
        """`report` on a set already loaded."""
        settings = [s.validate() for s in dict.fromkeys(settings)]
        relevant = _relevant(eval_set)
        queries = [q for q in eval_set.queries if relevant[q.id]]
        if query_ids:
            wanted, known = set(query_ids), {q.id for q in queries}
            unknown = [i for i in query_ids if i not in known]
            if unknown:
                raise InvalidInput(f"No judged query {unknown[0]!r} with a relevant fact in {eval_set.label}.")
            queries = [q for q in queries if q.id in wanted]
        if limit_queries is not None:
            queries = queries[:limit_queries]
        if not queries:
            raise InvalidInput(f"{eval_set.label} has no judged query with a relevant fact to X-ray.")
        rankers = {s.reranker: make_reranker(s.reranker, self.lab.settings) for s in settings}
        held = await self.lab.facts.load(group_id)
        per_query: list[QueryLosses] = []
        what_ifs: dict[str, list[dict[str, frozenset[str]]]] = {s.key: [] for s in settings}
        for done, q in enumerate(queries):
            if progress:
                progress(done, len(queries), q.text)
            hooks = RankHooks(rankers=rankers, held=held, cite=False, deal_checked=True)
            losses, what_if = await query_losses(
                self.lab, group_id, q.id, q.text, relevant[q.id], settings, include_superseded, as_of, hooks
            )
            per_query.extend(losses)
            for key, found in what_if.items():
                what_ifs[key].append(found)
        if progress:
            progress(len(queries), len(queries), "")
        return LossReport(
            group_id=group_id,
            source=eval_set.source,
            set_label=eval_set.label,
            queries=len(queries),
            include_superseded=include_superseded,
            as_of=iso(as_of),
            settings=tuple(
                summarise(s, [q for q in per_query if q.setting == s.key], what_ifs[s.key]) for s in settings
            ),
            per_query=tuple(per_query),
        )

    async def experiment_report(
        self, exp_id: int, most: int = SWEPT_SETTINGS, progress: Progress | None = None
    ) -> SweptReport:
        """The X-ray of a saved sweep: its recommended setting, its baseline and its best (`swept_settings`) over the
        queries it ran that still have a relevant judgment, under its date filter; and one line per thing left out."""
        _info, result = self.lab.evaluation.load_experiment(exp_id, rankings=False)
        settings, notes = swept_settings(result, most)
        if not settings:
            raise InvalidInput(f"Experiment #{exp_id} has no setting an X-ray can run: each uses a hosted reranker.")
        spec = result.spec
        await self.lab.deal(spec.group_id)
        eval_set = await load_eval_set(self.lab, spec.group_id, spec.judgments)
        relevant = _relevant(eval_set)
        query_ids = [q for q in result.queries if relevant.get(q)]
        if not query_ids:
            raise InvalidInput(f"None of the queries experiment #{exp_id} ran has a relevant judgment now.")
        if len(query_ids) < len(result.queries):
            notes.append(
                f"{len(result.queries) - len(query_ids)} of the sweep's {len(result.queries)} queries have no "
                "relevant judgment now: left out."
            )
        report = await self._report(
            spec.group_id,
            eval_set,
            settings,
            spec.include_superseded,
            spec.as_of_datetime(),
            query_ids,
            None,
            progress,
        )
        return SweptReport(exp_id, report, tuple(settings), tuple(notes))

    async def fact(self, group_id: str, query: str, setting: Setting, uuid: str) -> FactLoss:
        """Where one fact stands for `query` under `setting`: which methods found it at which rank, its fused and
        final rank, or the stage that lost it (the X-ray of one fact, through the one `rank()`)."""
        setting = setting.validate()
        if not query.strip():
            raise InvalidInput("Type a query to see where the fact ranks for it.")
        await self.lab.deal(group_id)
        hooks = RankHooks(
            rankers={setting.reranker: make_reranker(setting.reranker, self.lab.settings)},
            held=await self.lab.facts.load(group_id),
            cite=False,
            deal_checked=True,
        )
        losses, _ = await query_losses(self.lab, group_id, "", query, {uuid: 0}, [setting], hooks=hooks)
        return losses[0].facts[0]


def _relevant(eval_set: EvalSet) -> dict[str, dict[str, int]]:
    """Query id -> its judged-relevant facts (grade 1 or more), uuid -> grade."""
    return {q.id: {u: g for u, g in eval_set.qrels.get(q.id, {}).items() if g >= 1} for q in eval_set.queries}
