"""What a reader sees of text the dashboard escaped (dashboard/common/text.py), for tests that read AppTest
values (the raw Markdown source) or Plotly specs (the escaped chart text)."""

from __future__ import annotations

import html
import re

from dashboard.common.text import ZWSP

ASCII_PUNCT = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: str) -> str:
    """Markdown source holding only text and backslash escapes, as displayed (escapes and the zero-width
    spaces put inside URLs gone)."""
    return ASCII_PUNCT.sub(r"\1", markdown).replace(ZWSP, "")


def chart_shown(text: str) -> str:
    """Plotly text escaped with entities, as displayed."""
    return html.unescape(text)
