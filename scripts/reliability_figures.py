"""The reliability checks' groups (which test files prove what) and the figures printed from a run's outputs.

    python scripts/reliability_figures.py files        the test files, one per line (for pytest)
    python scripts/reliability_figures.py report OUT   the figures, read from OUT (JUnit XML, pytest log, JSON)

Every figure comes from this run's outputs; none is written in here. Exit status 1 when a group failed or is empty.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

# label -> the test files whose cases it counts; a file belongs to one group
GROUPS: dict[str, tuple[str, ...]] = {
    "bad input, one line (CLI + UI)": (
        "tests/integration/test_cli_bad_input.py",
        "tests/app/test_bad_input_ui.py",
        "tests/app/test_bad_links.py",
        "tests/unit/test_numbers.py",
    ),
    "faults survived": (
        "tests/integration/test_server_recovery.py",
        "tests/app/test_backend_down.py",
        "tests/integration/test_voyage_reranker.py",
        "tests/app/test_voyage_faults_ui.py",
    ),
    "admin writes killed at each step": (
        "tests/integration/test_journal_crash.py",
        "tests/integration/test_loader_replace_kill.py",
    ),
    "crash recovery (kills, lost and corrupt store)": (
        "tests/unit/test_torn_tail.py",
        "tests/integration/test_crash_recovery.py",
        "tests/integration/test_random_kills.py",
        "tests/integration/test_graph_lost_mid_command.py",
        "tests/integration/test_store_belongs.py",
        "tests/integration/test_backup_restore.py",
    ),
    "nothing half-done looks done (jobs, imports)": (
        "tests/integration/test_sweep_jobs.py",
        "tests/integration/test_import_interrupted.py",
        "tests/unit/test_sweep_grid_cap.py",
        "tests/app/test_deals_page.py",
    ),
    "two processes, one data dir": (
        "tests/integration/test_admin_two_process.py",
        "tests/integration/test_journal_lock.py",
        "tests/integration/test_server_lifecycle.py",
    ),
    "damaged persistence files": ("tests/integration/test_persistence_guard.py", "tests/app/test_damaged_data_dir.py"),
    "loaders never clobber": (
        "tests/integration/test_loaders_never_clobber.py",
        "tests/integration/test_sweep_cache_state.py",
    ),
    "isolation and allow-list": (
        "tests/integration/test_isolation.py",
        "tests/integration/test_isolation_more.py",
        "tests/app/test_allow_list_walk.py",
        "tests/integration/test_allow_list_cli.py",
        "tests/unit/test_deal_access.py",
    ),
    "admin gate, throttle, private files": (
        "tests/app/test_admin_gate.py",
        "tests/app/test_admin_throttle_ui.py",
        "tests/app/test_adjudication_gate.py",
        "tests/unit/test_admin_throttle.py",
        "tests/unit/test_private_data_dir.py",
        "tests/integration/test_private_data_dir_server.py",
        "tests/unit/test_run_script.py",
    ),
    "inert data (text, charts, CSV, memory)": (
        "tests/unit/test_inert_text.py",
        "tests/unit/test_inert_charts.py",
        "tests/unit/test_bounded_tokenising.py",
        "tests/integration/test_huge_passage.py",
        "tests/browser/test_hostile_corpus.py",
    ),
    "exports that cannot act": ("tests/browser/test_grid_export.py", "tests/unit/test_csv_cells.py"),
    "load": ("tests/integration/test_load.py", "tests/browser/test_load_through_streamlit.py"),
    "held-out attacks (injection, integrity, caps)": (
        "tests/integration/test_attacks_export_injection.py",
        "tests/integration/test_attacks_integrity.py",
        "tests/integration/test_query_set_listing.py",
        "tests/integration/test_llm_judge_limits.py",
        "tests/unit/test_embedded_connect_refused.py",
        "tests/unit/test_recipe_caps.py",
        "tests/app/test_custom_recipe_input.py",
    ),
    "writes land where they were meant": (
        "tests/browser/test_spotcheck_keys.py",
        "tests/browser/test_timeline_two_corrections.py",
        "tests/browser/test_spotcheck_build_once.py",
        "tests/app/test_spotcheck_build_twice.py",
        "tests/app/test_timeline_corrections.py",
        "tests/app/test_admin_reload.py",
    ),
}


def module_of(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def read(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


def report(out: Path) -> bool:
    """Print the figures; True when every group ran and passed."""
    group_of = {module_of(f): g for g, files in GROUPS.items() for f in files}
    cases: dict[str, list[bool]] = {g: [] for g in GROUPS}
    kills = 0
    junit = out / "junit.xml"
    if junit.exists():
        for case in ET.parse(junit).iter("testcase"):
            outcome = {child.tag for child in case}
            group = group_of.get(case.get("classname", ""))
            if group is None or "skipped" in outcome:
                continue
            cases[group].append(not outcome & {"failure", "error"})
            kills += case.get("name", "").startswith("test_a_kill_at_a_step_boundary")
    examples: dict[str, int] = {}  # hypothesis examples per test, from --hypothesis-show-statistics
    current = None
    log = (out / "pytest.log").read_text() if (out / "pytest.log").exists() else ""
    for line in log.splitlines():
        if re.match(r"^\S+\.py::\S+:$", line):
            current = line[:-1]
        elif current and (m := re.search(r"(\d+) passing", line)):
            examples[current] = examples.get(current, 0) + int(m.group(1))

    ok = True
    print("== reliability figures (from this run) ==")
    for group, results in cases.items():
        ok &= bool(results) and all(results)
        print(f"{group:<40} {sum(results)} passed of {len(results)}")
    print(f"{'admin kill points (process or server)':<40} {kills} step boundaries killed, state checked after restart")
    for line in log.splitlines():  # the crash loop prints where its kills landed
        if line.startswith("random kills: "):
            print(f"{'server killed at random points':<40} {line.removeprefix('random kills: ')}")
    print(f"{'hypothesis examples run':<40} {sum(examples.values())}")
    for test, n in sorted(examples.items()):
        print(f"    {n:>4}  {test}")
    if throttle := read(out / "throttle.json"):
        print(
            f"{'admin secret brute force':<40} {throttle['guesses']} wrong guesses need "
            f"{throttle['seconds'] / 3600:.1f} h of waiting (no throttle before: ~37 guesses/s)"
        )
    else:
        ok = False
        print("admin secret brute force: no figures")
    if huge := read(out / "huge-passage.json"):
        stages = huge["query_stage_p50_ms"]
        print(
            f"{'one huge passage':<40} {huge['passage_chars'] / 1e6:.0f} M characters: import peak RSS "
            f"{huge['import_peak_rss_mb']:,} MB in {huge['import_s']} s; a query hitting it: total "
            f"{stages.get('total', sum(stages.values())):,} ms (rerank {stages.get('rerank', '-')} ms)"
        )
        print("    via python -m benchmarks huge-passage --mb 50 --json")
    else:
        ok = False
        print("one huge passage: no figures (the benchmark failed)")
    if p := read(out / "load-pipeline.json"):
        print(
            f"{'load, pipeline (one embedded server)':<40} {p['sessions']} sessions, {p['queries']} queries, "
            f"{p['errors']} errors; p50 {p['p50_ms']:.0f} ms, p95 {p['p95_ms']:.0f} ms, max {p['max_ms']:.0f} ms, "
            f"{p['throughput_qps']:.1f} queries/s"
        )
        print(f"    via {p['via']}")
    else:
        ok = False
        print("load, pipeline: no figures (the run failed)")
    if b := read(Path("artifacts/load-streamlit.json")):
        print(
            f"{'load, through Streamlit (chromium)':<40} {b['completed']}/{b['sessions']} sessions completed, "
            f"{b['errors']} errors, in {b['wall_s']:.1f} s; query (Enter -> results) p50 {b['query_s']['p50']:.1f} s, "
            f"p95 {b['query_s']['p95']:.1f} s; open page + query p95 {b['session_total_s']['p95']:.1f} s; "
            + (
                f"retrieve() in the server p95 {b['server_retrieve_ms']['p95']:.0f} ms"
                if b.get("server_retrieve_ms_read")
                else "retrieve() in the server not read from the page"
            )
        )
    else:
        ok = False
        print("load, through Streamlit: no figures (the browser test did not finish)")
    return ok


if __name__ == "__main__":
    if sys.argv[1:] == ["files"]:
        print("\n".join(f for files in GROUPS.values() for f in files))
    elif len(sys.argv) == 3 and sys.argv[1] == "report":
        sys.exit(0 if report(Path(sys.argv[2])) else 1)
    else:
        sys.exit("usage: reliability_figures.py files | report OUT")
