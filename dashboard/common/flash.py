"""The one-line outcome of an action, kept in session state across the rerun that follows it."""

from __future__ import annotations

from typing import Literal

import streamlit as st

Kind = Literal["success", "error"]
ICONS: dict[Kind, str] = {"success": ":material/check_circle:", "error": ":material/error:"}


def flash(key: str, message: str, kind: Kind = "success") -> None:
    """Keep `message` under `key` for the page's next run (`show_flash(key)` shows it there)."""
    st.session_state[key] = (kind, message)


def show_flash(key: str, icon: bool = True) -> None:
    """Show the message kept under `key`, once."""
    kept = st.session_state.pop(key, None)
    if kept:
        kind, message = kept
        (st.success if kind == "success" else st.error)(message, icon=ICONS[kind] if icon else None)
