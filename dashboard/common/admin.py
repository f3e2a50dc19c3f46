"""The admin gate: actions that change the graph are off unless a secret is configured and entered."""

from __future__ import annotations

import hmac

import streamlit as st

from pipeline.settings import Settings, get_settings

NAME_KEY, SECRET_KEY = "admin.name", "admin.secret"


def admin_actor(settings: Settings) -> str | None:
    """Draw the sidebar admin box; the admin's name when admin actions are unlocked, else None."""
    configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
    with st.sidebar.expander("Admin", icon=":material/admin_panel_settings:"):
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
        st.success(f"Admin actions on for {name}.")
        return name


def read_only_notice() -> None:
    if get_settings().admin_secret:
        st.info("Read-only: unlock admin actions in the sidebar to change the graph.", icon=":material/lock:")
    else:
        st.info(
            "Read-only: admin actions are off in this deployment (set `RETRIEVAL_LAB_ADMIN_SECRET` to enable them).",
            icon=":material/lock:",
        )
