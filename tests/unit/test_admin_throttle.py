"""Failed admin unlocks: growing waits per data directory (shared by every process), each failure audited
without the secret, a constant-time comparison, a success clears the count (pipeline/admin/unlock.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pipeline.admin.unlock import AUDIT_ACTION, MAX_DELAY_S, delay_after, secrets_match, try_unlock
from pipeline.audit import audit_log
from pipeline.store.db import Store

ROOT = Path(__file__).resolve().parents[2]
SECRET = "correct horse battery staple"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "retrieval_lab.sqlite3")


def test_waits_grow_and_are_capped() -> None:
    waits = [delay_after(n) for n in range(1, 40)]
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0]
    assert waits == sorted(waits)
    assert waits[-1] == MAX_DELAY_S
    assert delay_after(0) == 0.0


def test_comparison_is_exact() -> None:
    assert secrets_match(SECRET, SECRET)
    for wrong in ("", SECRET[:-1], SECRET + " ", SECRET.upper()):
        assert not secrets_match(wrong, SECRET)
    assert not secrets_match("", "")  # an empty configured secret never unlocks


def test_a_failure_is_audited_without_the_secret_and_starts_a_wait(store: Store) -> None:
    t0 = 1_000_000.0
    first = try_unlock(store, "guess-1", SECRET, "mallory", now=t0)
    assert not first.ok and first.wait_s == 0 and first.failures == 1
    assert first.message.startswith("Wrong admin secret.")
    # within the wait even the right secret is refused, without being compared or counted
    during = try_unlock(store, SECRET, SECRET, "ana", now=t0 + 0.5)
    assert not during.ok and during.wait_s == pytest.approx(0.5)
    assert "try again in 1 s" in during.message
    entries = audit_log(store, action_prefix=AUDIT_ACTION)
    assert [(e.actor, e.details["failures_in_a_row"]) for e in entries] == [("mallory", 1)]
    assert "guess-1" not in str(entries) and SECRET not in str(entries)
    # after the wait the right secret unlocks and clears the count
    assert try_unlock(store, SECRET, SECRET, "ana", now=t0 + 1.0).ok
    again = try_unlock(store, "guess-2", SECRET, "mallory", now=t0 + 2.0)
    assert again.failures == 1


def test_brute_force_is_slowed(store: Store) -> None:
    """An attacker trying as fast as the clock allows: the minimum time for 20 guesses is over an hour (it was
    about half a second at ~37 tries a second), and a tight loop of real tries gets one comparison only."""
    now, compared = 0.0, 0
    while compared < 20:
        result = try_unlock(store, f"guess-{compared}", SECRET, "mallory", now=now)
        if result.wait_s > 0:
            now += result.wait_s  # the earliest moment the next try is compared
            continue
        compared += 1
    assert now > 3600
    assert len(audit_log(store, action_prefix=AUDIT_ACTION)) == 20

    fresh = Store(store.path.parent / "other.sqlite3")
    outcomes = [try_unlock(fresh, f"fast-{i}", SECRET, "mallory") for i in range(50)]
    assert sum(1 for r in outcomes if r.wait_s == 0) == 1  # real clock: 49 of 50 refused unchecked
    assert len(audit_log(fresh, action_prefix=AUDIT_ACTION)) == 1


def test_the_wait_is_shared_across_processes(store: Store) -> None:
    """A failure in another process (another dashboard session, another server) makes this one wait too."""
    failed_at = time.time()
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from pipeline.admin.unlock import try_unlock
        from pipeline.store.db import Store
        result = try_unlock(Store(Path({str(store.path)!r})), "guess", {SECRET!r}, "mallory", now={failed_at!r})
        assert not result.ok and result.failures == 1, result
        """
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=60)
    # a moment after the other process failed (its clock passed in: a loaded machine takes seconds to end it)
    here = try_unlock(store, SECRET, SECRET, "ana", now=failed_at + 0.1)
    assert not here.ok and 0 < here.wait_s <= 1.0
