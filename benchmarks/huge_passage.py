"""One enormous passage: import it and query it, in a throwaway data directory (`python -m benchmarks huge-passage`).

Before passages were cut ahead of tokenising, a 50 MB passage took 6.5 GB to import and every query that
found it about 10 s (the local re-scorer tokenised it whole, the citation step split it into sentences).
This prints the import's peak memory and wall time, and the per-stage medians of queries that hit it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GROUP = "huge"


def write_corpus(folder: Path, megabytes: int) -> int:
    """A BEIR folder: one passage of `megabytes` MB (long unbroken tokens, a few words), one small one."""
    unit = "x" * 200_000 + " revenue grew "
    text = unit * max(1, megabytes * 1_000_000 // len(unit))
    rows = [
        {"_id": "huge", "title": "Huge", "text": text, "doc_name": "huge.pdf"},
        {"_id": "small", "title": "Small", "text": "Revenue grew 6% in fiscal 2024.", "doc_name": "small.pdf"},
    ]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "How much did revenue grow?"}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tsmall\t1\n")
    return len(text)


def _cli(env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `python -m pipeline ARGS` in its own process: (result, seconds)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done, time.perf_counter() - started


def huge_passage(megabytes: int = 50, queries: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-huge-bench-") as tmp:
        folder, data = Path(tmp) / "beir", Path(tmp) / "data"
        folder.mkdir()
        chars = write_corpus(folder, megabytes)
        env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_EMBEDDER": "local"}
        done, import_s = _cli(env, "import-beir", str(folder), "--group", GROUP)
        # the import is this process's first child: the children's peak is its peak (or its server's)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        if done.returncode != 0:
            raise SystemExit(f"import failed: {done.stderr.strip().splitlines()[-1:]}")
        stages: dict[str, list[float]] = {}
        for _ in range(queries):
            done, _ = _cli(env, "query", "revenue grew", "--group", GROUP, "--reranker", "local", "--json")
            if done.returncode != 0:
                raise SystemExit(f"query failed: {done.stderr.strip().splitlines()[-1:]}")
            body = done.stdout[done.stdout.index("{") :]
            for stage, ms in json.loads(body)["timings"]["stages_ms"].items():
                stages.setdefault(stage, []).append(ms)
    return {
        "passage_chars": chars,
        "import_s": round(import_s, 1),
        "import_peak_rss_mb": peak_mb,
        "query_stage_p50_ms": {s: round(statistics.median(v)) for s, v in stages.items()},
    }
