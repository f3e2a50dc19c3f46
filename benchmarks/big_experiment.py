"""Opening a large saved experiment (`python -m benchmarks big-experiment`): a synthetic sweep of S settings over
Q queries is saved in a throwaway store, then opened in a fresh process each way, timed, with its memory:

- `whole`: every row with its ranking (what the Evaluate page read before, and what the JSON export reads);
- `page`: what the Evaluate page reads now: settings and per-query metrics without rankings, the two settings'
  rankings that the wins-and-losses view shows, plus the recommendation and p-values it computes.

The rankings are max(10, k) fact uuids a row, as a sweep stores them.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from pipeline.api import Lab
from pipeline.api.models import (
    BASELINE,
    DEFAULT_METRIC,
    METRIC_NAMES,
    QueryRow,
    Setting,
    SettingResult,
    SweepResult,
    SweepSpec,
    SweepStats,
)

ROOT = Path(__file__).resolve().parents[1]
MODES = ("whole", "page")


def _grid(settings: int) -> list[Setting]:
    """`settings` settings with k <= N, deep k first (the heaviest rankings), the baseline outside it."""
    recipe = BASELINE.recipe
    grid = [
        Setting(recipe, n, r, k)
        for k in range(100, 0, -1)
        for n in range(200, 0, -1)
        for r in ("local", "none")
        if k <= n
    ]
    grid = [s for s in grid if s != BASELINE]
    return grid[:settings]


def synthetic(settings: int, queries: int, seed: int = 7) -> SweepResult:
    rng = random.Random(seed)
    facts = {str(uuid.UUID(int=rng.getrandbits(128))): f"Synthetic fact {i} " + "x" * 80 for i in range(2000)}
    pool = list(facts)
    qids = [f"q{i}" for i in range(queries)]
    rows, results = [], []
    for setting in [*_grid(settings), BASELINE]:
        k = setting.top_k
        metrics = {m: rng.random() for m in METRIC_NAMES} | {"tokens@k": float(k * 40)}
        results.append(
            SettingResult(setting, setting.reranker, setting != BASELINE, metrics, {}, 50.0, 90.0, 0, None, 0, 0.5,
                          0.5)
        )  # fmt: skip
        for q in qids:
            per_query = {m: rng.random() for m in METRIC_NAMES} | {"tokens@k": float(k * 40)}
            rows.append(QueryRow(setting, q, per_query, 40.0, tuple(rng.sample(pool, max(10, k)))))
    spec = SweepSpec("bench", (50,), (10,), ("none", "local"))
    return SweepResult(
        spec=spec,
        eval_set={"scorable": queries, "type_mix": {}},
        created_at="2026-11-25T00:00:00+00:00",
        settings=tuple(results),
        rows=tuple(rows),
        queries={q: (f"query {q}", "factual") for q in qids},
        qrels={q: {pool[i]: 1} for i, q in enumerate(qids)},
        facts=facts,
        stats=SweepStats(queries, 0, 0, 0, 0, 1.0),
    )


def _rss_mb() -> float:
    """This process's resident memory now (MB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # no /proc: the peak instead


def _store_lab(data_dir: Path) -> Lab:
    """A Lab over the throwaway store alone: what is timed is the store's reads, so no graph is opened (the
    experiments' calls use the lab's store only), and no allow-list scopes it."""
    from pipeline.api import get_settings

    settings = get_settings().model_copy(update={"data_dir": data_dir, "allowed_deals": None})
    lab = Lab(settings, backend=None, embedder=None)  # type: ignore[arg-type]
    _ = lab.store  # opened (and migrated) here, not in what is timed
    return lab


def open_once(data_dir: Path, exp_id: int, mode: str) -> dict[str, Any]:
    """In this process: open the experiment `mode`'s way; seconds and memory (peak RSS before and after)."""
    evaluation = _store_lab(data_dir).evaluation
    before = _rss_mb()
    started = time.perf_counter()
    if mode == "whole":
        result = evaluation.load_experiment(exp_id)[1]
    else:
        result = evaluation.load_experiment(exp_id, rankings=False)[1]
        result = evaluation.with_rankings(exp_id, result, (result.baseline, result.grid[0].key))
    opened_s = time.perf_counter() - started
    held_mb = _rss_mb() - before  # what the opened experiment holds while it is shown
    rec = result.recommendation(DEFAULT_METRIC)  # what the page computes on opening
    return {
        "mode": mode,
        "rows": len(result.rows),
        "open_s": round(opened_s, 2),
        "open_and_recommend_s": round(time.perf_counter() - started, 2),
        "rss_added_mb": round(held_mb),
        "recommended": rec.key,
    }


def big_experiment(settings: int, queries: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-big-experiment-") as tmp:
        data_dir = Path(tmp)
        evaluation = _store_lab(data_dir).evaluation
        started = time.perf_counter()
        exp_id = evaluation.save_experiment(synthetic(settings, queries), "big")
        save_s = time.perf_counter() - started
        size_mb = sum(p.stat().st_size for p in data_dir.iterdir() if p.is_file()) / 1e6
        opened = []
        for mode in MODES:  # each in a fresh process: a clean peak RSS
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.big_experiment", str(data_dir), str(exp_id), mode],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            opened.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {
        "settings": settings,
        "queries": queries,
        "save_s": round(save_s, 1),
        "store_mb": round(size_mb),
        "opened": opened,
    }


if __name__ == "__main__":
    print(json.dumps(open_once(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3])))
