"""What each `python -m benchmarks` command runs (`benchmarks/cli.py` builds the parser): its options checked (a
bad one is one line, exit 2), the benchmark run, its summary printed unless `--json`, and its result returned for
the JSON line. Each imports its benchmark when it runs, so one command loads only what it measures."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pipeline.api import Lab
from pipeline.api.models import RERANKERS, Recipe
from pipeline.cli.common import parse_int_list
from pipeline.errors import InvalidInput, RetrievalLabError

ROOT = Path(__file__).resolve().parents[1]


async def run_bench(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.bench import bench, render_bench

    depths = parse_int_list(args.candidates_list, "--candidates")
    recipe = Recipe.parse(args.recipe)
    rows, held = await bench(
        lab,
        args.group,
        depths,
        args.top_k,
        args.reranker,
        args.limit_queries,
        stock_up_to=args.stock_up_to,
        first_stage=args.first_stage,
        recipe=recipe,
        hold=args.hold,
    )
    if not args.json:
        print(render_bench(rows, args.reranker, recipe.key, held))
    return {
        "group": args.group,
        "recipe": recipe.key,
        "reranker": args.reranker,
        "first_stage": args.first_stage,
        "held": held.__dict__ if held else None,
        "rows": [row.__dict__ for row in rows],
    }


async def run_load(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.load import load_test

    report = await load_test(
        lab, args.group, args.sessions, args.queries, args.reranker, args.candidates, args.top_k, args.time_limit
    )
    if not args.json:
        print(
            f"{report.sessions} concurrent sessions, {report.queries} queries in {report.wall_s:.1f} s "
            f"({report.throughput_qps:.1f}/s): {report.errors} errors; latency p50 {report.p50_ms:.0f} ms, "
            f"p95 {report.p95_ms:.0f} ms, max {report.max_ms:.0f} ms"
        )
        for sample in report.error_samples:
            print(f"  error: {sample}")
    return report.__dict__


def run_latency_page(args: argparse.Namespace) -> dict[str, Any]:
    """Fill a throwaway store with synthetic runs, then time the Latency page against it (no Lab needed)."""
    from benchmarks.synthetic_runs import fill_store
    from pipeline.api import open_store

    if not 1 <= args.runs <= 1_000_000:
        raise InvalidInput(f"--runs must be between 1 and 1,000,000; got {args.runs}.")
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-latency-bench-") as tmp:
        data_dir = Path(tmp)
        filled = fill_store(open_store(data_dir), args.runs, args.seed)
        print(
            f"filled a throwaway store with {filled.runs:,} synthetic runs in {filled.seconds:.1f} s "
            f"({filled.bytes / 1e6:,.0f} MB)",
            file=sys.stderr,
        )
        env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir), "RETRIEVAL_LAB_EMBEDDER": "local"}
        # its own process: the settings (and the page's backend) must see the throwaway data directory
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.latency_page", "--repeat", str(args.repeat)],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        if done.returncode != 0:
            raise RetrievalLabError(f"the page benchmark failed: {done.stderr.strip().splitlines()[-1:]}")
        result = {
            "runs": filled.runs,
            "fill_s": round(filled.seconds, 2),
            "store_mb": round(filled.bytes / 1e6),
            **json.loads(done.stdout.strip().splitlines()[-1]),
        }
    if not args.json:
        print(
            f"Latency page over {result['runs']:,} runs (all deals, rerankers and dates: the widest filter)\n"
            f"  data loading + aggregates + figures (latency_data(), median of {args.repeat}): "
            f"{result['functions_ms_median']:.0f} ms\n"
            f"  whole page in AppTest, warm reruns (median of {args.repeat}):              "
            f"{result['apptest_ms_median']:.0f} ms\n"
            f"  whole page in AppTest, first run of the page (imports):        {result['apptest_cold_ms']:.0f} ms\n"
            f"  budget: 1000 ms of server time -> {'PASS' if result['apptest_ms_median'] < 1000 else 'FAIL'}"
        )
    return result


def run_compare_page(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.compare_page import time_compare_page

    if args.reranker not in RERANKERS:
        raise InvalidInput(f"Unknown reranker {args.reranker!r}; choose one of: {', '.join(RERANKERS)}.")
    result = time_compare_page(args.queries, args.reranker)
    if not args.json:
        print(json.dumps(result))
    return result


def run_first_query(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.first_query import render, time_first_query

    result = time_first_query(args.queries, args.rounds)
    if not args.json:
        print(render(result))
    return result


def run_big_experiment(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.big_experiment import big_experiment

    result = big_experiment(args.settings, args.queries)
    if not args.json:
        print(
            f"a saved sweep of {result['settings']:,} settings x {result['queries']:,} queries "
            f"({result['store_mb']:,} MB store, saved in {result['save_s']} s):"
        )
        for o in result["opened"]:
            print(
                f"  {o['mode']:>5}: {o['rows']:,} rows, opened in {o['open_s']} s ({o['open_and_recommend_s']} s with "
                f"the recommendation), memory held +{o['rss_added_mb']:,} MB"
            )
    return result


def run_huge_passage(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.huge_passage import huge_passage

    if not 1 <= args.mb <= 500:
        raise InvalidInput(f"--mb must be between 1 and 500; got {args.mb}.")
    result = huge_passage(args.mb, args.queries)
    if not args.json:
        stages = ", ".join(f"{s} {ms} ms" for s, ms in result["query_stage_p50_ms"].items())
        print(
            f"one passage of {result['passage_chars']:,} characters: import {result['import_s']} s, "
            f"peak RSS {result['import_peak_rss_mb']:,} MB\n  a query that hits it (p50 of {args.queries}): {stages}"
        )
    return result


def run_scale(args: argparse.Namespace) -> dict[str, Any]:
    """The generated deal lives in its own data directory (its own embedded server), so it opens its own Lab."""
    import asyncio

    from benchmarks.scale import data_dir_for, render_scale, scale
    from pipeline.api import get_settings

    if not 100 <= args.facts <= 1_000_000:
        raise InvalidInput(f"--facts must be between 100 and 1,000,000; got {args.facts}.")
    depths = parse_int_list(args.candidates_list, "--candidates")
    if args.reranker not in RERANKERS:
        raise InvalidInput(f"Unknown reranker {args.reranker!r}; choose one of: {', '.join(RERANKERS)}.")
    settings = get_settings()
    settings = settings.model_copy(update={"data_dir": data_dir_for(args.facts, settings)})

    async def go() -> dict[str, Any]:
        lab = await Lab.open(settings)
        try:
            return await scale(lab, args.facts, depths, args.queries, args.reranker, args.stock_up_to, args.first_stage)
        finally:
            await lab.close()

    result = asyncio.run(go())
    if not args.json:
        print(render_scale(result))
    return result


def run_walk_parity(args: argparse.Namespace) -> dict[str, Any]:
    """On a deal of this data directory (its labelled queries), or with --scale on the scale benchmark's deal."""
    import asyncio

    from benchmarks.scale import GROUP, data_dir_for, generate
    from pipeline.api import get_settings
    from pipeline.api.models import WALK_FILTERS

    depths = parse_int_list(args.candidates_list, "--candidates")
    filters = [f.strip() for f in args.filters.split(",") if f.strip()]
    if not filters or any(f not in WALK_FILTERS for f in filters):
        raise InvalidInput(f"--filters: a comma-separated list of {', '.join(WALK_FILTERS)}; got {args.filters!r}.")
    settings = get_settings()
    if args.scale is not None:
        settings = settings.model_copy(update={"data_dir": data_dir_for(args.scale, settings)})

    async def go() -> list[dict[str, Any]]:
        lab = await Lab.open(settings)
        try:
            group = GROUP if args.scale is not None else args.group
            await lab.deal(group)
            if args.scale is not None:
                texts = list(generate(args.scale).queries)
            else:
                query_set = lab.query_sets.load(group)
                if query_set is None:
                    raise InvalidInput(f"Deal {group!r} has no labelled query set.")
                texts = [q.text for q in query_set.queries]
            return await lab.retrieval.walk_parity(group, texts[: args.queries], depths, filters)
        finally:
            await lab.close()

    rows = asyncio.run(go())
    return {"rows": rows, "lists_differ": sum(r["lists_differ"] for r in rows)}


async def run_low_confidence(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.low_confidence import measure, render

    result = await measure(lab, args.group, args.split, args.limit_queries, args.candidates)
    if not args.json:
        print(render(result))
    return result


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _sweep_grid(args: argparse.Namespace) -> tuple[tuple[int, ...], tuple[int, ...], list[str]]:
    """The N, k and reranker lists a sweep benchmark was given."""
    candidates = parse_int_list(args.candidates_list, "--candidates")
    return candidates, parse_int_list(args.top_k_list, "--top-k"), _names(args.reranker_list)


async def run_sweep(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.sweep import render_sweep, time_sweep

    concurrency = parse_int_list(args.concurrency_list, "--concurrency")
    grid = _sweep_grid(args)
    result = await time_sweep(lab, args.group, args.queries, *grid, concurrency, args.repeat, args.split)
    if not args.json:
        print(render_sweep(result))
    return result


async def run_recipe_sweep(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.recipe_sweep import recipe_sweep, render_recipe_sweep

    grid = _sweep_grid(args)
    many = _names(args.recipe_list)
    result = await recipe_sweep(lab, args.group, args.queries, *grid, args.one, many, args.repeat, args.split)
    if not args.json:
        print(render_recipe_sweep(result))
    return result


def run_pages(args: argparse.Namespace) -> dict[str, Any]:
    """The pages run in their own process on --data-dir (default: the configured data directory)."""
    from benchmarks.pages import render_pages, time_pages
    from pipeline.api import get_settings

    data_dir = Path(args.data_dir).resolve() if args.data_dir else get_settings().resolved_data_dir
    if not data_dir.is_dir():
        raise InvalidInput(f"--data-dir {data_dir} is not a directory.")
    result = time_pages(data_dir, args.group, args.repeat, args.only)
    if not args.json:
        print(render_pages(result))
    return result


def run_durability(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.durability import durability, render_durability
    from benchmarks.import_speed import DEFAULT_CORPUS

    corpus = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
    result = durability(corpus, args.limit, args.corrections, args.repeat)
    if not args.json:
        print(render_durability(result))
    return result


async def run_cli_start(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    """Run with the Lab open: its lease keeps the embedded server up for the commands it times."""
    from benchmarks.cli_start import cli_start, render_cli_start

    await lab.deal(args.group)  # an unknown deal: one line before any process starts
    result = cli_start(args.group, args.query, args.repeat)
    if not args.json:
        print(render_cli_start(result))
    return result


def run_server_starts(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.server_starts import render_server_starts, server_starts

    result = server_starts(args.starts, args.burners, args.hang_s)
    if not args.json:
        print(render_server_starts(result))
    return result


def run_import_speed(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.import_speed import DEFAULT_CORPUS, import_speed, render_import_speed

    result = import_speed(Path(args.corpus) if args.corpus else DEFAULT_CORPUS, args.limit, args.long, args.repeat)
    if not args.json:
        print(render_import_speed(result))
    return result
