"""Judging pools as records: what to pool, a stored pool, how far its judging has gone."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Literal

from pipeline.retrieval.setting import Setting

PoolKind = Literal["pool", "calibration"]


@dataclass(frozen=True)
class PoolSpec:
    name: str
    group_id: str
    set_name: str | None  # None: the deal's default set
    settings: tuple[Setting, ...]  # each pooled to its own top k
    created_by: str


@dataclass(frozen=True)
class Pool:
    queue_id: int  # the spot-check queue holding its pairs
    name: str
    group_id: str
    kind: PoolKind
    set_name: str
    settings: tuple[str, ...]  # the pooled settings' labels (empty for a calibration sample)
    pairs: int
    skipped: int  # pairs left out because they were judged already
    of_queue: int | None  # a calibration sample: the pool it was drawn from
    created_by: str
    created_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Pool:
        values = dict(row)
        values["settings"] = tuple(s["label"] for s in json.loads(values["settings"]))
        return cls(**values)

    @property
    def label(self) -> str:
        if self.kind == "calibration":
            return f"calibration sample of pool #{self.of_queue}" if self.of_queue else "calibration sample"
        return f"judging pool of {len(self.settings)} settings on set {self.set_name!r}"


@dataclass(frozen=True)
class PoolProgress:
    pairs: int
    humans: int  # pairs an analyst graded (or whose grade was adjudicated)
    judge: int  # pairs an LLM judge graded

    @property
    def fraction(self) -> float:
        return self.humans / self.pairs if self.pairs else 0.0

    def text(self) -> str:
        judged = f"{self.humans:,} of {self.pairs:,} pairs judged by analysts, {self.fraction:.0%}"
        return f"{judged}; {self.judge:,} graded by the LLM judge" if self.judge else judged
