"""What a loader reports while it works, and the lines a terminal shows for it.

A loader reports a `Step` once its files are read and checked (so a refusal stays one line), then as each phase
starts and as each batch ends: embedding (entity names, then facts batch by batch), writing to the graph.
`ProgressLines` prints one line a step, timed from the moment the command started, with each rate measured over
the real time since that kind of item was first reported: no bar whose clock starts at its first update (which
printed "500/3190 [00:00, 83886080.00facts/s]" after 80 silent seconds).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Phase = Literal["reading", "embedding", "writing"]


@dataclass(frozen=True)
class Step:
    phase: Phase
    what: str  # "facts", "entity names", "episodes and entities", or the files being read
    done: int = 0  # items of `what` finished in this phase so far
    total: int = 0  # 0: nothing counted


Report = Callable[[Step], None]


def facts_written(step: Step) -> bool:
    """The step that counts a deal's import progress: a batch of facts is in the graph."""
    return step.phase == "writing" and step.what == "facts"


class ProgressLines:
    """Turns steps into lines: "import tatqa   81.2 s  writing facts: 500 of 3,190 (15%), 6.2 facts/s, ~7 min
    left". `clock` is a monotonic clock in seconds (a test passes a fake one); `since` is the clock's reading
    when the command started (else now), so the time printed includes opening the graph and the model."""

    def __init__(
        self,
        label: str,
        write: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        since: float | None = None,
    ):
        self._label, self._write, self._clock = label, write, clock
        self._start = clock() if since is None else since
        self._began: dict[str, float] = {}  # when each kind of item was first reported: its rate counts from there

    def __call__(self, step: Step) -> None:
        now = self._clock()
        began = self._began.setdefault(step.what, now)
        counts = self._counts(step, now - began)
        self._write(f"{self._label} {now - self._start:7.1f} s  {step.phase} {step.what}{counts}")

    @staticmethod
    def _counts(step: Step, seconds: float) -> str:
        if step.total <= 0:
            return ""
        text = f": {step.done:,} of {step.total:,} ({100 * step.done // step.total}%)"
        if step.done <= 0 or seconds <= 0:  # no time has passed on these items yet: no rate to state
            return text
        rate = step.done / seconds
        text += f", {rate:,.1f} {step.what}/s"
        left = (step.total - step.done) / rate
        if left > 0:
            text += f", ~{_duration(left)} left"
        return text


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
