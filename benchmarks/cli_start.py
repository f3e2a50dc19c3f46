"""`python -m benchmarks cli-start`: each command's cold wall time, a fresh `python -m pipeline` process each time,
beside `python -c pass` (the interpreter alone), alternating over `--repeat` rounds so the machine's noise falls on
all alike. The benchmark holds the Lab open, so the embedded server stays up between the commands: the figures are
the CLI's own start (imports, settings, connecting, the command), not the server's load of the graph.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

from pipeline.errors import InvalidInput


def commands(group: str, query: str) -> dict[str, list[str]]:
    """Label -> the interpreter's arguments."""
    cli = ["-m", "pipeline"]
    return {
        "python -c pass": ["-c", "pass"],
        "--help": [*cli, "--help"],
        "status": [*cli, "status"],
        "deals": [*cli, "deals"],
        "query --reranker local": [*cli, "query", query, "--group", group, "--reranker", "local"],
    }


def _wall_s(args: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise InvalidInput(f"`python {' '.join(args)}` failed (exit {done.returncode}): {last}")
    return took


def cli_start(group: str, query: str, repeat: int) -> dict[str, Any]:
    runs = commands(group, query)
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _round in range(repeat):
        for label, args in runs.items():
            times[label].append(_wall_s(args))
    return {
        "group": group,
        "repeat": repeat,
        "commands": {
            label: {"p50_s": round(statistics.median(values), 3), "max_s": round(max(values), 3)}
            for label, values in times.items()
        },
    }


def render_cli_start(result: dict[str, Any]) -> str:
    lines = [f"cold wall time of a fresh process, median of {result['repeat']} (deal {result['group']!r}):"]
    for label, figures in result["commands"].items():
        lines.append(f"  {label:<24} {figures['p50_s']:6.2f} s  (max {figures['max_s']:.2f} s)")
    return "\n".join(lines)
