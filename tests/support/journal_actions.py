"""Run one admin action in a process of its own, for the journal's crash and two-process tests.

    python -m tests.support.journal_actions <action> '<json args>'

The data directory and the failpoint come from the environment (RETRIEVAL_LAB_DATA_DIR,
RETRIEVAL_LAB_FAILPOINT). Prints one line: `ok <id>` or `refused <message>` (exit 3); anything else is a crash.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import os
import signal
import sys
from datetime import date

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pipeline.corrections.actions import CorrectionRequest, correct_fact, undo_correction
from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import reset_demo
from pipeline.journal.run import admin_section
from pipeline.lab import Lab
from pipeline.merges.actions import merge_entities, reject_pair, undo_merge
from pipeline.retrieval.vector_index.build import ensure_index

GROUP = "demo"
STACKS_SIGNAL = signal.SIGUSR2  # run_forked writes every thread's stack to its stderr on it


def correction_request(fact_uuid: str, statement: str) -> CorrectionRequest:
    return CorrectionRequest(fact_uuid, statement, "qa_response", "Dana Whitfield (CFO)", date(2026, 4, 2))


async def act(lab: Lab, action: str, args: dict) -> str:
    if action == "correct":
        return (await correct_fact(lab, GROUP, correction_request(args["fact"], args["statement"]), "Ana")).id
    if action == "undo_correct":
        return (await undo_correction(lab, GROUP, args["correction"], "Ana")).id
    if action == "merge":
        return (await merge_entities(lab, GROUP, args["alias"], args["canonical"], "Ana")).uuid
    if action == "undo_merge":
        return (await undo_merge(lab, GROUP, args["merge"], "Ana")).record.uuid
    if action == "reject":
        return (await reject_pair(lab, GROUP, args["a"], args["b"], "Ana")).uuid_a
    if action == "reset":
        return str((await reset_demo(lab, "Ana")).facts)
    if action == "vector_index":
        async with admin_section(lab):
            return str(await ensure_index(lab, GROUP, actor="Ana"))
    raise SystemExit(f"unknown action {action!r}")


async def main(action: str, args: dict) -> int:
    lab = await Lab.open()
    try:
        if args.get("wait_for"):  # say ready, then start when the test says go (both processes at once)
            print("ready", flush=True)
            while not os.path.exists(args["wait_for"]):
                await asyncio.sleep(0.01)
        try:
            print("ok", await act(lab, action, args), flush=True)
        except InvalidInput as exc:
            print("refused", exc, flush=True)
            return 3
    finally:
        await lab.close()
        if lab.backend.embedded is not None and not args.get("keep_server"):
            lab.backend.embedded.stop()
    return 0


def run_forked(env: dict[str, str], action: str, args_json: str, out: str, err: str) -> None:
    """`main` in a process forked from a forkserver that imported this module once (the crash tests run 50
    actions): given the environment and output files a subprocess would have had. Ends with `main`'s status."""
    from pipeline.settings import get_settings

    os.environ.clear()
    os.environ.update(env)
    get_settings.cache_clear()
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    faulthandler.register(STACKS_SIGNAL, file=sys.stderr, all_threads=True)  # where it is, if it never ends
    try:
        code = asyncio.run(main(action, json.loads(args_json)))
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]))))
