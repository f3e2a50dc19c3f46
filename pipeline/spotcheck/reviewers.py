"""Who answered: analysts by their own names, an LLM judge as `judge:<model>`.

The prefix is reserved: an analyst cannot take a name starting with it, so a judge's grades are always told
apart from the humans' (agreement between them, the judgment sources "humans", "judge", "humans then judge").
"""

from __future__ import annotations

from typing import Literal

JUDGE_PREFIX = "judge:"
GradeSource = Literal["humans", "judge", "humans-then-judge"]


def judge_reviewer(model: str) -> str:
    return f"{JUDGE_PREFIX}{model}"


def is_judge(reviewer: str) -> bool:
    return reviewer.strip().casefold().startswith(JUDGE_PREFIX)
