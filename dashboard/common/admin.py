"""The admin gate: actions that change the graph are off unless a secret is configured and entered, and
always off on a graph attached read-only (RETRIEVAL_LAB_READ_ONLY, or the deal's read-only setting).

The secret is entered once per browser session, on any page: the entry script draws the admin box on every
page (`draw_admin_box`). Once it unlocks, the session keeps the admin's name, the digest of the secret and
an idle deadline under `SESSION_KEY`, outside any widget key (Streamlit drops a widget's state when a page
that does not draw it runs), and the box shows "Admin: <name> · Sign out" instead of the inputs, so the
secret itself leaves the session at the next run. The session ends on "Sign out", after
`RETRIEVAL_LAB_ADMIN_IDLE_MINUTES` without a run, or when the configured secret changes.

A reload starts a new Streamlit session: the unlock survives it through a browser cookie holding a signed,
expiring token (`pipeline/admin/token.py`: the name and an expiry, HMAC-signed under a key derived from the
configured secret, never the secret itself). The cookie, not the URL: a URL is copied and pasted into chats and
tickets, and a token in it would unlock whoever opened the link; a cookie stays in this browser, is sent only to
this site (SameSite=Strict, Secure over https), and expires with the idle timeout. Streamlit reads cookies
(`st.context.cookies`) but cannot set them, so the page sets it with a line of JavaScript (`st.html`); being set
by script it cannot be HttpOnly, which is acceptable because the dashboard renders no HTML from data (text.py).
"Sign out" clears it; a changed secret invalidates every token.

Wrong secrets are throttled per data directory (pipeline/admin/unlock.py). A wrong secret stays in its box
across reruns, so each entered value is checked once: a session remembers the digest of the last wrong one
(and of the right one while the name is missing), and only a new value reaches the throttle.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, replace

import streamlit as st

from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.sidebar import DRAWN_KEY
from dashboard.common.text import md
from pipeline.api import get_settings, open_store, secrets_match, sign, try_unlock, verify
from pipeline.api.models import Settings, UnlockResult

NAME_KEY, SECRET_KEY = "admin.name", "admin.secret"
UNLOCKED_KEY, FAILED_KEY = "admin.unlocked_digest", "admin.failed"  # digest; (digest, UnlockResult)
SESSION_KEY = "admin.session"  # an AdminSession: not a widget key, so it survives page changes
ENDED_KEY = "admin.ended"  # why the last session ended, shown once in the box
SIGN_OUT_KEY = "admin.sign_out"
WELCOME_KEY = "admin.welcome"  # the unlock's one-line outcome, shown once in the run that follows it
COOKIE = "retrieval_lab_admin"  # the browser cookie that keeps the unlock across a reload (see above)
ISSUED_KEY = "admin.cookie_expires"  # the expiry of the token the cookie holds, as this session last wrote it
COOKIE_OP_KEY = "admin.cookie_op"  # what to write to the cookie on this run: ("set", token, max_age) or ("clear",)
REVOKED_KEY = "admin.cookie_revoked"  # the token this session's browser sent, once signed out: never restored


@dataclass(frozen=True)
class AdminSession:
    name: str
    digest: str  # sha256 of the secret that unlocked it: a changed configured secret ends the session
    expires_at: float  # epoch seconds; every run of any page pushes it back by the idle timeout


def _now() -> float:
    return time.time()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


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


def _cookie() -> str | None:
    """The admin cookie the browser sent when this session began (a reload's new session reads it)."""
    try:
        return st.context.cookies.get(COOKIE)
    except Exception:  # no browser behind the session (a bare run): no cookie
        return None


def _restored(settings: Settings) -> AdminSession | None:
    """The session a valid admin cookie carries over a reload: its name, until its expiry."""
    configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
    token = _cookie()
    if not configured or not token or token == st.session_state.get(REVOKED_KEY):
        return None
    kept = verify(token, configured, _now())
    if kept is None:
        return None
    session = AdminSession(kept.name, _digest(configured), kept.expires_at)
    st.session_state[SESSION_KEY] = session
    st.session_state[ISSUED_KEY] = kept.expires_at  # the cookie holds this token already
    return session


def _live_session(settings: Settings) -> AdminSession | None:
    """This browser session's unlocked admin session (or the one its cookie carries over a reload), or None
    (ended by the idle timeout or a changed secret: then it is dropped, and why is kept for the box)."""
    session = st.session_state.get(SESSION_KEY)
    if not isinstance(session, AdminSession):
        return _restored(settings)
    configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
    if not configured or not hmac.compare_digest(session.digest, _digest(configured)):
        why = "the admin secret was changed" if configured else "admin actions were switched off"
    elif _now() > session.expires_at:
        why = f"{settings.admin_idle_minutes:g} min without activity"
    else:
        return session
    st.session_state.pop(SESSION_KEY, None)
    st.session_state[ENDED_KEY] = f"Admin session ended ({why}): enter the secret again."
    return None


def admin_actor(settings: Settings) -> str | None:
    """The admin's name when admin actions are unlocked in this browser session (and the graph and the
    sidebar's deal are writable), else None. The box itself is drawn by the entry script on every page."""
    if _attached_read_only(settings):
        return None
    session = _live_session(settings)
    return session.name if session else None


def draw_admin_box() -> None:
    """The sidebar's admin box, on every page after the sidebar: "Admin: <name> · Sign out" while unlocked
    (each run pushes the idle deadline back), else the name and secret inputs. Nothing while the graph
    backend is down: the page says so, and no admin action can run."""
    drawn = st.session_state.get(DRAWN_KEY)
    if not (isinstance(drawn, tuple) and len(drawn) == 2):
        return
    settings: Settings = drawn[0].settings
    if reason := _attached_read_only(settings):
        with st.sidebar.expander("Admin", icon=":material/admin_panel_settings:"):
            st.caption(_read_only_text(reason))
        return
    session = _live_session(settings)
    if session is None:
        with st.sidebar:
            session = _unlock_form(settings)
            _write_cookie()
        if session is None:
            return
        # the run starts again without the inputs: the secret leaves the session's widget state, and the box
        # is never swapped for another element in a run (the browser would rebuild it and fold the expander)
        _keep(session, settings)
        flash(WELCOME_KEY, f"Admin actions on for {md(session.name)}.")
        st.rerun()
    session = _keep(session, settings)
    with st.sidebar:
        show_flash(WELCOME_KEY)
    left, right = st.sidebar.columns([3, 2], vertical_alignment="center")
    left.markdown(f":material/admin_panel_settings: Admin: **{md(session.name)}**")
    right.button("Sign out", key=SIGN_OUT_KEY, type="tertiary", on_click=sign_out)
    with st.sidebar:
        _write_cookie()


def _keep(session: AdminSession, settings: Settings) -> AdminSession:
    """Store the session with its idle deadline pushed back; the cookie's token is renewed once a quarter of the
    idle timeout has passed since it was written (not on every run), so a reload within the timeout keeps it."""
    idle = 60 * settings.admin_idle_minutes
    session = replace(session, expires_at=_now() + idle)
    st.session_state[SESSION_KEY] = session
    issued = st.session_state.get(ISSUED_KEY)
    if not isinstance(issued, float) or session.expires_at - issued > idle / 4:
        configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
        token = sign(session.name, session.expires_at, configured)
        st.session_state[COOKIE_OP_KEY] = ("set", token, max(1, int(session.expires_at - _now())))
        st.session_state[ISSUED_KEY] = session.expires_at
    return session


def _write_cookie() -> None:
    """A slot drawn on every run of the box (the elements after it keep their places), holding, on a run that
    must change the cookie, the line of script that does."""
    slot = st.empty()
    op = st.session_state.pop(COOKIE_OP_KEY, None)
    if op is None:
        return
    if op[0] == "set":
        value, attributes = op[1], f"Max-Age={op[2]}"
    else:
        value, attributes = "", "Max-Age=0"
    # the token is base64url and a dot: nothing in it can end the string or the script
    script = (
        f'document.cookie = "{COOKIE}={value}; {attributes}; Path=/; SameSite=Strict"'
        ' + (location.protocol === "https:" ? "; Secure" : "");'
    )
    slot.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def sign_out() -> None:
    """End the admin session (the name stays in its box for the next unlock) and clear the cookie that would
    carry it over a reload."""
    session = st.session_state.pop(SESSION_KEY, None)
    for key in (UNLOCKED_KEY, FAILED_KEY, SECRET_KEY, ISSUED_KEY):
        st.session_state.pop(key, None)
    if isinstance(session, AdminSession):
        st.session_state[NAME_KEY] = session.name
    if token := _cookie():  # sent when this session began: not to be restored again in it
        st.session_state[REVOKED_KEY] = token
    st.session_state[COOKIE_OP_KEY] = ("clear",)


def _unlock_form(settings: Settings) -> AdminSession | None:
    """Name and secret inputs; a new AdminSession when they unlock admin actions."""
    configured = settings.admin_secret.get_secret_value() if settings.admin_secret else ""
    ended = st.session_state.pop(ENDED_KEY, None)
    with st.expander("Admin", icon=":material/admin_panel_settings:", expanded=bool(ended)):
        if not configured:
            st.caption("Read-only: admin actions are off. Set `RETRIEVAL_LAB_ADMIN_SECRET` to enable them.")
            return None
        if ended:
            st.warning(ended, icon=":material/timer_off:")
        name = st.text_input("Your name (kept in the audit log)", key=NAME_KEY).strip()
        secret = st.text_input("Admin secret", type="password", key=SECRET_KEY)
        if not secret:
            st.caption("Enter the admin secret once: it unlocks corrections, merges and undo on every page.")
            return None
        if not _unlocked(settings, secret, configured, name):
            return None
        if not name:
            st.warning("Enter your name: every admin action is audited.")
            return None
    st.session_state.pop(UNLOCKED_KEY, None)
    return AdminSession(name, _digest(secret), 0.0)


def _unlocked(settings: Settings, secret: str, configured: str, name: str) -> bool:
    """Whether `secret` unlocks admin actions; a value not seen before in this session goes through the
    throttle (counted and audited when wrong), and the one-line reason is shown when it does not."""
    digest = _digest(secret)
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


# --- a confirmation step for actions that change the graph ----------------------------------------------


def confirmed(key: str, summary: str) -> bool:
    """The second step of a two-step action: once the action's button has called `ask(key, summary)`, name
    what will change with Confirm / Cancel; True (once) on Confirm. A pending confirmation whose summary no
    longer matches (the selection changed since) is dropped: Confirm only ever applies what it named."""
    pending = f"{key}.pending"
    if st.session_state.get(pending) is None:
        return False
    if st.session_state[pending] != summary:
        st.session_state.pop(pending, None)
        return False
    with st.container(border=True):
        st.warning(summary, icon=":material/help:")
        yes, no, _ = st.columns([1, 1, 4])
        if yes.button("Confirm", key=f"{key}.confirm", type="primary", icon=":material/check:"):
            st.session_state.pop(pending, None)
            return True
        no.button("Cancel", key=f"{key}.cancel", on_click=st.session_state.pop, args=(pending, None))
    return False


def ask(key: str, summary: str) -> None:
    """The first step: keep `summary` (already escaped text) for `confirmed` to show."""
    st.session_state[f"{key}.pending"] = summary
