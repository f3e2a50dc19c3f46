"""What the pages where analysts grade relevance share (Spot-check, Compare): the reviewer's name box and the
rubric's words.

Both pages draw the same name box under the same key, bound to the URL (`?spotcheck.reviewer=`), so a name
entered on either page is the one the other shows."""

from __future__ import annotations

import streamlit as st

from pipeline.api.models import RELEVANCE, RELEVANCE_MEANING

REVIEWER = "spotcheck.reviewer"  # the URL parameter links already carry


def reviewer_input(placeholder: str = "Required before recording verdicts") -> str:
    """The box; the name typed, trimmed (maybe empty)."""
    return st.text_input(
        "Your name (reviewer)",
        key=REVIEWER,
        max_chars=80,
        bind="query-params",
        placeholder=placeholder,
        help="Each verdict is kept under its reviewer's name.",
    ).strip()


def grade_label(grade: int | None) -> str:
    return "—" if grade is None else f"{grade} · {RELEVANCE[grade].lower()}"


def button_label(grade: int) -> str:
    return f"{grade} · {RELEVANCE[grade]}"


def rubric_line() -> str:
    """Every grade with its meaning, on one line (Markdown)."""
    return " · ".join(f"**{g}** {RELEVANCE[g].lower()}: {RELEVANCE_MEANING[g]}" for g in RELEVANCE)


def grade_help(grade: int) -> str:
    return f"{RELEVANCE[grade]}: the fact {RELEVANCE_MEANING[grade]}."
