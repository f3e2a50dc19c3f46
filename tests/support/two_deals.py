"""A second deal full of traces, for the restricted-deployment walks (tests/app/test_allow_list_walk.py,
tests/integration/test_allow_list_cli.py).

Everything of it carries a marker word that appears nowhere in the demo deal: passages, document names,
queries, a recorded run, a saved experiment, a spot-check queue with a verdict, a query set, a correction
(so the audit log and the corrections list hold it too). A deployment restricted to the demo deal must show
none of it: not the marker, not the deal's name.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pipeline.corrections.actions import correct_fact
from pipeline.corrections.records import CorrectionRequest
from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.history.repo import save_run
from pipeline.ingest.beir import import_beir
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_verdict

WORDS = ("revenue", "margin", "customer", "contract", "churn", "debt", "cash", "headcount")


@dataclass(frozen=True)
class OtherDeal:
    group_id: str
    marker: str
    folder: Path
    run_id: int
    experiment_id: int
    queue_id: int

    @property
    def needles(self) -> tuple[str, ...]:
        """What must never appear in a restricted deployment's output (compared case-insensitively)."""
        return (self.group_id.lower(), self.marker.lower())


def write_folder(folder: Path, group_id: str, marker: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "corpus.jsonl").open("w") as out:
        for i in range(10):
            words = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(3))
            text = f"{marker} Holdings reports {words} of ${i + 1}.5M in FY2025 (passage {i})."
            row = {"_id": f"p{i}", "text": text, "title": f"{marker} memo {i}", "doc_name": f"{marker}_cim.pdf"}
            out.write(json.dumps({**row, "page": i + 1}) + "\n")
    queries = [{"_id": f"q{i}", "text": f"{marker} {WORDS[i]} FY2025?"} for i in range(4)]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\tp{i}\t1\n" for i in range(4)))
    return folder


async def build_other_deal(lab: Lab, root: Path, group_id: str, marker: str) -> OtherDeal:
    """Import the deal and leave a trace of it in every store table a page or command reads (`lab` unrestricted)."""
    folder = write_folder(root / group_id, group_id, marker)
    await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, folder, group_id)
    run = await retrieve(lab, f"{marker} revenue FY2025", group_id, 10, 3, "local")
    run_id = save_run(lab.store, run, "cli")
    result = await run_sweep(lab, SweepSpec(group_id, candidates=(10,), top_ks=(3,), rerankers=("none",)))
    experiment_id = save_experiment(lab.store, result, f"{marker} sweep")
    spec = QueueSpec(f"{marker} queue", group_id, "fact_sample", 3, 7, "random", f"{marker} reviewer")
    queue = await build_queue(lab, spec)
    record_verdict(lab.store, queue_items(lab.store, queue.id)[0].id, f"{marker} reviewer", "supported", marker)
    request = CorrectionRequest(
        stable_uuid(group_id, "fact", "p1"),
        f"{marker} Holdings restated its margin.",
        "analyst_chat",
        marker,
        date(2026, 3, 1),
    )
    await correct_fact(lab, group_id, request, actor=f"{marker} admin")
    return OtherDeal(group_id, marker, folder, run_id, experiment_id, queue.id)


async def leave_traces(lab: Lab, group_id: str) -> None:
    """A run, an experiment and a spot-check queue on the allowed deal too, so the lists a restricted page
    shows are not empty (an empty list cannot leak)."""
    save_run(lab.store, await retrieve(lab, "What was FY2025 revenue? (allow-list walk)", group_id, 10, 3), "cli")
    spec = SweepSpec(group_id, candidates=(10,), top_ks=(3,), rerankers=("none",), limit_queries=3)
    tag = uuid.uuid4().hex[:8]  # each walk leaves its own (names are unique per deal)
    save_experiment(lab.store, await run_sweep(lab, spec), f"allow-list walk sweep {tag}")
    await build_queue(lab, QueueSpec(f"allow-list walk queue {tag}", group_id, "fact_sample", 3, 7, "random", "walker"))


def leaks(text: str, deal: OtherDeal) -> list[str]:
    lowered = text.lower()
    return [needle for needle in deal.needles if needle in lowered]
