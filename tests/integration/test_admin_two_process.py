"""Two processes on one data directory running the same admin action at once: the admin lock (fcntl.flock
in the data directory) serialises them and each re-validates inside it, so exactly one wins and the other is
refused with one line, changing nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pipeline.audit import audit_log
from pipeline.corrections.actions import list_corrections
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.journal import repo as journal_repo
from pipeline.lab import Lab
from tests.conftest import make_settings
from tests.support.dump import dump_deal
from tests.support.journal_actions import GROUP

ROOT = Path(__file__).resolve().parents[2]
FACT = stable_uuid(GROUP, "fact", "f216")


@pytest.fixture(scope="module")
async def held():  # type: ignore[no-untyped-def]
    """A seeded data dir whose server this process keeps up for both contenders (neither stops it); our own
    temp dir, as pytest prunes old `pytest-of-<user>` dirs when other sessions start on the machine."""
    data_dir = Path(tempfile.mkdtemp(prefix="retrieval-lab-two-process-"))
    lab = await Lab.open(make_settings(data_dir))
    await seed_demo(lab.backend, lab.embedder, data_dir)
    yield lab
    await lab.close()
    if lab.backend.embedded is not None:
        lab.backend.embedded.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


def race(data_dir: Path, jobs: list[tuple[str, dict]]) -> list[tuple[int, str]]:
    """Start every job, wait until each is ready (Lab open), then let them all go at once."""
    go = data_dir / "go"
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir), "RETRIEVAL_LAB_EMBEDDER": "local"}
    env.pop("RETRIEVAL_LAB_FAILPOINT", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.support.journal_actions", action, json.dumps({**args, "wait_for": str(go)})],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for action, args in jobs
    ]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready", p.stderr.read() if p.stderr else ""
    go.touch()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        results.append((p.returncode, (out.strip() or err.strip()[-2000:])))
    go.unlink()
    return results


async def test_two_processes_correcting_one_fact_one_wins(held: Lab) -> None:
    before = await dump_deal(held.backend, GROUP)
    job = ("correct", {"fact": FACT, "statement": "Halcyon's cash balance was $1.45 million at March 31, 2026."})
    results = race(held.settings.resolved_data_dir, [job, job])
    codes = sorted(code for code, _ in results)
    assert codes == [0, 3], results
    refusal = next(out for code, out in results if code == 3)
    assert refusal.startswith("refused ") and "\n" not in refusal
    records = [c for c in list_corrections(held.store, GROUP) if c.old_uuid == FACT]
    assert len(records) == 1 and not records[0].undone
    after = await dump_deal(held.backend, GROUP)
    successors = [r for r in after["relationships"] if (r.get("props") or {}).get("supersedes") == FACT]
    assert len(successors) == 1, "exactly one current fact replaces the old one"
    assert len(after["relationships"]) == len(before["relationships"]) + 1 + 2  # new fact + its 2 MENTIONS
    assert len([e for e in audit_log(held.store, GROUP) if e.action == "fact.correct"]) == 1
    assert journal_repo.open_entries(held.store) == []


async def test_two_processes_undoing_one_correction_one_undoes(held: Lab) -> None:
    record = next(c for c in list_corrections(held.store, GROUP) if c.old_uuid == FACT and not c.undone)
    job = ("undo_correct", {"correction": record.id})
    results = race(held.settings.resolved_data_dir, [job, job])
    assert sorted(code for code, _ in results) == [0, 3], results
    assert "already undone" in next(out for code, out in results if code == 3)
    after = await dump_deal(held.backend, GROUP)
    assert not [r for r in after["relationships"] if (r.get("props") or {}).get("supersedes") == FACT]
    old = await held.backend.cypher.fact(GROUP, FACT)
    assert old is not None and not old.get("superseded_by") and not old.get("invalid_at"), "the loser re-applied"
    assert len([e for e in audit_log(held.store, GROUP) if e.action == "fact.undo_correct"]) == 1
    assert journal_repo.open_entries(held.store) == []
