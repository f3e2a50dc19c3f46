"""`python -m benchmarks ...`: the pipeline's latency and load benchmarks, outside the product.

    python -m benchmarks bench --group demo           per-stage p50/p95 beside stock graphiti search_()
    python -m benchmarks load --group demo --sessions 20 --queries 5
    python -m benchmarks latency-page --runs 10000    the Latency page over a throwaway store of synthetic runs
    python -m benchmarks compare-page                 server time of a query on the Compare page
    python -m benchmarks first-query                  1st and 10th query on Compare after a cold start, warm-up off/on
    python -m benchmarks huge-passage --mb 50         import and query one enormous passage: peak memory, stages
    python -m benchmarks scale --facts 10000          a generated deal of that size (cached): stages per N, memory
    python -m benchmarks walk-parity --group demo     the first stage's graph walk against graphiti's BFS, list by list
    python -m benchmarks sweep --group tatqa --queries 150   a sweep cold (caches bypassed) and warm, by phase
    python -m benchmarks pages --group demo           every page's server time per rerun, cold and warm
    python -m benchmarks import-speed --limit 1000    import-beir beside embedding the same passages alone
    python -m benchmarks low-confidence --group demo  Compare's low-confidence rule on labelled and off-topic queries
    python -m benchmarks big-experiment --settings 200  a large saved sweep opened whole, and as the page opens it
    python -m benchmarks recipe-sweep --group tatqa --queries 150   seven recipes in one sweep against one alone
    python -m benchmarks server-starts --starts 2000  embedded server starts beside CPU burners: hung, p50/p95

Errors meant for the user print one line and exit 2, as `python -m pipeline` does.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pipeline.cli.common import OneLineParser, add_json_flag, integer, parse_int_list, run, seconds, whole
from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.lab import Lab
from pipeline.rerankers import RERANKERS
from pipeline.retrieval.recipes import DEFAULT_RECIPE, RECIPE_NAMES, parse_recipe
from pipeline.vector_index import FIRST_STAGES

ROOT = Path(__file__).resolve().parents[1]


async def _bench(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.bench import bench, render_bench

    depths = parse_int_list(args.candidates_list, "--candidates")
    recipe = parse_recipe(args.recipe)
    rows = await bench(
        lab,
        args.group,
        depths,
        args.top_k,
        args.reranker,
        args.limit_queries,
        stock_up_to=args.stock_up_to,
        first_stage=args.first_stage,
        recipe=recipe,
    )
    if not args.json:
        print(render_bench(rows, args.reranker, recipe.key))
    return {
        "group": args.group,
        "recipe": recipe.key,
        "reranker": args.reranker,
        "first_stage": args.first_stage,
        "rows": [row.__dict__ for row in rows],
    }


async def _load(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
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


def _latency_page(args: argparse.Namespace) -> dict[str, Any]:
    """Fill a throwaway store with synthetic runs, then time the Latency page against it (no Lab needed)."""
    from benchmarks.synthetic_runs import fill_store
    from pipeline.store.db import open_store

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


def _compare_page(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.compare_page import time_compare_page

    if args.reranker not in RERANKERS:
        raise InvalidInput(f"Unknown reranker {args.reranker!r}; choose one of: {', '.join(RERANKERS)}.")
    result = time_compare_page(args.queries, args.reranker)
    if not args.json:
        print(json.dumps(result))
    return result


def _first_query(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.first_query import render, time_first_query

    result = time_first_query(args.queries, args.rounds)
    if not args.json:
        print(render(result))
    return result


def _big_experiment(args: argparse.Namespace) -> dict[str, Any]:
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


def _huge_passage(args: argparse.Namespace) -> dict[str, Any]:
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


def _scale(args: argparse.Namespace) -> dict[str, Any]:
    """The generated deal lives in its own data directory (its own embedded server), so it opens its own Lab."""
    import asyncio

    from benchmarks.scale import data_dir_for, render_scale, scale
    from pipeline.settings import get_settings

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


def _walk_parity(args: argparse.Namespace) -> dict[str, Any]:
    """On a deal of this data directory (its labelled queries), or with --scale on the scale benchmark's deal."""
    import asyncio

    from benchmarks.scale import GROUP, data_dir_for, generate
    from benchmarks.walk_parity import FILTERS, walk_parity
    from pipeline.query_sets import load_query_set
    from pipeline.settings import get_settings

    depths = parse_int_list(args.candidates_list, "--candidates")
    filters = [f.strip() for f in args.filters.split(",") if f.strip()]
    if not filters or any(f not in FILTERS for f in filters):
        raise InvalidInput(f"--filters: a comma-separated list of {', '.join(FILTERS)}; got {args.filters!r}.")
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
                query_set = load_query_set(lab.store, group)
                if query_set is None:
                    raise InvalidInput(f"Deal {group!r} has no labelled query set.")
                texts = [q.text for q in query_set.queries]
            return await walk_parity(lab, group, texts[: args.queries], depths, filters)
        finally:
            await lab.close()

    rows = asyncio.run(go())
    return {"rows": rows, "lists_differ": sum(r["lists_differ"] for r in rows)}


async def _low_confidence(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
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


async def _sweep(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.sweep import render_sweep, time_sweep

    concurrency = parse_int_list(args.concurrency_list, "--concurrency")
    grid = _sweep_grid(args)
    result = await time_sweep(lab, args.group, args.queries, *grid, concurrency, args.repeat, args.split)
    if not args.json:
        print(render_sweep(result))
    return result


async def _recipe_sweep(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.recipe_sweep import recipe_sweep, render_recipe_sweep

    grid = _sweep_grid(args)
    many = _names(args.recipe_list)
    result = await recipe_sweep(lab, args.group, args.queries, *grid, args.one, many, args.repeat, args.split)
    if not args.json:
        print(render_recipe_sweep(result))
    return result


def _pages(args: argparse.Namespace) -> dict[str, Any]:
    """The pages run in their own process on --data-dir (default: the configured data directory)."""
    from benchmarks.pages import render_pages, time_pages
    from pipeline.settings import get_settings

    data_dir = Path(args.data_dir).resolve() if args.data_dir else get_settings().resolved_data_dir
    if not data_dir.is_dir():
        raise InvalidInput(f"--data-dir {data_dir} is not a directory.")
    result = time_pages(data_dir, args.group, args.repeat, args.only)
    if not args.json:
        print(render_pages(result))
    return result


def _durability(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.durability import durability, render_durability
    from benchmarks.import_speed import DEFAULT_CORPUS

    corpus = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
    result = durability(corpus, args.limit, args.corrections, args.repeat)
    if not args.json:
        print(render_durability(result))
    return result


def _server_starts(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.server_starts import render_server_starts, server_starts

    result = server_starts(args.starts, args.burners, args.hang_s)
    if not args.json:
        print(render_server_starts(result))
    return result


def _import_speed(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.import_speed import DEFAULT_CORPUS, import_speed, render_import_speed

    result = import_speed(Path(args.corpus) if args.corpus else DEFAULT_CORPUS, args.limit, args.long, args.repeat)
    if not args.json:
        print(render_import_speed(result))
    return result


def _sweep_options(parser: argparse.ArgumentParser, candidates: str, top_ks: str) -> None:
    """The deal, queries and grid options the sweep benchmarks share (read back by `_sweep_grid`)."""
    parser.add_argument("--group", default="demo")
    parser.add_argument("--queries", type=whole(1, 100_000), default=None, help="the first N judged queries")
    parser.add_argument("--split", default=None, help="only the queries of this split (e.g. test)")
    parser.add_argument("--candidates", dest="candidates_list", default=candidates)
    parser.add_argument("--top-k", dest="top_k_list", default=top_ks)
    parser.add_argument("--rerankers", dest="reranker_list", default="none,local")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m benchmarks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)

    bench = sub.add_parser("bench", help="per-stage p50/p95 over the labelled queries, beside stock search_()")
    bench.add_argument("--group", default="demo")
    bench.add_argument("--candidates", dest="candidates_list", default="10,25,50,100")
    bench.add_argument("--top-k", type=integer, default=10)  # its range is checked with the query's own
    bench.add_argument("--reranker", default="local")
    bench.add_argument(
        "--recipe",
        default=DEFAULT_RECIPE,
        help="first-stage recipe: a preset, node-distance@UUID or a SearchConfig .json",
    )
    bench.add_argument("--limit-queries", type=whole(1), default=None, help="use only the first N queries")
    bench.add_argument("--stock-up-to", type=whole(1), default=None, help="run stock search_() only at N up to this")
    bench.add_argument("--first-stage", choices=FIRST_STAGES, default="exact", help="vector_index: needs the index")
    bench.set_defaults(run=_bench)

    load = sub.add_parser("load", help="concurrent sessions querying one backend (loopback only, bounded)")
    load.add_argument("--group", default="demo")
    load.add_argument("--sessions", type=whole(1, 200), default=20)
    load.add_argument("--queries", type=whole(1, 1000), default=5, help="queries per session, run one after another")
    load.add_argument("--reranker", default="local")
    load.add_argument("--candidates", type=integer, default=None)
    load.add_argument("--top-k", type=integer, default=None)
    load.add_argument("--time-limit", type=seconds(), default=120.0, help="seconds; no session starts a query after")
    load.set_defaults(run=_load)

    page = sub.add_parser("latency-page", help="time the Latency page over a throwaway store of synthetic runs")
    page.add_argument("--runs", type=integer, default=10_000)
    page.add_argument("--seed", type=whole(0, 2**31 - 1), default=7)
    page.add_argument("--repeat", type=whole(1, 1000), default=5, help="timed reruns (the median is reported)")
    page.set_defaults(run=_latency_page, no_lab=True)

    compare = sub.add_parser("compare-page", help="server time of a query on the Compare page (demo deal)")
    compare.add_argument("--queries", type=whole(1, 1000), default=20)
    compare.add_argument("--reranker", default="local")
    compare.set_defaults(run=_compare_page, no_lab=True)

    first = sub.add_parser("first-query", help="1st and 10th query on Compare after a cold start (real browser)")
    first.add_argument("--queries", type=whole(2, 100), default=10)
    first.add_argument("--rounds", type=whole(1, 20), default=1, help="cold starts per mode (medians reported)")
    first.set_defaults(run=_first_query, no_lab=True)

    huge = sub.add_parser("huge-passage", help="import and query one enormous passage (throwaway data dir)")
    huge.add_argument("--mb", type=integer, default=50, help="size of the passage in MB")
    huge.add_argument("--queries", type=integer, default=3)
    huge.set_defaults(run=_huge_passage, no_lab=True)

    sizes = sub.add_parser("scale", help="a generated deal of --facts facts (cached): stages per N, server memory")
    sizes.add_argument("--facts", type=integer, default=10_000)
    sizes.add_argument("--candidates", dest="candidates_list", default="10,50,100,200")
    sizes.add_argument("--queries", type=whole(1, 200), default=20)
    sizes.add_argument("--reranker", default="local")
    sizes.add_argument("--stock-up-to", type=whole(1), default=None, help="run stock search_() only at N up to this")
    sizes.add_argument("--first-stage", choices=FIRST_STAGES, default="exact", help="vector_index: build and use it")
    sizes.set_defaults(run=_scale, no_lab=True)

    parity = sub.add_parser("walk-parity", help="the first stage's graph walk against graphiti's BFS, list by list")
    parity.add_argument("--group", default="demo")
    parity.add_argument("--scale", type=integer, default=None, help="use the scale benchmark's deal of this many facts")
    parity.add_argument("--candidates", dest="candidates_list", default="10,50,200")
    parity.add_argument("--queries", type=whole(1, 10_000), default=50)
    parity.add_argument("--filters", default=",".join(("current", "all", "as-of")))
    parity.set_defaults(run=_walk_parity, no_lab=True)

    sweep = sub.add_parser("sweep", help="a sweep cold (caches bypassed) and warm, with its time by phase")
    _sweep_options(sweep, candidates="10,25,50,100", top_ks="3,5,10")
    sweep.add_argument("--concurrency", dest="concurrency_list", default="1", help="queries in flight, e.g. 1,2,4")
    sweep.add_argument("--repeat", type=whole(1, 20), default=1, help="cold sweeps per concurrency (median)")
    sweep.set_defaults(run=_sweep)

    recipes = sub.add_parser("recipe-sweep", help="a sweep of many recipes against a sweep of one (cost ratio)")
    _sweep_options(recipes, candidates="25,50", top_ks="10")
    recipes.add_argument("--one", default="graphiti-default", help="the single recipe (default graphiti-default)")
    recipes.add_argument(
        "--recipes", dest="recipe_list", default=",".join(RECIPE_NAMES), help="the many (default: all)"
    )
    recipes.add_argument("--repeat", type=whole(1, 20), default=1, help="rounds (median)")
    recipes.set_defaults(run=_recipe_sweep)

    pages = sub.add_parser("pages", help="every page's server time per rerun (AppTest), cold and warm")
    pages.add_argument("--data-dir", default=None, help="a data directory (default: RETRIEVAL_LAB_DATA_DIR)")
    pages.add_argument("--group", default=None, help="the deal (default: the sidebar's default deal)")
    pages.add_argument("--repeat", type=whole(1, 1000), default=5, help="warm reruns per page")
    pages.add_argument("--only", default="", help="comma-separated page titles, e.g. Timeline,Merges")
    pages.set_defaults(run=_pages, no_lab=True)

    speed = sub.add_parser("import-speed", help="import-beir beside embedding the same passages alone (ratio)")
    speed.add_argument("--corpus", default=None, help="a BEIR folder (default: ../shared/data/tatqa)")
    speed.add_argument("--limit", type=whole(1, 1_000_000), default=1000, help="import the first N passages")
    speed.add_argument("--long", action="store_true", help="join neighbouring passages to ~1,300 characters")
    speed.add_argument("--repeat", type=whole(1, 20), default=2, help="imports and embeddings, alternately")
    speed.set_defaults(run=_import_speed, no_lab=True)

    fsync = sub.add_parser("durability", help="appendfsync always (the policy) against everysec: imports, corrections")
    fsync.add_argument("--corpus", default=None, help="a BEIR folder (default: ../shared/data/tatqa)")
    fsync.add_argument("--limit", type=whole(1, 1_000_000), default=300, help="import the first N passages")
    fsync.add_argument("--corrections", type=whole(1, 300), default=20, help="corrections a round")
    fsync.add_argument("--repeat", type=whole(1, 20), default=2, help="rounds under each policy, alternately")
    fsync.set_defaults(run=_durability, no_lab=True)

    starts = sub.add_parser("server-starts", help="embedded server starts beside CPU burners, query log off and on")
    starts.add_argument("--starts", type=whole(1, 1_000_000), default=2000, help="starts per setting")
    starts.add_argument("--burners", type=whole(0, 64), default=2, help="CPU-bound processes beside them")
    starts.add_argument("--hang-s", type=seconds(600), default=20.0, help="a start without PONG by then hung")
    starts.set_defaults(run=_server_starts, no_lab=True)

    low = sub.add_parser("low-confidence", help="Compare's low-confidence rule on labelled and off-topic queries")
    low.add_argument("--group", default="demo")
    low.add_argument("--split", default=None, help="only the labelled queries of this split (e.g. test)")
    low.add_argument("--limit-queries", type=whole(1, 100_000), default=None)
    low.add_argument("--candidates", type=whole(1, 200), default=50)
    low.set_defaults(run=_low_confidence)

    big = sub.add_parser("big-experiment", help="open a large saved sweep, whole and as the Evaluate page does")
    big.add_argument("--settings", type=whole(1, 100_000), default=200, help="settings (default: the grid cap)")
    big.add_argument("--queries", type=whole(1, 100_000), default=54)
    big.set_defaults(run=_big_experiment, no_lab=True)

    add_json_flag(
        bench, load, page, compare, first, huge, sizes, parity, sweep, recipes, pages, speed, fsync, starts, low, big
    )

    return parser


def main(argv: list[str] | None = None) -> int:
    return run(build_parser(), argv)
