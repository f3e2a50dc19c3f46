"""`python -m pipeline ...`: seed the demo, import BEIR sets, show status.

Errors meant for the user (bad input, unreachable backend, unknown deal) print one line and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.ingest.loading import parse_time
from pipeline.lab import Lab
from pipeline.retrieval.records import RetrievalRun

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


async def _seed_demo(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.ingest.demo.seed import seed_demo

    result = await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, args.group, args.force)
    verb = "already seeded, nothing to do" if result.skipped else "seeded"
    print(
        f"demo deal {result.group_id!r} {verb}: {result.facts} facts, {result.entities} entities, "
        f"{result.episodes} episodes, {result.merges} merges",
        file=sys.stderr,
    )
    return result.__dict__


async def _import_beir(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    from pipeline.ingest.beir import import_beir

    with tqdm(total=0, unit="facts", desc=f"import {args.group}", disable=args.json) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        result = await import_beir(
            lab.backend, lab.embedder, lab.settings.resolved_data_dir, Path(args.folder), args.group,
            replace=args.replace, progress=progress,
        )  # fmt: skip
    verb = "unchanged, nothing to do" if result.skipped else "imported"
    print(
        f"{args.folder} {verb} as deal {result.group_id!r}: {result.passages} passages, "
        f"{result.queries} queries, {result.judgments} judgments",
        file=sys.stderr,
    )
    return result.__dict__


async def _status(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.graph.deals import deal_counts

    deals = []
    for deal in await lab.deals():
        counts = await deal_counts(lab.backend, deal.group_id)
        deals.append({"group": deal.group_id, "name": deal.name, "embedder": deal.embedder.describe(),
                      **counts.__dict__})  # fmt: skip
    status = {
        "backend": f"{lab.backend.label} ({lab.backend.location})",
        "embedder": lab.embedder.info.describe(),
        "voyage": "API key set" if lab.settings.voyage_api_key else "no API key (Voyage reranker off)",
        "deals": deals,
    }
    if not args.json:
        print(f"backend:  {status['backend']}\nembedder: {status['embedder']}\nvoyage:   {status['voyage']}")
        if not deals:
            print("deals:    none (run: python -m pipeline seed-demo)")
        for d in deals:
            print(
                f"deal {d['group']!r} ({d['name']}): {d['facts']} facts ({d['current_facts']} current, "
                f"{d['superseded_facts']} superseded), {d['entities']} entities, {d['episodes']} episodes, "
                f"{d['merges']} merges; embedder {d['embedder']}"
            )
    return status


async def _query(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.retrieval.retrieve import retrieve

    run = await retrieve(
        lab, args.text, args.group, args.candidates, args.top_k, args.reranker,
        include_superseded=args.include_superseded, as_of=_date(args.as_of), reranker_model=args.model,
    )  # fmt: skip
    from pipeline.history.repo import save_run

    run_id = save_run(lab.store, run, "cli")
    if not args.json:
        print(render_run(run))
    print(f"recorded as run #{run_id} (History page)", file=sys.stderr)
    return run.to_dict()


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


async def _bench(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.bench import bench, render_bench

    depths = parse_int_list(args.candidates_list, "--candidates")
    rows = await bench(lab, args.group, depths, args.top_k, args.reranker, args.limit_queries)
    if not args.json:
        print(render_bench(rows, args.reranker))
    return {"group": args.group, "reranker": args.reranker, "rows": [row.__dict__ for row in rows]}


def _bench_latency_page(args: argparse.Namespace) -> dict[str, Any]:
    """Fill a throwaway store with synthetic runs, then time the Latency page against it (no Lab needed)."""
    import subprocess
    import tempfile

    from benchmarks.synthetic_runs import fill_store
    from pipeline.store.db import open_store

    if not 1 <= args.runs <= 1_000_000:
        raise InvalidInput(f"--runs must be between 1 and 1,000,000; got {args.runs}.")
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-latency-bench-") as tmp:
        data_dir = Path(tmp)
        filled = fill_store(open_store(data_dir), args.runs, args.seed)
        print(f"filled a throwaway store with {filled.runs:,} synthetic runs in {filled.seconds:.1f} s "
              f"({filled.bytes / 1e6:,.0f} MB)", file=sys.stderr)  # fmt: skip
        env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir), "RETRIEVAL_LAB_EMBEDDER": "local"}
        # the page is timed in its own process: the pipeline never imports Streamlit
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.latency_page", "--repeat", str(args.repeat)],
            env=env, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RetrievalLabError(f"the page benchmark failed: {done.stderr.strip().splitlines()[-1:]}")
        result = {"runs": filled.runs, "fill_s": round(filled.seconds, 2), "store_mb": round(filled.bytes / 1e6),
                  **json.loads(done.stdout.strip().splitlines()[-1])}  # fmt: skip
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


def parse_int_list(value: str, what: str) -> tuple[int, ...]:
    """'10,25,50' -> (10, 25, 50); anything else (or a number under 1) is one clear error."""
    try:
        numbers = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise InvalidInput(f"{what} {value!r} is not a comma-separated list of numbers.") from None
    if not numbers or min(numbers) < 1:
        raise InvalidInput(f"{what} {value!r}: give positive numbers, e.g. 10,25,50,100.")
    return numbers


def _date(value: str | None) -> datetime | None:
    try:
        return parse_time(value)
    except ValueError:
        raise InvalidInput(f"--as-of {value!r} is not a date; use YYYY-MM-DD.") from None


def render_run(run: RetrievalRun) -> str:
    """A readable table of the top k, then timings."""
    lines = [f"{run.query!r} on {run.group_id!r}: N={run.num_candidates}, k={run.top_k}, reranker={run.reranker}"]
    if run.fallback_reason:
        lines.append(f"! reranker fell back to first-stage order: {run.fallback_reason}")
    lines.append(f"{'#':>3} {'score':>8} {'1st':>4} {'move':>5}  fact / citation")
    for result in run.results:
        r = result.ranked
        mark = " [superseded]" if r.candidate.superseded else ""
        fact = " ".join(r.candidate.fact.split())
        fact = fact if len(fact) <= 150 else fact[:149] + "…"
        lines.append(f"{r.rank:>3} {r.score:>8.4f} {r.candidate.first_stage_rank:>4} {r.rank_change:>+5}  "
                     f"{fact}{mark}")  # fmt: skip
        if result.citations:
            lines.append(f"{'':>24}{result.citations[0].label}")
    stages = ", ".join(f"{k} {v:.0f} ms" for k, v in run.timings.stages_ms.items())
    lines.append(f"timings: {stages}")
    lines.extend(f"! over budget: {msg}" for msg in run.timings.over_budget)
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)

    seed = sub.add_parser("seed-demo", help="load the bundled demo deal (idempotent)")
    seed.add_argument("--group", default="demo")
    seed.add_argument("--force", action="store_true", help="rebuild even if unchanged")
    seed.set_defaults(run=_seed_demo)

    beir = sub.add_parser("import-beir", help="import corpus.jsonl, queries.jsonl, qrels.tsv as a deal")
    beir.add_argument("folder")
    beir.add_argument("--group", required=True)
    beir.add_argument("--replace", action="store_true", help="replace a deal built from another source")
    beir.set_defaults(run=_import_beir)

    status = sub.add_parser("status", help="backend, embedder and deals with their counts")
    status.set_defaults(run=_status)

    query = sub.add_parser("query", help="retrieve, rerank and cite the top k facts for one query")
    query.add_argument("text")
    query.add_argument("--group", default="demo")
    query.add_argument("--candidates", type=int, default=None, help="N first-stage candidates (default 50)")
    query.add_argument("--top-k", type=int, default=None, help="k results (default 10)")
    query.add_argument("--reranker", default="local", help="none, local or voyage")
    query.add_argument("--model", default=None, help="Voyage rerank model (default rerank-2.5)")
    query.add_argument("--include-superseded", action="store_true")
    query.add_argument("--as-of", default=None, help="answer with the facts valid on this date (YYYY-MM-DD)")
    query.set_defaults(run=_query)

    bench = sub.add_parser("bench", help="per-stage p50/p95 over the labelled queries, beside stock search_()")
    bench.add_argument("--group", default="demo")
    bench.add_argument("--candidates", dest="candidates_list", default="10,25,50,100")
    bench.add_argument("--top-k", type=int, default=10)
    bench.add_argument("--reranker", default="local")
    bench.add_argument("--limit-queries", type=int, default=None, help="use only the first N queries")
    bench.set_defaults(run=_bench)

    page = sub.add_parser("bench-latency-page", help="time the Latency page over a throwaway store of synthetic runs")
    page.add_argument("--runs", type=int, default=10_000)
    page.add_argument("--seed", type=int, default=7)
    page.add_argument("--repeat", type=int, default=5, help="timed reruns (the median is reported)")
    page.set_defaults(run=_bench_latency_page, no_lab=True)

    from pipeline.evaluation.command import add_eval_parser

    evaluate = add_eval_parser(sub)  # `eval`: sweeps and experiments (pipeline/evaluation)

    load = sub.add_parser("load", help="concurrent sessions querying one backend (loopback only, bounded)")
    load.add_argument("--group", default="demo")
    load.add_argument("--sessions", type=int, default=20)
    load.add_argument("--queries", type=int, default=5, help="queries per session, run one after another")
    load.add_argument("--reranker", default="local")
    load.add_argument("--candidates", type=int, default=None)
    load.add_argument("--top-k", type=int, default=None)
    load.add_argument("--time-limit", type=float, default=120.0, help="seconds; sessions stop starting queries then")
    load.set_defaults(run=_load)

    for command in (seed, beir, status, query, bench, page, evaluate, load):
        command.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


async def _main(args: argparse.Namespace, run: Callable[[Lab, argparse.Namespace], Awaitable[Any]]) -> Any:
    lab = await Lab.open()
    if getattr(args, "candidates", 0) is None:
        args.candidates = lab.settings.default_candidates
    if getattr(args, "top_k", 0) is None:
        args.top_k = lab.settings.default_top_k
    try:
        return await run(lab, args)
    finally:
        await lab.close()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = args.run(args) if getattr(args, "no_lab", False) else asyncio.run(_main(args, args.run))
    except RetrievalLabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(f"error: unexpected {type(exc).__name__}: {exc} (rerun with --debug for details)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, default=str, indent=2))
    return 0
