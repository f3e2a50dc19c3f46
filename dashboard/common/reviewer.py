"""The reviewer's name, one box shared by the pages where analysts grade (Spot-check, Compare).

Both pages draw the same widget under the same key, bound to the URL (`?spotcheck.reviewer=`), so a name
entered on either page is the one the other shows."""

from __future__ import annotations

import streamlit as st

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
