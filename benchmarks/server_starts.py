"""`python -m benchmarks server-starts`: many starts of the embedded server on a seeded data directory, beside
CPU-bound burners, with FalkorDB's query log off (the product's setting) and on (the module's default),
alternately in one run: how many starts hung, and how long the others took.

FalkorDB 4.16's query log is a timer task that can meet the module's own initialisation of the lock it takes;
redis-server then hangs for good while loading its first graph. That race needs a busy machine, hence the
burners. A start that does not answer PING within --hang-s counts as hung (and is killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.embedded_demo import embedded_demo_lab
from pipeline.api import time_start
from pipeline.api.models import QUERY_LOG_ARMS as ARMS


async def _seed(data_dir: Path) -> None:
    async with embedded_demo_lab(data_dir, "server-starts"):
        pass  # seeded, then stopped cleanly: the starts load what a stopped deal leaves


def server_starts(starts: int, burners: int, hang_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-starts-") as tmp:
        seeded = Path(tmp) / "seeded"
        asyncio.run(_seed(seeded))
        load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(burners)]
        try:
            times: dict[str, list[float]] = {arm: [] for arm in ARMS}
            hung = dict.fromkeys(ARMS, 0)
            for _ in range(starts):
                for arm, module_args in ARMS.items():
                    took = time_start(seeded, Path(tmp) / "start", module_args, hang_s)
                    if took is None:
                        hung[arm] += 1
                    else:
                        times[arm].append(took)
        finally:
            for burner in load:
                with contextlib.suppress(OSError):
                    burner.kill()
                burner.wait()
    return {
        "starts": starts,
        "burners": burners,
        "hang_s": hang_s,
        "arms": {
            arm: {
                "hung": hung[arm],
                "p50_s": statistics.median(times[arm]) if times[arm] else None,
                "p95_s": statistics.quantiles(times[arm], n=20)[-1] if len(times[arm]) >= 2 else None,
            }
            for arm in ARMS
        },
    }


def render_server_starts(result: dict[str, Any]) -> str:
    lines = [
        f"{result['starts']} starts per setting, alternately, beside {result['burners']} CPU burners "
        f"(hung: no PONG within {result['hang_s']:.0f} s)"
    ]
    for arm, figures in result["arms"].items():
        p50 = "-" if figures["p50_s"] is None else f"{figures['p50_s']:.3f} s"
        p95 = "-" if figures["p95_s"] is None else f"{figures['p95_s']:.3f} s"
        lines.append(f"  {arm:<14} hung {figures['hung']:>4} · start p50 {p50} · p95 {p95}")
    return "\n".join(lines)
