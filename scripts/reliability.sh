#!/usr/bin/env bash
# Reliability checks: bad input, faults, isolation, the admin gate and load, then the figures.
#
#   bash scripts/reliability.sh            (needs .venv with the test extras: bash scripts/setup.sh --test)
#
# Every figure printed at the end is read from this run's outputs (pytest's JUnit XML and log, the load
# tests' JSON under artifacts/), never written in here. Exit status: non-zero when any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
if [[ ! -x "$PY" ]] || ! "$PY" -c "import pytest, hypothesis, playwright" 2>/dev/null; then
    echo "error: .venv with the test tools is missing: run 'bash scripts/setup.sh --test' first" >&2
    exit 2
fi

BAD_INPUT=(tests/integration/test_cli_bad_input.py tests/app/test_bad_input_ui.py)
FAULTS=(tests/integration/test_server_recovery.py tests/app/test_backend_down.py
        tests/integration/test_voyage_reranker.py tests/app/test_voyage_faults_ui.py)
ISOLATION=(tests/integration/test_isolation.py tests/integration/test_isolation_more.py)
ADMIN=(tests/app/test_admin_gate.py)
LOAD=(tests/integration/test_load.py tests/browser/test_load_through_streamlit.py)
LOADERS=(tests/integration/test_loaders_never_clobber.py tests/integration/test_loader_replace_kill.py
         tests/integration/test_sweep_cache_state.py)

OUT=artifacts/reliability
mkdir -p "$OUT"
# figures must come from this run: drop the previous run's
rm -f "$OUT"/junit.xml "$OUT"/pytest.log "$OUT"/load-pipeline.json artifacts/load-streamlit.json \
    artifacts/isolation-more.json

export GRAPHITI_TELEMETRY_ENABLED=false HF_HUB_OFFLINE=1
status=0

echo "== reliability tests (bad input, faults, isolation, admin gate, load, loaders) =="
"$PY" -m pytest -q -rA -p no:cacheprovider --hypothesis-show-statistics --junitxml="$OUT/junit.xml" \
    "${BAD_INPUT[@]}" "${FAULTS[@]}" "${ISOLATION[@]}" "${ADMIN[@]}" "${LOAD[@]}" "${LOADERS[@]}" 2>&1 | tee "$OUT/pytest.log" \
    || status=1

echo
echo "== pipeline-level load: 20 concurrent sessions on one embedded server (throwaway data directory) =="
LOAD_DIR=$(mktemp -d -t retrieval-lab-load-XXXXXX)
trap 'rm -rf "$LOAD_DIR"' EXIT
# a clean environment for the run: the offline embedder, the embedded server, no network services
if ! env -u VOYAGE_API_KEY -u NEO4J_URI -u NEO4J_PASSWORD RETRIEVAL_LAB_DATA_DIR="$LOAD_DIR" \
    RETRIEVAL_LAB_EMBEDDER=local "$PY" - "$OUT/load-pipeline.json" <<'EOF'
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
EOF
then
    status=1
fi

echo
"$PY" - "$OUT" "${BAD_INPUT[*]}" "${FAULTS[*]}" "${ISOLATION[*]}" "${ADMIN[*]}" "${LOAD[*]}" "${LOADERS[*]}" \
    <<'EOF' || status=1
import json, re, sys
import xml.etree.ElementTree as ET
from pathlib import Path

out = Path(sys.argv[1])
names = ("bad input", "faults", "isolation", "admin gate", "load", "loaders")
groups = dict(zip(names, (a.split() for a in sys.argv[2:])))


def module_of(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


cases: dict[str, list[tuple[str, bool]]] = {g: [] for g in groups}
junit = out / "junit.xml"
if junit.exists():
    for case in ET.parse(junit).iter("testcase"):
        outcome = {child.tag for child in case}
        if "skipped" in outcome:
            continue
        for group, files in groups.items():
            if case.get("classname", "") in {module_of(f) for f in files}:
                cases[group].append((f"{case.get('classname')}::{case.get('name')}", not outcome & {"failure", "error"}))


def tally(group: str) -> tuple[int, int]:
    return sum(ok for _, ok in cases[group]), len(cases[group])


# hypothesis examples, per test, from --hypothesis-show-statistics
examples: dict[str, int] = {}
current = None
log = (out / "pytest.log").read_text() if (out / "pytest.log").exists() else ""
for line in log.splitlines():
    if re.match(r"^\S+\.py::\S+:$", line):
        current = line[:-1]
    elif current and (m := re.search(r"(\d+) passing", line)):
        examples[current] = examples.get(current, 0) + int(m.group(1))


def read(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


pipeline_load, browser_load = read(out / "load-pipeline.json"), read(Path("artifacts/load-streamlit.json"))
failed = False
print("== reliability figures (from this run) ==")
for group, label in (("bad input", "bad-input cases tried (CLI + UI)"), ("faults", "faults survived"),
                     ("isolation", "isolation tests"), ("admin gate", "admin-gate cases"), ("load", "load tests"),
                     ("loaders", "loaders never clobber (kill, cache)")):
    passed, total = tally(group)
    failed |= passed != total or total == 0
    print(f"{label:<36} {passed} passed of {total}")
print(f"{'hypothesis examples run':<36} {sum(examples.values())} (isolation, random deals and queries)")
for test, n in sorted(examples.items()):
    print(f"    {n:>4}  {test}")
if pipeline_load:
    p = pipeline_load
    print(f"{'load, pipeline (one embedded server)':<36} {p['sessions']} sessions, {p['queries']} queries, "
          f"{p['errors']} errors; p50 {p['p50_ms']:.0f} ms, p95 {p['p95_ms']:.0f} ms, max {p['max_ms']:.0f} ms, "
          f"{p['throughput_qps']:.1f} queries/s")
    print(f"    via {p['via']}")
else:
    failed = True
    print("load, pipeline: no figures (the run failed)")
if browser_load:
    b = browser_load
    print(f"{'load, through Streamlit (chromium)':<36} {b['completed']}/{b['sessions']} sessions completed, "
          f"{b['errors']} errors, in {b['wall_s']:.1f} s; query (Enter -> results) p50 {b['query_s']['p50']:.1f} s, "
          f"p95 {b['query_s']['p95']:.1f} s; open page + query p95 {b['session_total_s']['p95']:.1f} s; "
          f"retrieve() in the server p95 {b['server_retrieve_ms']['p95']:.0f} ms")
else:
    failed = True
    print("load, through Streamlit: no figures (the browser test did not finish)")
sys.exit(1 if failed else 0)
EOF

if [[ $status -ne 0 ]]; then
    echo "RELIABILITY CHECKS FAILED (see $OUT/pytest.log)" >&2
fi
exit $status
