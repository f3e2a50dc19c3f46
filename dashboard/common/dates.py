"""Date inputs that commit on Enter.

Streamlit 1.67's `st.date_input` (react-aria date segments) commits a typed date only when focus leaves the
field for another element: Enter does nothing, and even `element.blur()` does not commit (measured in
chromium: focus must land on another element). This script, mounted once per browser tab, moves focus to an
invisible sink on Enter inside a date field, so Enter commits exactly as a click elsewhere would (a range
commits once both of its dates are complete). It is static text, never built from data.
"""

from __future__ import annotations

import streamlit as st

SINK_ID = "retrieval-lab-date-sink"
_ENTER_COMMITS = f"""
<style>[data-testid="stElementContainer"]:has(script[data-enter-commits-dates]) {{ display: none; }}</style>
<script data-enter-commits-dates>
(() => {{
  if (window.retrievalLabEnterCommitsDates) return;
  window.retrievalLabEnterCommitsDates = true;
  document.addEventListener("keydown", (event) => {{
    if (event.key !== "Enter" || event.isComposing) return;
    if (!event.target.closest || !event.target.closest("[data-testid='stDateInputField']")) return;
    event.preventDefault();
    let sink = document.getElementById("{SINK_ID}");
    if (!sink) {{
      sink = document.createElement("span");
      sink.id = "{SINK_ID}";
      sink.tabIndex = -1;
      sink.style.position = "fixed";
      sink.style.opacity = "0";
      document.body.appendChild(sink);
    }}
    sink.focus();
  }}, true);
}})();
</script>
"""


def enter_commits_dates() -> None:
    """Make Enter commit a typed date in every date input of the page (idempotent: the script installs one
    listener per browser tab, and its element takes no space)."""
    st.html(_ENTER_COMMITS, unsafe_allow_javascript=True)
