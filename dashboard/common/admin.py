"""The admin gate: actions that change the graph are off unless a secret is configured and entered, and
always off on a graph attached read-only (RETRIEVAL_LAB_READ_ONLY, or the deal's read-only setting).

Wrong secrets are throttled per data directory (pipeline/admin/unlock.py). The secret stays in its box
across reruns, so each entered value is checked once: a session remembers the digest of the value that
unlocked it and of the last wrong one, and only a new value reaches the throttle.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from dashboard.common.sidebar import DRAWN_KEY
from dashboard.common.text import md
from pipeline.admin.unlock import UnlockResult, secrets_match, try_unlock
from pipeline.settings import Settings, get_settings
from pipeline.store import open_store

NAME_KEY, SECRET_KEY = "admin.name", "admin.secret"
UNLOCKED_KEY, FAILED_KEY = "admin.unlocked_digest", "admin.failed"  # digest; (digest, UnlockResult)


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
        if not _unlocked(settings, secret, configured, name):
            return None
        if not name:
            st.warning("Enter your name: every admin action is audited.")
            return None
        st.success(f"Admin actions on for {md(name)}.")
        return name


def _unlocked(settings: Settings, secret: str, configured: str, name: str) -> bool:
    """Whether `secret` unlocks admin actions; a value not seen before in this session goes through the
    throttle (counted and audited when wrong), and the one-line reason is shown when it does not."""
    digest = hashlib.sha256(secret.encode()).hexdigest()
    if st.session_state.get(UNLOCKED_KEY) == digest and secrets_match(secret, configured):
        return True
    failed = st.session_state.get(FAILED_KEY)
    if isinstance(failed, tuple) and failed[0] == digest and isinstance(failed[1], UnlockResult):
        st.error(failed[1].message)  # the same wrong value still in the box: not counted again
        return False
    result = try_unlock(open_store(settings.resolved_data_dir), secret, configured, name)
    if result.ok:
        st.session_state[UNLOCKED_KEY] = digest
        st.session_state.pop(FAILED_KEY, None)
        return True
    st.session_state.pop(UNLOCKED_KEY, None)
    if result.wait_s > 0:  # refused unchecked: the same value may be tried again once the wait is over
        st.error(result.message)
    else:
        st.session_state[FAILED_KEY] = (digest, result)
        st.error(result.message)
    return False


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
