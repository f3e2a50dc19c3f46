"""Kill -9 at every step boundary of every journalled admin action, then restart and check that the graph, the
feature records and the audit log agree.

Each case copies a seeded data directory, runs the action in a process of its own with RETRIEVAL_LAB_FAILPOINT set to
one boundary (from the journal's own step list, so a new step is covered automatically) and either SIGKILLs
that process there or SIGKILLs the graph server (redis-server) there; then a new Lab opens the directory
(recovery runs) and the invariant is checked: the deal's graph is exactly its before-state or exactly its
after-state, the feature record exists iff the change is applied, every applied change has its audit entry,
and no journal entry is left open.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline.audit import audit_log
from pipeline.corrections.actions import correct_fact, list_corrections, undo_correction
from pipeline.errors import RetrievalLabError
from pipeline.ingest.demo.seed import seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.journal import repo as journal_repo
from pipeline.journal.failpoint import ENV, KILL_SELF, KILL_SERVER, server_pids
from pipeline.journal.kinds import boundaries
from pipeline.journal.records import DONE
from pipeline.lab import Lab
from pipeline.merges.actions import rejected_pairs, undo_merge, undone_merges
from pipeline.merges.records import read_merge_records
from tests.conftest import make_settings
from tests.support.dump import dump_deal
from tests.support.journal_actions import GROUP, STACKS_SIGNAL, correction_request, run_forked

FACT = stable_uuid(GROUP, "fact", "f216")  # "Halcyon's cash balance was $1.6 million at February 28, 2026."
STATEMENT = "Halcyon's cash balance was $1.45 million at March 31, 2026."

# action (driver name) -> journal kind
KINDS = {
    "correct": "fact.correct",
    "undo_correct": "fact.undo_correct",
    "merge": "merge",
    "undo_merge": "merge.undo",
    "reject": "merge.reject",
    "reset": "deal.reset_demo",
    "vector_index": "vector_index.create",
}
CASES = [
    (action, step, how)
    for action, kind in KINDS.items()
    for step in boundaries(kind)
    for how in (KILL_SELF, KILL_SERVER)
]


def stop_servers(data_dir: Path) -> None:
    for pid in server_pids(data_dir):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def opened(data_dir: Path):  # type: ignore[no-untyped-def]
    lab = await Lab.open(make_settings(data_dir))
    try:
        yield lab
    finally:
        await lab.close()
        if lab.backend.embedded is not None:
            lab.backend.embedded.stop()
        stop_servers(data_dir)


def copy_dir(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.sock", "admin.lock"))
    return dst


# each action runs in a process of its own, forked from a server that imported the code once: a fresh
# interpreter would spend most of each case importing graphiti
FORKS = multiprocessing.get_context("forkserver")
FORKS.set_forkserver_preload(["tests.support.journal_actions"])


def run_action(data_dir: Path, action: str, args: dict[str, Any], failpoint: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir), "RETRIEVAL_LAB_EMBEDDER": "local", ENV: failpoint}
    out, err = data_dir.with_suffix(".out"), data_dir.with_suffix(".err")
    child = FORKS.Process(target=run_forked, args=(env, action, json.dumps(args), str(out), str(err)))
    child.start()
    child.join(timeout=120)
    if child.exitcode is None:
        os.kill(child.pid, STACKS_SIGNAL)
        stacks_by = time.monotonic() + 30
        while "File " not in err.read_text(errors="replace") and time.monotonic() < stacks_by:
            time.sleep(0.1)  # faulthandler writes them from its signal handler
        child.kill()
        child.join()
        server = data_dir / "falkordb.status.json"  # the server's start, if it was stuck there
        pytest.fail(
            f"{action} did not end within 120 s; its server: {server.read_text() if server.exists() else 'none'}; "
            f"where it was:\n{err.read_text(errors='replace')[-6000:]}"
        )
    done = subprocess.CompletedProcess([action], child.exitcode, out.read_text(), err.read_text())
    out.unlink()
    err.unlink()
    return done


@dataclass
class Bases:
    seeded: Path  # the demo deal as seeded
    corrected: Path  # ... with one correction of FACT
    seeded_dump: dict
    corrected_dump: dict
    unmerged_dump: dict  # seeded, with `merge` undone
    correction_id: str
    merge: str  # a seeded merge
    pair: tuple[str, str]  # two entities in no merge


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    """Our own temp dir: pytest prunes old `pytest-of-<user>` dirs when other sessions start on the machine."""
    path = Path(tempfile.mkdtemp(prefix="retrieval-lab-journal-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
async def bases(root: Path) -> Bases:
    seeded = root / "seeded"
    async with opened(seeded) as lab:
        await seed_demo(lab.backend, lab.embedder, seeded)
        seeded_dump = await dump_deal(lab.backend, GROUP)
        merges = await read_merge_records(lab.backend, GROUP)
        involved = {u for m in merges for u in (m.alias_uuid, m.canonical_uuid)}
        entities = await lab.backend.cypher.entities_with_fact_counts(GROUP, 200)
        free = [e["uuid"] for e in entities if e["uuid"] not in involved and e["facts"]]
    corrected = copy_dir(seeded, root / "corrected")
    async with opened(corrected) as lab:
        correction = await correct_fact(lab, GROUP, correction_request(FACT, STATEMENT), "Ana")
        corrected_dump = await dump_deal(lab.backend, GROUP)
    unmerged = copy_dir(seeded, root / "unmerged")
    async with opened(unmerged) as lab:
        await undo_merge(lab, GROUP, merges[0].uuid, "Ana")
        unmerged_dump = await dump_deal(lab.backend, GROUP)
    return Bases(
        seeded, corrected, seeded_dump, corrected_dump, unmerged_dump, correction.id, merges[0].uuid, (free[0], free[1])
    )


def args_for(action: str, b: Bases) -> tuple[Path, dict[str, Any]]:
    return {
        "correct": (b.seeded, {"fact": FACT, "statement": STATEMENT}),
        "undo_correct": (b.corrected, {"correction": b.correction_id}),
        "merge": (b.seeded, {"alias": b.pair[0], "canonical": b.pair[1]}),
        "undo_merge": (b.seeded, {"merge": b.merge}),
        "reject": (b.seeded, {"a": b.pair[0], "b": b.pair[1]}),
        "reset": (b.corrected, {}),
        "vector_index": (b.seeded, {}),
    }[action]


def audits(lab: Lab, action: str) -> list:
    return [e for e in audit_log(lab.store, GROUP) if e.action == action]


# --- each action's invariant: returns whether the change is applied (and asserts it is applied whole) --------


async def check_correct(lab: Lab, b: Bases, state: dict) -> bool:
    records = [c for c in list_corrections(lab.store, GROUP) if c.old_uuid == FACT and not c.undone]
    applied = state != b.seeded_dump
    assert len(records) == int(applied)
    if applied:
        assert [e.details["correction_id"] for e in audits(lab, "fact.correct")] == [records[0].id]
        await undo_correction(lab, GROUP, records[0].id, "checker")  # the after-state is exactly before + it
        assert await dump_deal(lab.backend, GROUP) == b.seeded_dump
    else:
        assert not audits(lab, "fact.correct")
    return applied


async def check_undo_correct(lab: Lab, b: Bases, state: dict) -> bool:
    record = next(c for c in list_corrections(lab.store, GROUP) if c.id == b.correction_id)
    assert state in (b.corrected_dump, b.seeded_dump)
    applied = state == b.seeded_dump
    assert record.undone == applied
    assert len(audits(lab, "fact.undo_correct")) == int(applied)
    return applied


async def check_merge(lab: Lab, b: Bases, state: dict) -> bool:
    mine = [m for m in await read_merge_records(lab.backend, GROUP) if m.alias_uuid == b.pair[0]]
    applied = state != b.seeded_dump
    assert len(mine) == int(applied)
    assert [e.details["uuid"] for e in audits(lab, "merge")] == [m.uuid for m in mine]
    if applied:
        await undo_merge(lab, GROUP, mine[0].uuid, "checker")
        assert await dump_deal(lab.backend, GROUP) == b.seeded_dump
    return applied


async def check_undo_merge(lab: Lab, b: Bases, state: dict) -> bool:
    assert state in (b.seeded_dump, b.unmerged_dump)
    applied = state == b.unmerged_dump
    assert [u["uuid"] for u in undone_merges(lab, GROUP)] == ([b.merge] if applied else [])
    assert len(audits(lab, "merge.undo")) == int(applied)
    return applied


async def check_reject(lab: Lab, b: Bases, state: dict) -> bool:
    assert state == b.seeded_dump
    applied = bool(rejected_pairs(lab, GROUP))
    assert len(audits(lab, "merge.reject")) == int(applied)
    return applied


def without_times(dump: dict) -> dict:
    """A seed stamps `created_at` with the time it ran; everything else of a rebuilt deal is the same."""
    strip = lambda row: {**row, "props": {k: v for k, v in row["props"].items() if k != "created_at"}}  # noqa: E731
    return {part: sorted((strip(r) for r in rows), key=repr) for part, rows in dump.items()}


def stamps(dump: dict) -> set:
    return {n["props"].get("created_at") for n in dump["nodes"]}


async def check_reset(lab: Lab, b: Bases, state: dict) -> bool:
    # a reset cannot be rolled back (the old graph is gone): recovery completes it
    assert without_times(state) == without_times(b.seeded_dump)
    assert not stamps(state) & stamps(b.corrected_dump), "the deal was rebuilt, not left as it was"
    assert [c.undone for c in list_corrections(lab.store, GROUP)] == [True]
    assert len(audits(lab, "deal.reset_demo")) == 1
    return True


async def check_vector_index(lab: Lab, b: Bases, state: dict) -> bool:
    # a schema change: no fact is touched; the index exists iff the change is applied, and then it is audited
    assert state == b.seeded_dump
    applied = await lab.backend.cypher.fact_vector_index(GROUP) is not None
    assert [e.actor for e in audits(lab, "vector_index.create")] == (["Ana"] if applied else [])
    return applied


CHECKS: dict[str, Callable[[Lab, Bases, dict], Awaitable[bool]]] = {
    "correct": check_correct,
    "undo_correct": check_undo_correct,
    "merge": check_merge,
    "undo_merge": check_undo_merge,
    "reject": check_reject,
    "reset": check_reset,
    "vector_index": check_vector_index,
}


def test_every_kind_has_a_check_and_every_boundary_a_case() -> None:
    from pipeline.journal.kinds import load_kinds

    assert set(KINDS.values()) == set(load_kinds())
    assert len(CASES) == 2 * sum(len(boundaries(k)) for k in KINDS.values())


@pytest.mark.slow
@pytest.mark.parametrize(("action", "step", "how"), CASES, ids=[f"{a}:{s}:{h}" for a, s, h in CASES])
async def test_a_kill_at_a_step_boundary_leaves_before_or_after(
    bases: Bases, root: Path, action: str, step: str, how: str
) -> None:
    base, args = args_for(action, bases)
    case = copy_dir(base, root / f"{action}-{step}-{how}")
    try:
        done = run_action(case, action, args, f"{KINDS[action]}:{step}:{how}")
    finally:
        if how == KILL_SELF:
            stop_servers(case)  # the killed process's server (its lifecycle is not this test's subject)
    if how == KILL_SELF:
        assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    else:  # it fails at its next graph write, or succeeds when none was left (only SQLite after the last step)
        assert done.returncode >= 0 and "Traceback" not in done.stdout, done.stderr[-2000:]
    try:
        async with opened(case) as lab:  # a restart: recovery runs as the Lab opens
            assert journal_repo.open_entries(lab.store) == []
            entries = [e for e in journal_repo.entries(lab.store, GROUP) if e.kind == KINDS[action]]
            entries = [e for e in entries if e.actor == "Ana"]  # not the checker's own undo
            assert len(entries) == 1
            state = await dump_deal(lab.backend, GROUP)
            applied = await CHECKS[action](lab, bases, state)
            assert applied == (entries[0].status in ("committed", "completed")), entries[0]
            if step != DONE and entries[0].status != "committed":
                recovered = [e for e in audit_log(lab.store, GROUP, "journal.") if e.target == entries[0].id]
                in_process = (entries[0].outcome or {}).get("in_process")
                assert len(recovered) == (0 if in_process else 1), entries[0]
    finally:
        shutil.rmtree(case, ignore_errors=True)


async def test_an_interrupted_action_blocks_admin_actions_in_one_line_until_the_graph_answers(
    bases: Bases, root: Path
) -> None:
    case = copy_dir(bases.seeded, root / "graph-down")
    try:
        async with opened(case) as lab:
            # another process's correction dies with the graph server after its first graph step
            done = run_action(
                case, "correct", {"fact": FACT, "statement": STATEMENT}, "fact.correct:save_episode:kill-server"
            )
            assert done.returncode not in (0, 3)
            assert [e.steps for e in journal_repo.open_entries(lab.store)] == [("save_episode",)]
            with pytest.raises(RetrievalLabError) as refused:
                await correct_fact(lab, GROUP, correction_request(FACT, STATEMENT), "Ana")
            assert "\n" not in str(refused.value)
            assert len(journal_repo.open_entries(lab.store)) == 1, "nothing guessed while the graph is down"
            assert await lab.recover()  # the server is brought back (its append-only file keeps what was written)
            record = await correct_fact(lab, GROUP, correction_request(FACT, STATEMENT), "Ana")
            assert journal_repo.open_entries(lab.store) == []
            assert [e.action for e in audit_log(lab.store, GROUP)[:2]] == ["fact.correct", "journal.rollback"]
            await undo_correction(lab, GROUP, record.id, "Ana")
            assert await dump_deal(lab.backend, GROUP) == bases.seeded_dump  # the half-done episode is gone too
    finally:
        shutil.rmtree(case, ignore_errors=True)
