"""`import-beir --replace` killed (SIGKILL) at each step boundary of the replace: running the same command
again completes it, and then the graph, the deal's row, its corrections and the audit log agree."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from datetime import date
from pathlib import Path

import pytest

from pipeline.audit import audit_log
from pipeline.corrections.actions import correct_fact
from pipeline.corrections.records import CorrectionRequest
from pipeline.corrections.repo import list_corrections
from pipeline.deals import deal_record
from pipeline.deals.replace import ACTION_REPLACE
from pipeline.ingest.beir import import_beir
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from tests.conftest import FIXTURES, make_settings

ROOT = Path(__file__).resolve().parents[2]
GROUP = "victim"
# where the child dies: each patch kills the process on entering the named function
STEPS = {
    "before the audit transaction": "pipeline.deals.replace.discard_open_corrections",
    "after the audit, before the graph is deleted": "pipeline.graph.backend.GraphBackend.delete_graph",
    "after the graph is deleted, before it is written": "pipeline.ingest.beir.write_deal",
    "after the graph is written, before the deal's row": "pipeline.ingest.rebuild.save_deal",
}
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    import importlib
    target = sys.argv[1]
    module_name, _, attr = target.rpartition(".")
    try:
        owner = importlib.import_module(module_name)
    except ModuleNotFoundError:  # a class attribute: module.Class.method
        module_name, _, cls = module_name.rpartition(".")
        owner = getattr(importlib.import_module(module_name), cls)

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    setattr(owner, attr, die)
    from pipeline.cli import main
    sys.exit(main(["import-beir", sys.argv[2], "--group", sys.argv[3], "--replace"]))
    """
)


def changed_copy(root: Path) -> Path:
    folder = root / "beir_mini"
    if not folder.exists():
        shutil.copytree(FIXTURES / "beir_mini", folder)
        with (folder / "corpus.jsonl").open("a", encoding="utf-8") as handle:
            handle.write('{"_id": "p99", "text": "An added passage about Northwind freight costs."}\n')
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("step", list(STEPS))
async def test_a_replace_killed_at_each_step_completes_on_rerun(tmp_path: Path, step: str) -> None:
    data = tmp_path / "data"
    lab = await Lab.open(make_settings(data))  # this process starts the server; the child reuses it
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", GROUP)
        request = CorrectionRequest(
            stable_uuid(GROUP, "fact", "p1"), "A corrected statement.", "qa_response", "CFO", date(2026, 4, 2)
        )
        correction = await correct_fact(lab, GROUP, request, actor="Ana")
        changed = changed_copy(tmp_path)

        env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_EMBEDDER": "local"}
        child = subprocess.run(
            [sys.executable, "-c", CHILD, STEPS[step], str(changed), GROUP],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]

        # the same command again (in this process): it completes the replace
        result = await import_beir(
            lab.backend, lab.embedder, lab.settings.resolved_data_dir, changed, GROUP, replace=True, actor="cli:ops"
        )
        assert not result.skipped and result.passages == 9
        facts = await lab.backend.cypher.facts(GROUP)
        assert len(facts) == 9 and all(f["fact"] != "A corrected statement." for f in facts)
        record = deal_record(lab.store, GROUP)
        assert record is not None and record.source == "beir:beir_mini" and record.content_hash
        replaces = {e.id: e for e in audit_log(lab.store, GROUP, ACTION_REPLACE)}
        [closed] = list_corrections(lab.store, GROUP)
        assert closed.id == correction.id and closed.undone and closed.undo_audit_id in replaces
        assert correction.id in replaces[closed.undo_audit_id].details["correction_ids"]
        # and it is now a finished import: the same files again do nothing
        again = await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, changed, GROUP)
        assert again.skipped
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
