"""Grading a Compare card in place: four buttons with the rubric's grades (0-3), the reviewer's grade on record,
and a hint when nobody has judged the fact for this query.

A click records the grade at once, in an `on_click` callback (`pipeline.spotcheck.inplace`: the reviewer's
relevance answer on the deal's "Graded on Compare" queue), and forgets the query's judgments kept for the page,
so the run that follows scores both sides with it. Its message, or a failure in one line, is shown on that run
(the Spot-check page's `safely`)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.common.grading import button_label, grade_help, grade_label, rubric_line
from dashboard.common.runtime import run
from dashboard.common.text import md
from dashboard.spotcheck.actions import safely, show_messages
from pipeline.api import Lab
from pipeline.api.models import RELEVANCE, RelevanceRecord, Result

NO_NAME = "Enter your name (reviewer) above to grade the cards: the grade buttons are off until then."


def grading_header(reviewer: str) -> None:
    """The last grade's message, and what the grades mean (or, without a name, why the buttons are off)."""
    show_messages()
    st.caption(f"Grade a card's fact for this query: {rubric_line()}." if reviewer else NO_NAME)


def _grade(
    lab: Lab, group_id: str, query: str, result: Result, reviewer: str, grade: int, after: Callable[[], None]
) -> str:
    graded = run(lab.spotcheck.grade_in_place(group_id, query, result, reviewer, grade))
    after()
    again = f" (revision {graded.relevance.revision})" if graded.relevance.revision > 1 else ""
    return f"Recorded relevance **{grade_label(grade)}** for “{md(result.ranked.candidate.fact, 80)}”{again}."


def grade_row(
    lab: Lab,
    group_id: str,
    query: str,
    result: Result,
    key: str,
    reviewer: str,
    mine: RelevanceRecord | None,
    judged: bool,
    after: Callable[[], None],
) -> None:
    """The card's grade buttons (this reviewer's grade lit) and a line: their grade, or that nobody judged it."""
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        for grade in RELEVANCE:
            st.button(
                button_label(grade),
                key=f"{key}.grade.{grade}",
                help=grade_help(grade),
                disabled=not reviewer or not result.citations,
                type="primary" if mine is not None and mine.grade == grade else "secondary",
                on_click=safely,
                args=(lambda g=grade: _grade(lab, group_id, query, result, reviewer, g, after),),
            )
    said = [
        f"Your grade: **{grade_label(mine.grade)}** (revision {mine.revision})" if mine is not None else "",
        "" if judged else ":gray[unjudged: nobody has graded this fact for this query yet]",
        "" if result.citations else "no citation: a grade needs one",
    ]
    if any(said):
        st.caption(" · ".join(s for s in said if s))
