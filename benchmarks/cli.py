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
    python -m benchmarks cli-start --group demo       each CLI command's cold wall time beside `python -c pass`

Errors meant for the user print one line and exit 2, as `python -m pipeline` does.
"""

from __future__ import annotations

import argparse

from benchmarks import commands  # what each command runs; this module is the parser
from pipeline.api.models import DEFAULT_RECIPE, FIRST_STAGES, RECIPE_NAMES
from pipeline.cli.common import OneLineParser, add_json_flag, integer, run, seconds, whole


def _sweep_options(parser: argparse.ArgumentParser, candidates: str, top_ks: str) -> None:
    """The deal, queries and grid options the sweep benchmarks share (read back by `commands._sweep_grid`)."""
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
    bench.add_argument(
        "--no-hold", dest="hold", action="store_false", help="do not hold the deal's facts in memory (as a CLI query)"
    )
    bench.set_defaults(run=commands.run_bench)

    load = sub.add_parser("load", help="concurrent sessions querying one backend (loopback only, bounded)")
    load.add_argument("--group", default="demo")
    load.add_argument("--sessions", type=whole(1, 200), default=20)
    load.add_argument("--queries", type=whole(1, 1000), default=5, help="queries per session, run one after another")
    load.add_argument("--reranker", default="local")
    load.add_argument("--candidates", type=integer, default=None)
    load.add_argument("--top-k", type=integer, default=None)
    load.add_argument("--time-limit", type=seconds(), default=120.0, help="seconds; no session starts a query after")
    load.set_defaults(run=commands.run_load)

    page = sub.add_parser("latency-page", help="time the Latency page over a throwaway store of synthetic runs")
    page.add_argument("--runs", type=integer, default=10_000)
    page.add_argument("--seed", type=whole(0, 2**31 - 1), default=7)
    page.add_argument("--repeat", type=whole(1, 1000), default=5, help="timed reruns (the median is reported)")
    page.set_defaults(run=commands.run_latency_page, no_lab=True)

    compare = sub.add_parser("compare-page", help="server time of a query on the Compare page (demo deal)")
    compare.add_argument("--queries", type=whole(1, 1000), default=20)
    compare.add_argument("--reranker", default="local")
    compare.set_defaults(run=commands.run_compare_page, no_lab=True)

    first = sub.add_parser("first-query", help="1st and 10th query on Compare after a cold start (real browser)")
    first.add_argument("--queries", type=whole(2, 100), default=10)
    first.add_argument("--rounds", type=whole(1, 20), default=1, help="cold starts per mode (medians reported)")
    first.set_defaults(run=commands.run_first_query, no_lab=True)

    huge = sub.add_parser("huge-passage", help="import and query one enormous passage (throwaway data dir)")
    huge.add_argument("--mb", type=integer, default=50, help="size of the passage in MB")
    huge.add_argument("--queries", type=integer, default=3)
    huge.set_defaults(run=commands.run_huge_passage, no_lab=True)

    sizes = sub.add_parser("scale", help="a generated deal of --facts facts (cached): stages per N, server memory")
    sizes.add_argument("--facts", type=integer, default=10_000)
    sizes.add_argument("--candidates", dest="candidates_list", default="10,50,100,200")
    sizes.add_argument("--queries", type=whole(1, 200), default=20)
    sizes.add_argument("--reranker", default="local")
    sizes.add_argument("--stock-up-to", type=whole(1), default=None, help="run stock search_() only at N up to this")
    sizes.add_argument("--first-stage", choices=FIRST_STAGES, default="exact", help="vector_index: build and use it")
    sizes.set_defaults(run=commands.run_scale, no_lab=True)

    parity = sub.add_parser("walk-parity", help="the first stage's graph walk against graphiti's BFS, list by list")
    parity.add_argument("--group", default="demo")
    parity.add_argument("--scale", type=integer, default=None, help="use the scale benchmark's deal of this many facts")
    parity.add_argument("--candidates", dest="candidates_list", default="10,50,200")
    parity.add_argument("--queries", type=whole(1, 10_000), default=50)
    parity.add_argument("--filters", default=",".join(("current", "all", "as-of")))
    parity.set_defaults(run=commands.run_walk_parity, no_lab=True)

    sweep = sub.add_parser("sweep", help="a sweep cold (caches bypassed) and warm, with its time by phase")
    _sweep_options(sweep, candidates="10,25,50,100", top_ks="3,5,10")
    sweep.add_argument("--concurrency", dest="concurrency_list", default="1", help="queries in flight, e.g. 1,2,4")
    sweep.add_argument("--repeat", type=whole(1, 20), default=1, help="cold sweeps per concurrency (median)")
    sweep.set_defaults(run=commands.run_sweep)

    recipes = sub.add_parser("recipe-sweep", help="a sweep of many recipes against a sweep of one (cost ratio)")
    _sweep_options(recipes, candidates="25,50", top_ks="10")
    recipes.add_argument("--one", default="graphiti-default", help="the single recipe (default graphiti-default)")
    recipes.add_argument(
        "--recipes", dest="recipe_list", default=",".join(RECIPE_NAMES), help="the many (default: all)"
    )
    recipes.add_argument("--repeat", type=whole(1, 20), default=1, help="rounds (median)")
    recipes.set_defaults(run=commands.run_recipe_sweep)

    pages = sub.add_parser("pages", help="every page's server time per rerun (AppTest), cold and warm")
    pages.add_argument("--data-dir", default=None, help="a data directory (default: RETRIEVAL_LAB_DATA_DIR)")
    pages.add_argument("--group", default=None, help="the deal (default: the sidebar's default deal)")
    pages.add_argument("--repeat", type=whole(1, 1000), default=5, help="warm reruns per page")
    pages.add_argument("--only", default="", help="comma-separated page titles, e.g. Timeline,Merges")
    pages.set_defaults(run=commands.run_pages, no_lab=True)

    speed = sub.add_parser("import-speed", help="import-beir beside embedding the same passages alone (ratio)")
    speed.add_argument("--corpus", default=None, help="a BEIR folder (default: ../shared/data/tatqa)")
    speed.add_argument("--limit", type=whole(1, 1_000_000), default=1000, help="import the first N passages")
    speed.add_argument("--long", action="store_true", help="join neighbouring passages to ~1,300 characters")
    speed.add_argument("--repeat", type=whole(1, 20), default=2, help="imports and embeddings, alternately")
    speed.set_defaults(run=commands.run_import_speed, no_lab=True)

    fsync = sub.add_parser("durability", help="appendfsync always (the policy) against everysec: imports, corrections")
    fsync.add_argument("--corpus", default=None, help="a BEIR folder (default: ../shared/data/tatqa)")
    fsync.add_argument("--limit", type=whole(1, 1_000_000), default=300, help="import the first N passages")
    fsync.add_argument("--corrections", type=whole(1, 300), default=20, help="corrections a round")
    fsync.add_argument("--repeat", type=whole(1, 20), default=2, help="rounds under each policy, alternately")
    fsync.set_defaults(run=commands.run_durability, no_lab=True)

    starts = sub.add_parser("server-starts", help="embedded server starts beside CPU burners, query log off and on")
    starts.add_argument("--starts", type=whole(1, 1_000_000), default=2000, help="starts per setting")
    starts.add_argument("--burners", type=whole(0, 64), default=2, help="CPU-bound processes beside them")
    starts.add_argument("--hang-s", type=seconds(600), default=20.0, help="a start without PONG by then hung")
    starts.set_defaults(run=commands.run_server_starts, no_lab=True)

    start = sub.add_parser("cli-start", help="each CLI command's cold wall time beside python -c pass")
    start.add_argument("--group", default="demo")
    start.add_argument("--query", default="What was FY2025 revenue?", help="the query command's text")
    start.add_argument("--repeat", type=whole(1, 1000), default=5, help="rounds (median)")
    start.set_defaults(run=commands.run_cli_start)

    low = sub.add_parser("low-confidence", help="Compare's low-confidence rule on labelled and off-topic queries")
    low.add_argument("--group", default="demo")
    low.add_argument("--split", default=None, help="only the labelled queries of this split (e.g. test)")
    low.add_argument("--limit-queries", type=whole(1, 100_000), default=None)
    low.add_argument("--candidates", type=whole(1, 200), default=50)
    low.set_defaults(run=commands.run_low_confidence)

    big = sub.add_parser("big-experiment", help="open a large saved sweep, whole and as the Evaluate page does")
    big.add_argument("--settings", type=whole(1, 100_000), default=200, help="settings (default: the grid cap)")
    big.add_argument("--queries", type=whole(1, 100_000), default=54)
    big.set_defaults(run=commands.run_big_experiment, no_lab=True)

    add_json_flag(
        bench,
        load,
        page,
        compare,
        first,
        huge,
        sizes,
        parity,
        sweep,
        recipes,
        pages,
        speed,
        fsync,
        starts,
        start,
        low,
        big,
    )

    return parser


def main(argv: list[str] | None = None) -> int:
    return run(build_parser(), argv)
