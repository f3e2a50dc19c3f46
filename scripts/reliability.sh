#!/usr/bin/env bash
# Reliability checks: bad input, faults, kills at every admin step, crash recovery (random kills, kills while
# loading, a lost or corrupt store), jobs and imports, two processes on one data dir, damaged persistence files,
# loaders, isolation and the allow-list, the admin gate, inert data, exports, load, held-out attacks and writes that
# must land where they were meant; then the figures.
#
#   bash scripts/reliability.sh            (needs .venv with the test extras: bash scripts/setup.sh --test)
#
# Every figure printed at the end is read from this run's outputs (pytest's JUnit XML and log, the JSON of the
# benchmarks under artifacts/) by scripts/reliability_figures.py, never written in here.
# Exit status: non-zero when any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
if [[ ! -x "$PY" ]] || ! "$PY" -c "import pytest, hypothesis, playwright" 2>/dev/null; then
    echo "error: .venv with the test tools is missing: run 'bash scripts/setup.sh --test' first" >&2
    exit 2
fi

FIGURES=scripts/reliability_figures.py  # the groups (which tests prove what) and the figures
mapfile -t TESTS < <("$PY" "$FIGURES" files)

OUT=artifacts/reliability
mkdir -p "$OUT"
# figures must come from this run: drop the previous run's
rm -f "$OUT"/junit.xml "$OUT"/pytest.log "$OUT"/*.json artifacts/load-streamlit.json artifacts/isolation-more.json

export GRAPHITI_TELEMETRY_ENABLED=false HF_HUB_OFFLINE=1
status=0

echo "== reliability tests: bad input, faults, kills at every admin step, crash recovery, jobs and imports, two"
echo "   processes, damaged files, loaders, isolation and allow-list, admin gate, inert data, exports, load =="
"$PY" -m pytest -q -rA -p no:cacheprovider --hypothesis-show-statistics --junitxml="$OUT/junit.xml" "${TESTS[@]}" \
    2>&1 | tee "$OUT/pytest.log" || status=1

WORK=$(mktemp -d -t retrieval-lab-reliability-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# a clean environment for the runs below: the offline embedder, the embedded server, no network services
CLEAN=(env -u VOYAGE_API_KEY -u NEO4J_URI -u NEO4J_PASSWORD -u FALKORDB_URI -u RETRIEVAL_LAB_ALLOWED_DEALS
       RETRIEVAL_LAB_DATA_DIR="$WORK/data" RETRIEVAL_LAB_EMBEDDER=local)

echo
echo "== admin secret brute force: the waits the throttle imposes on 20 wrong guesses in a row =="
"${CLEAN[@]}" "$PY" - "$OUT/throttle.json" <<'PYTHON' || status=1
import json, sys

from pipeline.admin.unlock import delay_after

guesses = 20
waits = [delay_after(n) for n in range(1, guesses)]  # the wait after each failure, before the next guess
with open(sys.argv[1], "w") as f:
    json.dump({"guesses": guesses, "seconds": sum(waits)}, f)
print(f"{guesses} guesses: waits of {', '.join(f'{w:.0f}' for w in waits)} s")
PYTHON

echo
echo "== one 50 MB passage: import memory and a query that hits it =="
if "${CLEAN[@]}" "$PY" -m benchmarks huge-passage --mb 50 --json > "$WORK/huge-passage.json"; then
    mv "$WORK/huge-passage.json" "$OUT/huge-passage.json"
    cat "$OUT/huge-passage.json"
else
    status=1
fi

echo
echo "== pipeline-level load: 20 concurrent sessions on one embedded server (throwaway data directory) =="
if ! "${CLEAN[@]}" "$PY" - "$OUT/load-pipeline.json" <<'PYTHON'
import json, subprocess, sys

out = sys.argv[1]
subprocess.run([sys.executable, "-m", "pipeline", "seed-demo"], check=True, capture_output=True)
done = subprocess.run(
    [sys.executable, "-m", "benchmarks", "load", "--group", "demo", "--sessions", "20", "--queries", "5", "--json"],
    capture_output=True, text=True,
)
if done.returncode != 0:
    sys.exit(f"python -m benchmarks load failed: {done.stderr.strip()}")
report = json.loads(done.stdout)
report["via"] = "python -m benchmarks load --group demo --sessions 20 --queries 5 --json"
with open(out, "w") as f:
    json.dump(report, f, indent=2)
print(json.dumps({k: v for k, v in report.items() if k != "error_samples"}))
sys.exit(1 if report.get("errors") else 0)
PYTHON
then
    status=1
fi

echo
"$PY" "$FIGURES" report "$OUT" || status=1

if [[ $status -ne 0 ]]; then
    echo "RELIABILITY CHECKS FAILED (see $OUT/pytest.log)" >&2
fi
exit $status
