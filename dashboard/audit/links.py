"""Where an audit entry's undo lives: the Timeline's correction form or the Entity merges page, opened on
that record (the page picks it from a one-shot query parameter, then drops it)."""

from __future__ import annotations

from urllib.parse import urlencode

from dashboard.common.sidebar import DEAL_KEY
from dashboard.merges.admin import MERGE_PARAM
from dashboard.timeline.admin import CORRECTION_PARAM, FIX_TAB, TAB_KEY
from pipeline.audit.describe import UndoKind

PAGES: dict[UndoKind, tuple[str, str]] = {
    "correction": ("app_pages/timeline.py", "Timeline"),
    "merge": ("app_pages/merges.py", "Entity merges"),
}


def undo_params(group_id: str, kind: UndoKind, record_id: str) -> dict[str, str]:
    if kind == "correction":
        return {DEAL_KEY: group_id, TAB_KEY: FIX_TAB, CORRECTION_PARAM: record_id}
    return {DEAL_KEY: group_id, MERGE_PARAM: record_id}


def undo_url(group_id: str, kind: UndoKind, record_id: str) -> str:
    """A relative link to the record's view (for a shared link; it opens a new session, locked until unlocked)."""
    url_path = "timeline" if kind == "correction" else "merges"
    return f"{url_path}?{urlencode(undo_params(group_id, kind, record_id))}"
