"""The admin gate: actions that change the graph are off unless a secret is configured and entered, and
always off on a graph attached read-only (RETRIEVAL_LAB_READ_ONLY, or the deal's read-only setting)."""

from __future__ import annotations

import hmac

import streamlit as st

from dashboard.common.sidebar import DRAWN_KEY
from dashboard.common.text import md
from pipeline.settings import Settings, get_settings

NAME_KEY, SECRET_KEY = "admin.name", "admin.secret"


def _attached_read_only(settings: Settings | None = None) -> str | None:
    """Why the graph, or the sidebar's deal, is attached read-only (the setting's name), or None."""
    if (settings or get_settings()).read_only:
        return "RETRIEVAL_LAB_READ_ONLY"
    drawn = st.session_state.get(DRAWN_KEY)  # this run's (lab, deal), drawn before the page
    if isinstance(drawn, tuple) and len(drawn) == 2:
        lab, deal = drawn
        return lab.backend.read_only_reason(deal.group_id if deal is not None else None)
    return None


def _read_only_text(reason: str) -> str:
    return f"Read-only: this graph is attached read-only ({reason}); admin actions are off."


def admin_actor(settings: Settings) -> str | None:
    """Draw the sidebar admin box; the admin's name when admin actions are unlocked, else None."""
    configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
    with st.sidebar.expander("Admin", icon=":material/admin_panel_settings:"):
        if reason := _attached_read_only(settings):
            st.caption(_read_only_text(reason))
            return None
        if not configured:
            st.caption("Read-only: admin actions are off. Set `RETRIEVAL_LAB_ADMIN_SECRET` to enable them.")
            return None
        name = st.text_input("Your name (kept in the audit log)", key=NAME_KEY).strip()
        secret = st.text_input("Admin secret", type="password", key=SECRET_KEY)
        if not secret:
            st.caption("Enter the admin secret to unlock corrections, merges and undo.")
            return None
        if not hmac.compare_digest(secret.encode(), configured.encode()):
            st.error("Wrong admin secret.")
            return None
        if not name:
            st.warning("Enter your name: every admin action is audited.")
            return None
        st.success(f"Admin actions on for {md(name)}.")
        return name


def read_only_notice() -> None:
    if reason := _attached_read_only():
        st.info(_read_only_text(reason), icon=":material/lock:")
    elif get_settings().admin_secret:
        st.info("Read-only: unlock admin actions in the sidebar to change the graph.", icon=":material/lock:")
    else:
        st.info(
            "Read-only: admin actions are off in this deployment (set `RETRIEVAL_LAB_ADMIN_SECRET` to enable them).",
            icon=":material/lock:",
        )
