"""Where judgments come from: pluggable sources, each turning a deal into an `EvalSet`.

A source is any `async (lab, group_id) -> EvalSet | None` registered under a name. Built in:

- `labelled`: the deal's default stored query set (`pipeline.query_sets`: its own set, the demo deal's 54
  labelled queries or what `import-beir` brought in; else its oldest, e.g. one from `import-queries`).

- `set:NAME`: any stored set of the deal by name (imported sets, verdicts frozen into a set); each set other
  than the default is listed as one by `available_eval_sets`.

- `verdicts`: analysts' spot-check relevance grades (pipeline/spotcheck, "does the fact answer the query?",
  0-3), as `verdict_judgments` reads them (the adjudicated grade, else the reviewers' lower median).

- `judge`: an LLM judge's grades (`python -m pipeline judge`), and `verdicts+judge`: the analysts' grades, the
  judge's where no analyst graded the pair. Either is used only when the judge agrees with the analysts at or
  above RETRIEVAL_LAB_JUDGE_MIN_KAPPA (`judge_agreement`), unless the caller trusts it anyway (`trust_judge`);
  the agreement travels with the set (`EvalSet.judge`) to be shown beside its metrics.

Any other source registers with `register_judgment_source(name, label, fn)`; the sweep, the CLI
(`--judgments NAME`) and the page pick it up as is.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.evaluation.records import SET_PREFIX
from pipeline.query_sets import QuerySet, list_query_sets, load_query_set
from pipeline.query_sets.records import OWN_SET_NAME
from pipeline.query_sets.verdicts import verdict_queries
from pipeline.spotcheck.judge_agreement import JudgeAgreement, judge_agreement
from pipeline.spotcheck.reviewers import GradeSource
from pipeline.spotcheck.verdicts import deal_grades

if TYPE_CHECKING:
    from pipeline.lab import Lab


@dataclass(frozen=True)
class EvalQuery:
    id: str
    text: str
    type: str
    split: str = ""


@dataclass(frozen=True)
class EvalSet:
    source: str  # the registered source name
    label: str
    group_id: str
    queries: tuple[EvalQuery, ...]
    qrels: dict[str, dict[str, int]] = field(repr=False)  # query id -> fact uuid -> grade
    judge: JudgeAgreement | None = None  # the LLM judge's agreement with analysts, when its grades are in it

    @property
    def scorable(self) -> tuple[EvalQuery, ...]:
        """Queries with at least one relevant (grade >= 1) judgment: only those can be scored."""
        return tuple(q for q in self.queries if any(g >= 1 for g in self.qrels.get(q.id, {}).values()))

    @property
    def type_mix(self) -> dict[str, int]:
        return dict(Counter(q.type for q in self.queries).most_common())

    @property
    def splits(self) -> dict[str, int]:
        return dict(Counter(q.split for q in self.queries if q.split).most_common())

    @property
    def judgments(self) -> int:
        return sum(len(j) for j in self.qrels.values())

    def select(
        self, split: str | None = None, limit: int | None = None, sample: int | None = None, seed: int = 0
    ) -> EvalSet:
        """The scorable queries, optionally of one split, optionally a seeded random `sample` of them (all when
        fewer; the same seed picks the same queries, kept in the set's order), optionally the first `limit`."""
        queries = self.scorable
        if split:
            if split not in self.splits:
                known = ", ".join(self.splits) or "none"
                raise InvalidInput(f"The query set has no split {split!r} (splits: {known}).")
            queries = tuple(q for q in queries if q.split == split)
        if sample is not None and sample < len(queries):
            if sample < 1:
                raise InvalidInput(f"--sample must be at least 1 (0: every query); got {sample}.")
            picked = sorted(random.Random(seed).sample(range(len(queries)), sample))
            queries = tuple(queries[i] for i in picked)
        if limit is not None:
            if limit < 1:
                raise InvalidInput(f"--limit-queries must be at least 1; got {limit}.")
            queries = queries[:limit]
        ids = {q.id for q in queries}
        qrels = {q: j for q, j in self.qrels.items() if q in ids}
        return EvalSet(self.source, self.label, self.group_id, queries, qrels, self.judge)

    def summary(self) -> dict[str, object]:
        return {
            "source": self.source,
            "label": self.label,
            "group": self.group_id,
            "queries": len(self.queries),
            "scorable": len(self.scorable),
            "judgments": self.judgments,
            "type_mix": self.type_mix,
            "splits": self.splits,
            **({"judge_agreement": self.judge.text()} if self.judge else {}),
        }


JudgmentSource = Callable[["Lab", str], Awaitable["EvalSet | None"]]  # Lab: for annotations only (it sits above)
_SOURCES: dict[str, tuple[str, JudgmentSource]] = {}


def register_judgment_source(name: str, label: str, source: JudgmentSource) -> None:
    """Add (or replace) a source of judgments; `label` is what the page and CLI show."""
    _SOURCES[name] = (label, source)


def judgment_sources() -> dict[str, str]:
    """name -> label of every registered source."""
    return {name: label for name, (label, _) in _SOURCES.items()}


async def load_eval_set(lab: Lab, group_id: str, source: str = "labelled", trust_judge: bool = False) -> EvalSet:
    """The deal's judgments from `source`, or InvalidInput saying what is missing (or that the LLM judge in it
    agrees too little with the analysts, unless `trust_judge`)."""
    if source not in _SOURCES and not source.startswith(SET_PREFIX):
        raise InvalidInput(
            f"Unknown judgments source {source!r}; choose one of: {', '.join(_SOURCES)}, or {SET_PREFIX}NAME."
        )
    await lab.deal(group_id)
    if source.startswith(SET_PREFIX):
        found = _stored_set(lab, group_id, source.removeprefix(SET_PREFIX))
        what = f"query set named {source.removeprefix(SET_PREFIX)!r}"
    else:
        found = await _SOURCES[source][1](lab, group_id)
        what = _SOURCES[source][0].lower()
    if found is None or not found.scorable:
        names = ", ".join(f"{SET_PREFIX}{s.name}" for s in list_query_sets(lab.store, group_id)) or "none"
        raise InvalidInput(
            f"Deal {group_id!r} has no {what} to evaluate with (its stored sets: {names}; seed the demo deal, "
            "import a BEIR-style set with `python -m pipeline import-beir` or a query set with "
            "`python -m pipeline import-queries`)."
        )
    threshold = lab.settings.judge_min_kappa
    if found.judge is not None and not trust_judge and not found.judge.trusted(threshold):
        raise InvalidInput(
            f"{found.judge.text()}; below the {threshold:.2f} this deployment trusts "
            "(RETRIEVAL_LAB_JUDGE_MIN_KAPPA): have analysts grade a calibration sample "
            "(`python -m pipeline pool calibrate`), or use the judge anyway (--trust-judge)."
        )
    return found


async def available_eval_sets(lab: Lab, group_id: str) -> list[EvalSet]:
    """Every source that has judgments for this deal; the deal's stored sets other than its default follow
    the labelled set, as `set:NAME`."""
    sets = []
    for name, (_, source) in _SOURCES.items():
        found = await source(lab, group_id)
        if found is not None and found.scorable:
            sets.append(found)
        if name == "labelled":
            for info in list_query_sets(lab.store, group_id)[1:]:
                if not info.scorable:  # from the listing's counts: an unjudged log of a million lines is not read
                    continue
                stored = _stored_set(lab, group_id, info.name)
                if stored is not None and stored.scorable:
                    sets.append(stored)
    return sets


def _eval_set(query_set: QuerySet, source: str, label: str) -> EvalSet:
    return EvalSet(
        source=source,
        label=label,
        group_id=query_set.group_id,
        queries=tuple(EvalQuery(q.id, q.text, q.type, q.split) for q in query_set.queries),
        qrels={q.id: query_set.judged_uuids(q.id) for q in query_set.queries if q.id in query_set.qrels},
    )


def _stored_set(lab: Lab, group_id: str, name: str) -> EvalSet | None:
    query_set = load_query_set(lab.store, group_id, name)
    if query_set is None:
        return None
    return _eval_set(query_set, f"{SET_PREFIX}{name}", f"Query set {name!r} ({query_set.source})")


async def _labelled(lab: Lab, group_id: str) -> EvalSet | None:
    query_set = load_query_set(lab.store, group_id)
    if query_set is None:
        return None
    named = "" if query_set.name == OWN_SET_NAME else f" ({query_set.name})"
    return _eval_set(query_set, "labelled", f"Labelled query set{named}")


async def _graded(lab: Lab, group_id: str, source: GradeSource) -> EvalSet | None:
    """Relevance grades from spot-check and judging pools (support verdicts never count here)."""
    grades = deal_grades(lab.store, group_id)
    judged = grades.source(source)
    if not judged:
        return None
    queries = tuple(EvalQuery(q.id, q.text, q.type, q.split) for q in verdict_queries(lab.store, group_id, judged))
    name, label = GRADE_SOURCES[source]
    judge = judge_agreement(lab.store, group_id, grades) if source != "humans" else None
    return EvalSet(name, label, group_id, queries, judged, judge)


GRADE_SOURCES: dict[GradeSource, tuple[str, str]] = {
    "humans": ("verdicts", "Analyst verdicts"),
    "judge": ("judge", "LLM judge"),
    "humans-then-judge": ("verdicts+judge", "Analysts, then the LLM judge"),
}

register_judgment_source("labelled", "Labelled query set", _labelled)
for _source, (_name, _label) in GRADE_SOURCES.items():
    register_judgment_source(_name, _label, lambda lab, group, s=_source: _graded(lab, group, s))
