"""Where judgments come from: pluggable sources, each turning a deal into an `EvalSet`.

A source is any `async (lab, group_id) -> EvalSet | None` registered under a name. Built in:

- `labelled`: the deal's BEIR-style set (`queries.jsonl` + `qrels.tsv` kept under the data directory):
  the demo deal's 54 labelled queries, or whatever `import-beir` brought in.

Analysts' citation verdicts (the spot-check feature, not built yet) become a second source by calling
`register_judgment_source("verdicts", "Analyst verdicts", fn)` with a function that reads them from the
store and grades the facts; the sweep, the CLI (`--judgments verdicts`) and the page pick it up as is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set


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


def _splits(folder: Path) -> dict[str, str]:
    """query id -> split, read from the stored queries.jsonl (the shared reader keeps only id, text, type)."""
    splits: dict[str, str] = {}
    path = folder / "queries.jsonl"
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                if row.get("split"):
                    splits[str(row.get("_id", row.get("id")))] = str(row["split"])
    return splits


async def _labelled(lab: Lab, group_id: str) -> EvalSet | None:
    data_dir = lab.settings.resolved_data_dir
    query_set = load_query_set(data_dir, group_id)
    if query_set is None:
        return None
    splits = _splits(data_dir / "query_sets" / group_id)
    return EvalSet(
        source="labelled",
        label="Labelled query set",
        group_id=group_id,
        queries=tuple(EvalQuery(q.id, q.text, q.type, splits.get(q.id, "")) for q in query_set.queries),
        qrels={q.id: query_set.judged_uuids(q.id) for q in query_set.queries if q.id in query_set.qrels},
    )


register_judgment_source("labelled", "Labelled query set", _labelled)
