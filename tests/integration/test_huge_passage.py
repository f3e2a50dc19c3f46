"""A 50 MB passage imports in bounded memory (peak RSS measured in a subprocess, generous limit) and is
found by a query. Speed is the benchmark's business (`python -m benchmarks huge-passage`), not this test's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.huge_passage import GROUP, write_corpus

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MB = 1_500  # before passages were cut ahead of tokenising: about 3,900 MB for this passage

# the import runs as the only child of a small wrapper, whose children's peak RSS is then the import's own
WRAPPER = """
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    command = [sys.executable, "-m", "pipeline", *sys.argv[2:]]
    done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
print(done.stderr[-2000:], file=sys.stderr)
"""


def _pipeline(env: dict[str, str], out: Path, *args: str) -> tuple[int, int, str]:
    """(exit code, peak RSS in MB, stdout) of `python -m pipeline ARGS`, its stderr in the message."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(out), *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    code, peak_mb = map(int, done.stdout.split())
    assert code == 0, done.stderr
    return code, peak_mb, out.read_text(encoding="utf-8")


def test_a_50_mb_passage_imports_in_bounded_memory_and_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    folder.mkdir()
    chars = write_corpus(folder, 50)
    assert chars > 49_000_000
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(tmp_path / "data"), "RETRIEVAL_LAB_EMBEDDER": "local"}
    _, peak_mb, _ = _pipeline(env, tmp_path / "import.out", "import-beir", str(folder), "--group", GROUP)
    assert peak_mb < LIMIT_MB, f"import peak RSS {peak_mb} MB"

    out = tmp_path / "query.out"
    _, peak_mb, text = _pipeline(env, out, "query", "revenue grew", "--group", GROUP, "--reranker", "local", "--json")
    assert peak_mb < LIMIT_MB, f"query peak RSS {peak_mb} MB"
    run = json.loads(text[text.index("{") :])
    assert run["rerank_used"]
    facts = [c["fact"] for c in run["candidates"]]
    assert any(len(f) > 49_000_000 for f in facts)  # the huge passage was found and scored, whole
