"""Reviewers' answers on queue items: record (one transaction each), summarise, agree, adjudicate, export, judge.

Each card asks two questions:
- relevance, "Does the fact answer the query?": a grade 0-3 (`RELEVANCE`), the judgment Evaluate uses;
- support, "Does the cited source support the fact?": a verdict (`VERDICTS`), the faithfulness figure.
Fact-sample items (no query) ask only the support question. A reviewer may answer one or both.

One answer per (item, reviewer, question), reviewer names compared case-insensitively. A second answer by
the same reviewer updates theirs (revision + 1, `updated_at`); every recorded answer is also appended to its
history table. Two reviewers never overwrite each other. Verdicts recorded before migration 0012 are
support verdicts (they always were): they count as support, never as relevance.

Adjudication: where reviewers disagree (relevance grades 2 or more apart, or different support verdicts)
an adjudicator records the final answer (audited); from then on it is the item's only answer to that
question in the rates and the judgments. An adjudicator is an unlocked admin or a name listed in
RETRIEVAL_LAB_ADJUDICATORS, and never a party to the disagreement: whoever answered the item cannot settle it.

Relevance judgments (`verdict_judgments`): per (query, fact), the adjudicated grade when one was recorded,
else the lower median of the reviewers' grades (`statistics.median_low`: one 3 and one 1 give 1; 3, 2, 0
give 2; a split between two reviewers is read the cautious way). A fact cited by several items of the
same query pools them. Queries are keyed by their labelled id ("q01") when the item came from the labelled
query set, else by the query text. Support verdicts and fact samples give no judgment.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from pipeline.csv_cells import dicts_to_csv
from pipeline.errors import InvalidInput
from pipeline.settings import MAX_PERSON_NAME
from pipeline.spotcheck.agreement import Agreement, agreement
from pipeline.spotcheck.rates import Rate
from pipeline.spotcheck.records import AdjudicationRecord, RelevanceRecord, VerdictRecord, VerdictRow, clean_name
from pipeline.spotcheck.repo_answers import save_adjudication, save_relevance, save_verdict, verdict_rows
from pipeline.spotcheck.reviewers import JUDGE_PREFIX, GradeSource, is_judge
from pipeline.store.db import Store

Verdict = Literal["supported", "partially_supported", "not_supported", "wrong_source"]
VERDICTS: dict[str, str] = {
    "supported": "Supported",
    "partially_supported": "Partially supported",
    "not_supported": "Not supported",
    "wrong_source": "Wrong source",
}
RELEVANCE: dict[int, str] = {0: "Not relevant", 1: "Related", 2: "Relevant", 3: "Answers it"}
RELEVANCE_MEANING: dict[int, str] = {
    0: "has nothing to do with the query",
    1: "on the query's topic, but does not help answer it",
    2: "helps answer the query, but not on its own",
    3: "answers the query on its own",
}
RELEVANT_GRADE = 2  # grade >= 2 counts as relevant in the rates (the judgments keep the grade)
QUESTIONS = {"relevance": "Does the fact answer the query?", "support": "Does the cited source support the fact?"}
MAX_NOTE = 2000
MAX_REVIEWER = MAX_PERSON_NAME


def clean_reviewer(name: str) -> str:
    """An analyst's name; the LLM judge's prefix is reserved (its grades must never pass for a human's)."""
    cleaned = clean_name(name, "reviewer name", MAX_REVIEWER)
    if is_judge(cleaned):
        raise InvalidInput(f"Reviewer names starting with {JUDGE_PREFIX!r} are the LLM judge's: pick another name.")
    return cleaned


def _clean_note(note: str) -> str:
    note = (note or "").strip()
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"The note is {len(note):,} characters long; the limit is {MAX_NOTE:,}.")
    return note


def check_grade(grade: object) -> int:
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in RELEVANCE:
        raise InvalidInput(f"Unknown relevance grade {grade!r}; one of: 0, 1, 2, 3.")
    return grade


def _check_verdict(verdict: str) -> str:
    if verdict not in VERDICTS:
        raise InvalidInput(f"Unknown verdict {verdict!r}; one of: {', '.join(VERDICTS)}.")
    return verdict


def record_verdict(store: Store, item_id: int, reviewer: str, verdict: str, note: str = "") -> VerdictRecord:
    """Insert or update this reviewer's support verdict on the item (with its history): one transaction."""
    reviewer = clean_reviewer(reviewer)
    return save_verdict(store, item_id, reviewer, _check_verdict(verdict), _clean_note(note))


def record_relevance(store: Store, item_id: int, reviewer: str, grade: int, note: str = "") -> RelevanceRecord:
    """Insert or update this reviewer's relevance grade (0-3) on the item (with its history): one transaction."""
    reviewer = clean_reviewer(reviewer)
    return save_relevance(store, item_id, reviewer, check_grade(grade), _clean_note(note))


def may_adjudicate(name: str, *, admin: bool, adjudicators: Collection[str]) -> bool:
    """An unlocked admin (`admin`: the dashboard's gate vouches for the name) or a name listed in
    RETRIEVAL_LAB_ADJUDICATORS (case-insensitive) may record final answers."""
    return admin or name.strip().casefold() in {a.strip().casefold() for a in adjudicators}


def adjudicate(
    store: Store,
    item_id: int,
    question: str,
    answer: int | str,
    adjudicator: str,
    note: str = "",
    *,
    admin: bool = False,
    adjudicators: Collection[str] = (),
) -> AdjudicationRecord:
    """Record the final answer to `question` on the item (audited as `spotcheck.adjudicated`), when
    `may_adjudicate` allows it and the adjudicator answered neither question on the item."""
    adjudicator = clean_name(adjudicator, "adjudicator name", MAX_REVIEWER)
    if not may_adjudicate(adjudicator, admin=admin, adjudicators=adjudicators):
        raise InvalidInput(
            f"{adjudicator} may not adjudicate: unlock admin actions, or be listed in RETRIEVAL_LAB_ADJUDICATORS."
        )
    if question == "relevance":
        value = str(check_grade(answer))
    elif question == "support":
        value = _check_verdict(str(answer))
    else:
        raise InvalidInput(f"Unknown question {question!r}; one of: relevance, support.")
    return save_adjudication(store, item_id, question, value, adjudicator, _clean_note(note))


# --- what counts: each item's answers to one question -------------------------------------------------


def _by_item(rows: Sequence[VerdictRow]) -> dict[int, list[VerdictRow]]:
    by_item: dict[int, list[VerdictRow]] = defaultdict(list)
    for row in rows:
        by_item[row.item_id].append(row)
    return by_item


def counted_support(item_rows: Sequence[VerdictRow]) -> list[str]:
    """The item's support answers that count: the adjudicated one alone, else each reviewer's."""
    final = item_rows[0].final_support
    return [final] if final else [r.support for r in item_rows if r.support]


def counted_relevance(item_rows: Sequence[VerdictRow]) -> list[int]:
    """The item's relevance grades that count: the adjudicated one alone, else each reviewer's."""
    final = item_rows[0].final_relevance
    return [final] if final is not None else [r.relevance for r in item_rows if r.relevance is not None]


# --- summaries -----------------------------------------------------------------------------------------


CSV_COLUMNS = tuple(VerdictRow.__dataclass_fields__)


def export_csv(rows: Iterable[VerdictRow]) -> str:
    """One CSV row per (item, reviewer), both answers as columns, with a header (cells made safe for
    spreadsheets)."""
    return dicts_to_csv((asdict(row) for row in rows), CSV_COLUMNS)


@dataclass(frozen=True)
class RateRow:
    """Support verdicts of one channel / document (or all)."""

    key: str
    verdicts: int
    counts: dict[str, int]  # verdict -> count

    @property
    def supported(self) -> Rate:
        return Rate(self.counts.get("supported", 0), self.verdicts)

    @property
    def supported_rate(self) -> float:
        return self.supported.value


@dataclass(frozen=True)
class RelevanceRow:
    """Relevance grades of one scope."""

    key: str
    answers: int
    counts: dict[int, int]  # grade -> count

    @property
    def relevant(self) -> Rate:
        """Grade 2 or 3 (relevant or answers it)."""
        return Rate(sum(n for g, n in self.counts.items() if g >= RELEVANT_GRADE), self.answers)

    @property
    def answering(self) -> Rate:
        """Grade 3 (answers it)."""
        return Rate(self.counts.get(3, 0), self.answers)


@dataclass(frozen=True)
class Summary:
    rows: int  # (item, reviewer) pairs with an answer
    reviewers: int
    items_reviewed: int
    adjudicated: int  # items with at least one adjudicated answer
    overall: RateRow  # support
    by_channel: tuple[RateRow, ...]
    by_document: tuple[RateRow, ...]
    relevance: RelevanceRow
    relevance_agreement: Agreement
    support_agreement: Agreement


def _support_rates(groups: Sequence[Sequence[VerdictRow]], key: str) -> RateRow:
    answers = [v for item_rows in groups for v in counted_support(item_rows)]
    return RateRow(key, len(answers), {v: answers.count(v) for v in VERDICTS})


def summarise(rows: Sequence[VerdictRow]) -> Summary:
    """Supported rate = supported / support answers counted (each reviewer's verdict once, or the adjudicated
    one alone); relevant rate likewise over relevance grades. Each with its 95% Wilson interval."""
    by_item = _by_item(rows)
    by_channel: dict[str, list[list[VerdictRow]]] = defaultdict(list)
    by_document: dict[str, list[list[VerdictRow]]] = defaultdict(list)
    for item_rows in by_item.values():
        by_channel[item_rows[0].channel].append(item_rows)
        by_document[item_rows[0].document_name or "(no document)"].append(item_rows)
    grades = [g for item_rows in by_item.values() for g in counted_relevance(item_rows)]
    return Summary(
        rows=len(rows),
        reviewers=len({r.reviewer.casefold() for r in rows}),
        items_reviewed=len(by_item),
        adjudicated=sum(1 for r in by_item.values() if r[0].final_relevance is not None or r[0].final_support),
        overall=_support_rates(list(by_item.values()), "all"),
        by_channel=tuple(
            _support_rates(v, k) for k, v in sorted(by_channel.items()) if any(counted_support(i) for i in v)
        ),
        by_document=tuple(
            _support_rates(v, k) for k, v in sorted(by_document.items()) if any(counted_support(i) for i in v)
        ),
        relevance=RelevanceRow("all", len(grades), {g: grades.count(g) for g in RELEVANCE}),
        relevance_agreement=reviewer_agreement(rows, "relevance"),
        support_agreement=reviewer_agreement(rows, "support"),
    )


def reviewer_agreement(rows: Sequence[VerdictRow], question: Literal["relevance", "support"]) -> Agreement:
    """Agreement between the reviewers' own answers (before adjudication) to one question."""
    order = list(RELEVANCE) if question == "relevance" else list(range(len(VERDICTS)))
    index = {v: i for i, v in enumerate(VERDICTS)}
    value: Callable[[VerdictRow], int | None] = (
        (lambda r: r.relevance) if question == "relevance" else (lambda r: index.get(r.support or ""))
    )
    answers: dict[int, dict[str, int]] = defaultdict(dict)
    names: dict[str, str] = {}
    for row in rows:
        answer = value(row)
        if answer is not None:
            answers[row.item_id][row.reviewer.casefold()] = answer
            names.setdefault(row.reviewer.casefold(), row.reviewer)
    return agreement(answers, question, order, names)


# --- the adjudication queue ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    item_id: int
    queue_name: str
    position: int
    query: str
    fact: str
    document_name: str
    answers: tuple[tuple[str, int | None, str | None, str], ...]  # (reviewer, grade, verdict, note)
    relevance_split: bool  # grades 2 or more apart
    support_split: bool  # different verdicts
    final_relevance: int | None
    final_support: str | None

    @property
    def settled(self) -> bool:
        """Every split question has its adjudicated answer."""
        return (not self.relevance_split or self.final_relevance is not None) and (
            not self.support_split or self.final_support is not None
        )


def disagreements(rows: Sequence[VerdictRow]) -> list[Disagreement]:
    """Items on which reviewers disagree: relevance grades 2 or more apart, or different support verdicts;
    open ones (a split question without its final answer) first, then by queue and position."""
    out = []
    for item_rows in _by_item(rows).values():
        grades = [r.relevance for r in item_rows if r.relevance is not None]
        relevance_split = len(grades) > 1 and max(grades) - min(grades) >= 2
        support_split = len({r.support for r in item_rows if r.support}) > 1
        if relevance_split or support_split:
            first = item_rows[0]
            out.append(
                Disagreement(
                    first.item_id,
                    first.queue_name,
                    first.position,
                    first.query,
                    first.fact,
                    first.document_name,
                    tuple((r.reviewer, r.relevance, r.support, r.note) for r in item_rows),
                    relevance_split,
                    support_split,
                    first.final_relevance,
                    first.final_support,
                )
            )
    return sorted(out, key=lambda d: (d.settled, d.queue_name, d.position))


# --- relevance judgments -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grades:
    """A deal's relevance grades, read once: query id (labelled set) or query text -> {fact uuid: grade}."""

    humans: dict[str, dict[str, int]]  # the analysts' (an adjudicated grade counts as theirs)
    judge: dict[str, dict[str, int]]  # the LLM judge's

    def source(self, source: GradeSource) -> dict[str, dict[str, int]]:
        """The grades of one source; "humans-then-judge" takes the judge's where no analyst graded the pair."""
        if source == "humans":
            return self.humans
        if source == "judge":
            return self.judge
        merged = {query: dict(grades) for query, grades in self.judge.items()}
        for query, grades in self.humans.items():
            merged[query] = {**merged.get(query, {}), **grades}
        return merged


def deal_grades(store: Store, group_id: str) -> Grades:
    """Every relevance answer of the deal, split into the analysts' and the judge's; see the module doc."""
    humans: dict[tuple[str, str], list[int]] = defaultdict(list)
    judge: dict[tuple[str, str], list[int]] = defaultdict(list)
    adjudicated: dict[tuple[str, str], list[int]] = defaultdict(list)
    for item_rows in _by_item(verdict_rows(store, group_id)).values():
        first = item_rows[0]
        if not first.query:
            continue
        key = (first.query_id or first.query, first.fact_uuid)
        if first.final_relevance is not None:
            adjudicated[key].append(first.final_relevance)
        for r in item_rows:
            if r.relevance is not None:
                (judge if is_judge(r.reviewer) else humans)[key].append(r.relevance)
    return Grades(_medians(humans, adjudicated), _medians(judge, {}))


def _medians(
    reviewers: dict[tuple[str, str], list[int]], adjudicated: dict[tuple[str, str], list[int]]
) -> dict[str, dict[str, int]]:
    judgments: dict[str, dict[str, int]] = defaultdict(dict)
    for key in sorted(set(reviewers) | set(adjudicated)):
        grades = adjudicated.get(key) or reviewers.get(key)
        if grades:
            judgments[key[0]][key[1]] = int(statistics.median_low(grades))
    return dict(judgments)


def verdict_judgments(store: Store, group_id: str, source: GradeSource = "humans") -> dict[str, dict[str, int]]:
    """query id (labelled set) or query text -> {fact uuid: grade}, from relevance answers only; see the
    module doc for the rules. `source`: the analysts' grades (an adjudicated grade counts as theirs), the LLM
    judge's, or the analysts' with the judge's where no analyst (nor adjudicator) graded the pair."""
    return deal_grades(store, group_id).source(source)
