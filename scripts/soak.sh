#!/usr/bin/env bash
# The tests whose outcome could hang on timing (kills and crash recovery, the server's supervisor and leases,
# two processes on one directory, jobs, the browser under load), round after round, with two CPU-bound
# processes running beside them as on a busy CI machine. Stops at the first failing round.
#
#   bash scripts/soak.sh [ROUNDS]     (default 10; needs .venv with the test extras: bash scripts/setup.sh --test)
#
# Each round's pytest log is kept in artifacts/soak/round-N.log; one line per round says how it went.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-10}
PY=.venv/bin/python
if [[ ! -x "$PY" ]] || ! "$PY" -c "import pytest, playwright" 2>/dev/null; then
    echo "error: .venv with the test tools is missing: run 'bash scripts/setup.sh --test' first" >&2
    exit 2
fi
if ! [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]]; then
    echo "error: ROUNDS must be a whole number of at least 1, not '$ROUNDS'" >&2
    exit 2
fi

TESTS=(
    # kills at every admin step and at random points, recovery, damaged files
    tests/integration/test_journal_crash.py
    tests/integration/test_random_kills.py
    tests/integration/test_crash_recovery.py
    tests/integration/test_persistence_guard.py
    tests/integration/test_loader_replace_kill.py
    tests/integration/test_import_interrupted.py
    tests/integration/test_graph_lost_mid_command.py
    tests/integration/test_server_recovery.py
    # the supervisor, its leases and locks, two processes on one data directory
    tests/integration/test_server_lifecycle.py
    tests/integration/test_private_data_dir_server.py
    tests/integration/test_admin_two_process.py
    tests/integration/test_journal_lock.py
    tests/unit/test_supervisor_status.py
    # jobs, in the pipeline and on the page
    tests/integration/test_sweep_jobs.py
    tests/browser/test_sweep_jobs_browser.py
    # the browser: concurrent sessions, and the walks that type and click while the page reruns
    tests/browser/test_load_through_streamlit.py
    tests/browser/test_admin_journey.py
    tests/browser/test_spotcheck_keys.py
    tests/browser/test_spotcheck_adjudicate.py
)

OUT=artifacts/soak
mkdir -p "$OUT"
BURNERS=()
trap 'kill "${BURNERS[@]}" 2>/dev/null || true' EXIT
for _ in 1 2; do
    "$PY" -c "while True: pass" &
    BURNERS+=($!)
done

for round in $(seq 1 "$ROUNDS"); do
    start=$(date +%s)
    if "$PY" -m pytest -q -p no:cacheprovider --numprocesses 2 --dist loadfile "${TESTS[@]}" \
        > "$OUT/round-$round.log" 2>&1; then
        result=passed
    else
        result=FAILED
    fi
    summary=$(tail -n 1 "$OUT/round-$round.log")
    echo "round $round of $ROUNDS: $result in $(( $(date +%s) - start )) s, two CPU burners beside it ($summary)"
    if [[ $result == FAILED ]]; then
        echo "see $OUT/round-$round.log" >&2
        exit 1
    fi
done
