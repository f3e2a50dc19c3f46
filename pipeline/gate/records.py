"""What the gate decides on and says: each side's per-query numbers (`Side`), the limits a team sets, each check's
outcome and the verdict, which queries are ranked (`Selection`) and an accepted baseline (`StoredBaseline`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.evaluation.coverage import JudgmentKind
from pipeline.evaluation.records import (
    DEFAULT_SAMPLE,
)
from pipeline.retrieval.recipes import CUSTOM
from pipeline.retrieval.setting import Setting

GATE_METRIC = "ndcg@10"  # the default: nDCG of the top 10 of the reranked list, whatever k
MAX_DROP = 0.01  # the default drop a team allows on the metric
# differences this small are float rounding, not a change: a drop of exactly the allowed size (or a judged@k gap of
# exactly COVERAGE_GAP) summed from per-query floats must not fail on a rounding error
TIE = 1e-9
CONFIG_PLACEHOLDER = "SEARCH_CONFIG.json"  # names a custom recipe on a `pool build` line (it reads a config file)


@dataclass(frozen=True)
class Side:
    """One setting measured on the gate's queries, per query id: the metric's value, judged@k and the top k it
    handed on (fact uuids; empty when not known), and the p95 latency over the queries."""

    setting: Setting
    values: dict[str, float]
    judged: dict[str, float] | None  # None: not measured (an experiment saved before judged@k existed)
    top: dict[str, tuple[str, ...]] = field(default_factory=dict)
    p95_ms: float | None = None
    name: str = ""  # how a command line names it (`pool build --setting`); "" -> `command_name(setting)`

    @property
    def arg(self) -> str:
        return self.name or command_name(self.setting)


def command_name(setting: Setting) -> str:
    """The setting as `pool build --setting` reads it; a custom recipe by a placeholder for its config file."""
    if setting.recipe.name == CUSTOM:
        return f"{CONFIG_PLACEHOLDER}:{setting.reranker}:{setting.candidates}:{setting.top_k}"
    return setting.text


@dataclass(frozen=True)
class Limits:
    max_drop: float = MAX_DROP  # the largest drop of the metric's mean a team accepts
    p95_budget_ms: float | None = None  # None: latency is not checked


@dataclass(frozen=True)
class Check:
    name: str  # quality, coverage, latency
    passed: bool
    summary: str  # the line after "PASS name: "
    numbers: dict[str, Any]

    @property
    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.summary}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "line": self.line, "numbers": self.numbers}


@dataclass(frozen=True)
class Verdict:
    checks: tuple[Check, ...]

    @property
    def holds(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if not c.passed)

    @property
    def last_line(self) -> str:
        return "gate holds" if self.holds else f"gate fails: {', '.join(self.failed)}"


@dataclass(frozen=True)
class Selection:
    """Which queries the gate ranks: a judgments source and how a sweep picks from it (as `eval` does), or exactly
    the queries a stored baseline was measured on (`query_ids`; then split and sample are only recorded)."""

    judgments: str = "labelled"
    split: str | None = None
    sample: int | None = DEFAULT_SAMPLE  # None: every query
    seed: int = 0
    trust_judge: bool = False
    as_of: str | None = None
    include_superseded: bool = False
    query_ids: tuple[str, ...] | None = None

    def words(self, ranked: int) -> str:
        """e.g. "labelled, split test, sample 150, seed 0"; `ranked`: the queries ranked (fewer than a sample: all)."""
        parts = [self.judgments]
        if self.split:
            parts.append(f"split {self.split}")
        sampled = self.sample is not None and ranked >= self.sample
        parts.append(f"sample {self.sample}, seed {self.seed}" if sampled else "every query")
        if self.as_of:
            parts.append(f"as of {self.as_of}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "judgments": self.judgments,
            "split": self.split,
            "sample": self.sample,
            "seed": self.seed,
            "trust_judge": self.trust_judge,
            "as_of": self.as_of,
            "include_superseded": self.include_superseded,
        }


@dataclass(frozen=True)
class StoredBaseline:
    """An accepted baseline, as `--save-baseline` writes it: the setting's per-query numbers on its queries, the
    judgments version they were scored on (`fingerprint.judgments_version`) and how the queries were picked."""

    group_id: str
    metric: str
    side: Side
    kind: JudgmentKind
    judgments: dict[str, Any]
    selection: Selection
    saved_at: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)  # the software and models it ran with (`manifest.py`)
