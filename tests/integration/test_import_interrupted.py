"""An import killed midway (SIGKILL after a known number of facts, the loaders' failpoint) leaves a deal that is
listed as interrupted, with how far it got and what to do, until the same command is run again and completes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from pipeline.deals import deal_record, get_deal
from pipeline.deals.records import DealRecord, import_note
from pipeline.lab import Lab
from pipeline.processes import this_process
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
GROUP = "half"
PASSAGES = 50
# the child writes facts in batches of 20 (the loaders' batch is 500: a corpus that size would take a minute to
# embed), so the failpoint after the second batch leaves 40 of 50 facts
CHILD = textwrap.dedent(
    """
    import sys
    import pipeline.ingest.loading as loading
    loading.WRITE_BATCH = 20
    from pipeline.cli import main
    sys.exit(main(["import-beir", sys.argv[1], "--group", sys.argv[2]]))
    """
)


def corpus(folder: Path) -> Path:
    folder.mkdir()
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for i in range(PASSAGES):
            out.write(json.dumps({"_id": f"p{i}", "text": f"Passage {i}: Northwind freight cost note {i}."}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "Northwind freight"}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tp1\t1\n")
    return folder


def run_import(data: Path, folder: Path, failpoint: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_FAILPOINT": failpoint}
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), GROUP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def deals_listing(data: Path, *command: str) -> str:
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data)}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


async def test_an_import_killed_midway_is_marked_interrupted_until_the_same_command_completes_it(
    tmp_path: Path,
) -> None:
    data, folder = tmp_path / "data", corpus(tmp_path / "mini")
    lab = await Lab.open(make_settings(data))  # this process keeps the server; the children use it
    try:
        killed = run_import(data, folder, "deal.import:facts_40:kill-self")
        assert killed.returncode == -9, killed.stderr[-2000:]
        counts = await lab.backend.cypher.deal_counts(GROUP)
        assert counts["facts"] == 40  # listed and queryable: what was written is there
        deal = await get_deal(lab.backend, lab.store, GROUP)
        note = "import interrupted at 40 of 50 facts — re-run the same command"
        assert deal is not None and deal.import_note == note
        assert f"{GROUP}: {note}" in deals_listing(data, "deals").splitlines()
        status = json.loads(deals_listing(data, "status", "--json"))
        assert [d["import"] for d in status["deals"] if d["group"] == GROUP] == [note]

        again = run_import(data, folder)
        assert again.returncode == 0, again.stderr[-2000:]
        assert (await lab.backend.cypher.deal_counts(GROUP))["facts"] == PASSAGES
        deal = await get_deal(lab.backend, lab.store, GROUP)
        assert deal is not None and deal.import_note is None
        record = deal_record(lab.store, GROUP)
        assert record is not None and record.content_hash and record.import_total is None
        assert "interrupted" not in deals_listing(data, "deals")
    finally:
        await lab.close()
        if lab.backend.embedded is not None:
            lab.backend.embedded.stop()


def test_an_import_in_progress_is_not_called_interrupted() -> None:
    running = DealRecord("g", import_done=1000, import_total=3190, import_owner=this_process())
    assert import_note(running) == "import in progress: 1,000 of 3,190 facts written"
    gone = DealRecord("g", import_done=1000, import_total=3190, import_owner="elsewhere-host-that-is-not-this:1:1")
    assert import_note(gone) == "import in progress: 1,000 of 3,190 facts written"  # another host: not checkable
    dead = DealRecord("g", import_done=1000, import_total=3190, import_owner=f"{this_process().split(':')[0]}:0:1")
    assert import_note(dead) == "import interrupted at 1,000 of 3,190 facts — re-run the same command"
    assert import_note(DealRecord("g")) is None
