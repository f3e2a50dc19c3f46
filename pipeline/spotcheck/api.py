"""The citation spot-check as the pages and the CLI use it: `lab.spotcheck`. Each call reads or writes this
deployment's store (scoped to the deals it may show) and the graph through the lab; the values it hands out are in
`pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from pipeline.retrieval.records import Result
from pipeline.spotcheck import highlight, inplace, queue, repo, repo_answers, verdicts
from pipeline.spotcheck import judge_agreement as judge_vs_analysts
from pipeline.spotcheck.records import (
    AdjudicationRecord,
    Progress,
    Queue,
    QueueItem,
    QueueSpec,
    RelevanceRecord,
    VerdictRecord,
    VerdictRow,
)

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Spotcheck:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- queues (queue.py, repo.py) ---

    def queues(self, group_id: str) -> list[Queue]:
        """The deal's review queues, newest first."""
        return repo.list_queues(self.lab.store, group_id)

    def items(self, queue_id: int) -> list[QueueItem]:
        """The queue's cards, in order."""
        return repo.queue_items(self.lab.store, queue_id)

    def item(self, item_id: int) -> QueueItem:
        return repo.get_item(self.lab.store, item_id)

    async def build(self, spec: QueueSpec, *, replay_within_s: float | None = None) -> Queue:
        """Sample and store a queue; the same build sent again within `replay_within_s` finds its queue."""
        return await queue.build_queue(self.lab, spec, replay_within_s=replay_within_s)

    @staticmethod
    def relevance_cards(items: Sequence[QueueItem]) -> dict[int, int]:
        """item id -> the card that asks relevance of its (query, fact): asked once per pair."""
        return queue.relevance_cards(items)

    # --- a reviewer's answers (verdicts.py, repo_answers.py) ---

    def record_relevance(self, item_id: int, reviewer: str, grade: int, note: str = "") -> RelevanceRecord:
        return verdicts.record_relevance(self.lab.store, item_id, reviewer, grade, note)

    def record_verdict(self, item_id: int, reviewer: str, verdict: str, note: str = "") -> VerdictRecord:
        return verdicts.record_verdict(self.lab.store, item_id, reviewer, verdict, note)

    def relevance_by(self, queue_id: int, reviewer: str) -> dict[int, RelevanceRecord]:
        """item id -> the reviewer's current relevance grade on the queue."""
        return repo_answers.reviewer_relevance(self.lab.store, queue_id, reviewer)

    def verdicts_by(self, queue_id: int, reviewer: str) -> dict[int, VerdictRecord]:
        """item id -> the reviewer's current support verdict on the queue."""
        return repo_answers.reviewer_verdicts(self.lab.store, queue_id, reviewer)

    def progress(self, queue_id: int, reviewer: str) -> Progress:
        return repo_answers.progress(self.lab.store, queue_id, reviewer)

    def resume_position(self, queue_id: int, reviewer: str) -> int | None:
        """The reviewer's first card left open, None when all are answered."""
        return repo_answers.resume_position(self.lab.store, queue_id, reviewer)

    def rows(self, group_id: str, queue_id: int | None = None) -> list[VerdictRow]:
        """Every answer of the deal (or one queue), one row each, for summaries and exports."""
        return repo_answers.verdict_rows(self.lab.store, group_id, queue_id)

    # --- summaries and adjudication (verdicts.py) ---

    summarise = staticmethod(verdicts.summarise)
    disagreements = staticmethod(verdicts.disagreements)
    may_adjudicate = staticmethod(verdicts.may_adjudicate)

    @staticmethod
    def export_csv(rows: Iterable[VerdictRow]) -> str:
        return verdicts.export_csv(rows)

    def adjudicate(
        self,
        item_id: int,
        question: str,
        answer: int | str,
        adjudicator: str,
        note: str = "",
        *,
        admin: bool = False,
        adjudicators: Collection[str] = (),
    ) -> AdjudicationRecord:
        return verdicts.adjudicate(
            self.lab.store, item_id, question, answer, adjudicator, note, admin=admin, adjudicators=adjudicators
        )

    def deal_grades(self, group_id: str) -> verdicts.Grades:
        """Every grade of the deal's facts by query, from analysts and the LLM judge."""
        return verdicts.deal_grades(self.lab.store, group_id)

    def judge_agreement(self, group_id: str, grades: verdicts.Grades | None = None) -> judge_vs_analysts.JudgeAgreement:
        """How well the LLM judge agrees with the analysts on the deal."""
        return judge_vs_analysts.judge_agreement(self.lab.store, group_id, grades)

    # --- grading on Compare (inplace.py) ---

    async def grade_in_place(
        self, group_id: str, query: str, result: Result, reviewer: str, grade: int
    ) -> inplace.InPlaceGrade:
        return await inplace.grade_in_place(self.lab, group_id, query, result, reviewer, grade)

    def compare_grades(self, group_id: str, query: str, reviewer: str) -> dict[str, RelevanceRecord]:
        """fact uuid -> the reviewer's grade of it for `query`, given on Compare."""
        return inplace.compare_grades(self.lab.store, group_id, query, reviewer)

    # --- the source's supporting sentence (highlight.py) ---

    find_span = staticmethod(highlight.find_span)
    to_html = staticmethod(highlight.to_html)
