"""`python -m benchmarks durability`: what `appendfsync always` (every acknowledged write fsynced before its
reply, the embedded server's policy) costs against `everysec` (fsynced within a second), in one run.

On a throwaway data directory, alternately under each policy (`CONFIG SET appendfsync` on the embedded
server; nothing else changes): an import of a TAT-QA slice through the importer the CLI uses, and a burst of
corrections on the demo deal through the journalled admin path (each undone again, so every round starts from
the same graph). Medians per policy and their ratio.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.import_speed import write_slice
from pipeline.errors import InvalidInput

POLICIES = ("always", "everysec")


async def _measure(folder: Path, data_dir: Path, corrections: int, repeat: int) -> dict[str, dict[str, list[float]]]:
    from datetime import date

    import redis

    from benchmarks.embedded_demo import embedded_demo_lab
    from pipeline.api.models import CorrectionRequest

    async with embedded_demo_lab(data_dir, "the durability benchmark") as (lab, server):
        facts = []
        for number in range(1, 400):
            fact = await lab.backend.cypher.fact("demo", lab.ingest.stable_uuid("demo", "fact", f"f{number}"))
            if fact is not None and not fact.get("invalid_at") and not fact.get("expired_at"):
                facts.append(fact["uuid"])
        facts = facts[:corrections]
        control = redis.Redis(unix_socket_path=str(server.socket_path))
        times: dict[str, dict[str, list[float]]] = {p: {"import_s": [], "corrections_s": []} for p in POLICIES}
        for attempt in range(repeat):
            for policy in POLICIES:
                control.config_set("appendfsync", policy)
                started = time.perf_counter()
                await lab.ingest.import_beir(folder, f"fsync-{policy}-{attempt}")
                times[policy]["import_s"].append(time.perf_counter() - started)

                started = time.perf_counter()
                made = []
                for uuid in facts:
                    statement = f"Benchmark figure for {uuid[:8]}."
                    request = CorrectionRequest(uuid, statement, "qa_response", "bench", date(2026, 4, 2))
                    made.append(await lab.corrections.correct_fact("demo", request, "benchmark"))
                times[policy]["corrections_s"].append(time.perf_counter() - started)
                for record in reversed(made):
                    await lab.corrections.undo_correction("demo", record.id, "benchmark")
        control.config_set("appendfsync", "always")
        control.close()
        return times


def durability(corpus: Path, limit: int, corrections: int, repeat: int) -> dict[str, Any]:
    if not (corpus / "corpus.jsonl").is_file():
        raise InvalidInput(f"--corpus {corpus}: no corpus.jsonl there")
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-durability-") as tmp:
        folder = Path(tmp) / "beir"
        passages = len(write_slice(corpus, folder, limit, long=False))
        times = asyncio.run(_measure(folder, Path(tmp) / "data", corrections, repeat))
    medians = {p: {k: statistics.median(v) for k, v in t.items()} for p, t in times.items()}
    return {
        "passages": passages,
        "corrections": corrections,
        "repeat": repeat,
        "runs": {p: {k: [round(s, 2) for s in v] for k, v in t.items()} for p, t in times.items()},
        "median": {p: {k: round(v, 2) for k, v in m.items()} for p, m in medians.items()},
        "ratio_import": round(medians["always"]["import_s"] / medians["everysec"]["import_s"], 2),
        "ratio_corrections": round(medians["always"]["corrections_s"] / medians["everysec"]["corrections_s"], 2),
    }


def render_durability(result: dict[str, Any]) -> str:
    m = result["median"]
    return (
        f"appendfsync always (the embedded server's policy) against everysec, medians of {result['repeat']}:\n"
        f"  import-beir of {result['passages']:,} passages: {m['always']['import_s']:.2f} s against "
        f"{m['everysec']['import_s']:.2f} s (ratio {result['ratio_import']:.2f}x)\n"
        f"  {result['corrections']} corrections one after another: {m['always']['corrections_s']:.2f} s against "
        f"{m['everysec']['corrections_s']:.2f} s (ratio {result['ratio_corrections']:.2f}x)"
    )
