"""Where judgments come from: pluggable sources, each turning a deal into an `EvalSet`.

A source is any `async (lab, group_id) -> EvalSet | None` registered under a name. Built in:

- `labelled`: the deal's BEIR-style set (`queries.jsonl` + `qrels.tsv` kept under the data directory):
  the demo deal's 54 labelled queries, or whatever `import-beir` brought in.

- `verdicts`: analysts' citation spot-check verdicts (pipeline/spotcheck), graded by `verdict_judgments`.

Any other source registers with `register_judgment_source(name, label, fn)`; the sweep, the CLI
(`--judgments NAME`) and the page pick it up as is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pipeline.errors import InvalidInput
from pipeline.ingest.query_sets import load_query_set
from pipeline.lab import Lab
from pipeline.spotcheck import verdict_judgments


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

    def select(self, split: str | None = None, limit: int | None = None) -> EvalSet:
        """The scorable queries, optionally of one split, optionally the first `limit` of them."""
        queries = self.scorable
        if split:
            if split not in self.splits:
                known = ", ".join(self.splits) or "none"
                raise InvalidInput(f"The query set has no split {split!r} (splits: {known}).")
            queries = tuple(q for q in queries if q.split == split)
        if limit is not None:
            if limit < 1:
                raise InvalidInput(f"--limit-queries must be at least 1; got {limit}.")
            queries = queries[:limit]
        ids = {q.id for q in queries}
        qrels = {q: j for q, j in self.qrels.items() if q in ids}
        return EvalSet(self.source, self.label, self.group_id, queries, qrels)

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
        }


JudgmentSource = Callable[[Lab, str], Awaitable[EvalSet | None]]
_SOURCES: dict[str, tuple[str, JudgmentSource]] = {}


def register_judgment_source(name: str, label: str, source: JudgmentSource) -> None:
    """Add (or replace) a source of judgments; `label` is what the page and CLI show."""
    _SOURCES[name] = (label, source)


def judgment_sources() -> dict[str, str]:
    """name -> label of every registered source."""
    return {name: label for name, (label, _) in _SOURCES.items()}


async def load_eval_set(lab: Lab, group_id: str, source: str = "labelled") -> EvalSet:
    """The deal's judgments from `source`, or InvalidInput saying what is missing."""
    if source not in _SOURCES:
        raise InvalidInput(f"Unknown judgments source {source!r}; choose one of: {', '.join(_SOURCES)}.")
    await lab.deal(group_id)
    found = await _SOURCES[source][1](lab, group_id)
    if found is None or not found.scorable:
        raise InvalidInput(
            f"Deal {group_id!r} has no {_SOURCES[source][0].lower()} to evaluate with "
            "(seed the demo deal or import a BEIR-style set with `python -m pipeline import-beir`)."
        )
    return found


async def available_eval_sets(lab: Lab, group_id: str) -> list[EvalSet]:
    """Every source that has judgments for this deal."""
    sets = []
    for _, source in _SOURCES.values():
        found = await source(lab, group_id)
        if found is not None and found.scorable:
            sets.append(found)
    return sets


async def _labelled(lab: Lab, group_id: str) -> EvalSet | None:
    data_dir = lab.settings.resolved_data_dir
    query_set = load_query_set(data_dir, group_id)
    if query_set is None:
        return None
    return EvalSet(
        source="labelled",
        label="Labelled query set",
        group_id=group_id,
        queries=tuple(EvalQuery(q.id, q.text, q.type, q.split) for q in query_set.queries),
        qrels={q.id: query_set.judged_uuids(q.id) for q in query_set.queries if q.id in query_set.qrels},
    )


async def _verdicts(lab: Lab, group_id: str) -> EvalSet | None:
    """Analysts' spot-check verdicts as graded judgments (supported 2, partially 1, otherwise 0)."""
    judged = verdict_judgments(lab.store, group_id)
    if not judged:
        return None
    labelled = load_query_set(lab.settings.resolved_data_dir, group_id)
    known = {q.id: q for q in labelled.queries} if labelled else {}
    queries = tuple(
        EvalQuery(key, known[key].text, known[key].type, known[key].split)
        if key in known
        else EvalQuery(key, key, "spot-check")  # an item from a past run: keyed by its query text
        for key in sorted(judged)
    )
    return EvalSet("verdicts", "Analyst verdicts", group_id, queries, judged)


register_judgment_source("labelled", "Labelled query set", _labelled)
register_judgment_source("verdicts", "Analyst verdicts", _verdicts)
