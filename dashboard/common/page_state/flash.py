"""The one-line outcome of an action, kept in session state across the rerun that follows it, and shown once,
where the page draws the action (never at the top of a long page, off screen)."""

from __future__ import annotations

from typing import Literal

import streamlit as st

Kind = Literal["success", "info", "warning", "error"]
ICONS: dict[Kind, str] = {
    "success": ":material/check_circle:",
    "info": ":material/info:",
    "warning": ":material/warning:",
    "error": ":material/error:",
}


def flash(key: str, message: str, kind: Kind = "success") -> None:
    """Keep `message` (Markdown the caller wrote: data in it escaped) under `key` for the page's next run."""
    st.session_state[key] = (kind, message)


def show_flash(key: str, icon: bool = True) -> None:
    """Show the message kept under `key`, once, in a slot drawn on every run. Were it drawn only with a message,
    everything after it would move one place down the page's element tree and back on the next run, and the
    browser would rebuild those widgets, dropping what the user was typing into them."""
    slot = st.empty()
    kept = st.session_state.pop(key, None)
    if kept:
        kind, message = kept
        getattr(slot, kind)(message, icon=ICONS[kind] if icon else None)
