"""Checking an entered admin secret: constant-time, and throttled per data directory.

Each failure in a row doubles the wait before the next try is even compared (1 s, 2 s, 4 s, ... up to
15 minutes), whichever session or process makes it, and is audited (`admin.unlock_failed`, never the
secret). A success clears the count. Guessing stops being practical: 20 wrong tries take over an hour
where they took half a second.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass

from pipeline.admin import repo
from pipeline.audit import record_audit
from pipeline.store import Store

FIRST_DELAY_S = 1.0
MAX_DELAY_S = 900.0
AUDIT_ACTION = "admin.unlock_failed"


def delay_after(failures: int) -> float:
    """Seconds to wait after `failures` failed tries in a row."""
    if failures <= 0:
        return 0.0
    return min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** min(failures - 1, 30))


def secrets_match(entered: str, configured: str) -> bool:
    """Constant-time comparison that does not leak the length either (both sides hashed first)."""
    a = hashlib.sha256(entered.encode()).digest()
    b = hashlib.sha256(configured.encode()).digest()
    return hmac.compare_digest(a, b) and bool(configured)


@dataclass(frozen=True)
class UnlockResult:
    ok: bool
    wait_s: float = 0.0  # > 0: refused without comparing; try again after this many seconds
    failures: int = 0

    @property
    def message(self) -> str:
        if self.ok:
            return ""
        if self.wait_s > 0:
            return f"Too many wrong admin secrets: try again in {max(1, round(self.wait_s))} s."
        wait = delay_after(self.failures)
        return f"Wrong admin secret. The next try is possible in {max(1, round(wait))} s."


def try_unlock(store: Store, entered: str, configured: str, actor: str, now: float | None = None) -> UnlockResult:
    """Compare `entered` with `configured` unless the data directory is in a wait; count and audit a failure."""
    now = time.time() if now is None else now
    with store.transaction() as conn:
        failures, locked_until = repo.throttle_state(conn)
        if now < locked_until:
            return UnlockResult(False, wait_s=locked_until - now, failures=failures)
        if secrets_match(entered, configured):
            if failures:
                repo.clear_failures(conn)
            return UnlockResult(True)
        failures += 1
        repo.record_failure(conn, failures, now + delay_after(failures))
        details = {"failures_in_a_row": failures, "wait_s": delay_after(failures)}
        record_audit(store, actor or "(no name)", AUDIT_ACTION, "", "admin", details, conn=conn)
    return UnlockResult(False, failures=failures)
