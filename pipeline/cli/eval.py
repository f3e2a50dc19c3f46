"""`python -m pipeline eval`: sweep recipe x N x k x reranker over a deal's judged queries, print the metric table,
save the experiment.

    python -m pipeline eval --group demo --candidates 10,25,50,100 --top-k 3,5,10 --reranker none,local
    python -m pipeline eval --group demo --recipes vector,graphiti-default,hybrid-walk --reranker none,local
    python -m pipeline eval --group demo --export-config retrieval_setting.py   # the winner as code to ship
    python -m pipeline eval --group demo --timing      # a cold sweep (caches bypassed), then a repeated one
    python -m pipeline eval --group tatqa --split test --candidates 50 --top-k 10 --reranker none,local
    python -m pipeline eval --group demo --as-of 2025-06-30 --stale-rate   # as of a date; what the filter keeps out
    python -m pipeline eval --group tatqa --sample 300 --seed 7   # a larger sample (default 150, seed 0; 0: all)

Before it starts, one line says the sweep's size and about how long it takes (from the deal's last sweep's pace).

The last line printed is the recommendation in words, on --metric (default ndcg@k).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from pipeline.api import Lab, utc_now
from pipeline.api.models import DEFAULT_RECIPE, DEFAULT_SAMPLE, RECIPE_NAMES, Recipe, SweepSpec
from pipeline.cli.common import check_writable, integer, parse_int_list
from pipeline.errors import InvalidInput


def add_arguments(ev: argparse.ArgumentParser) -> None:
    ev.add_argument("--group", default="demo")
    ev.add_argument(
        "--recipes",
        dest="recipe_list",
        default=DEFAULT_RECIPE,
        help=f"first-stage recipes, e.g. vector,graphiti-default,prod.json (of {', '.join(RECIPE_NAMES)}, "
        f"node-distance@UUID, or a graphiti SearchConfig .json file; default {DEFAULT_RECIPE})",
    )
    ev.add_argument("--candidates", dest="candidates_list", default="10,25,50,100", help="N values, e.g. 10,25,50")
    ev.add_argument("--top-k", dest="top_k_list", default="3,5,10", help="k values, e.g. 5,10")
    ev.add_argument("--reranker", dest="reranker_list", default="none,local", help="e.g. none,local,voyage")
    ev.add_argument(
        "--judgments",
        default="labelled",
        help="labelled (the deal's default query set), set:NAME (a stored set), verdicts (analysts' grades), "
        "judge (an LLM judge's), verdicts+judge (analysts', else the judge's)",
    )
    ev.add_argument(
        "--trust-judge",
        action="store_true",
        help="use the LLM judge's grades even when it agrees with the analysts below RETRIEVAL_LAB_JUDGE_MIN_KAPPA",
    )
    ev.add_argument("--split", default=None, help="only the queries of this split (e.g. test)")
    ev.add_argument(
        "--sample",
        type=integer,
        default=DEFAULT_SAMPLE,
        help=f"a seeded random sample of this many judged queries, every query of a smaller set (default "
        f"{DEFAULT_SAMPLE}; 0: every query); saved with the experiment",
    )
    ev.add_argument("--seed", type=integer, default=0, help="the sample's seed (default 0): same seed, same queries")
    ev.add_argument("--limit-queries", type=integer, default=None, help="only the first N judged queries")
    ev.add_argument("--include-superseded", action="store_true")
    ev.add_argument("--as-of", default=None, help="retrieve the facts valid on this date (YYYY-MM-DD)")
    ev.add_argument(
        "--stale-rate",
        action="store_true",
        help="also rank each query without the superseded filter: the share of each top k that would be stale",
    )
    ev.add_argument("--metric", default="ndcg@k", help="what the recommendation and p-values use (default ndcg@k)")
    ev.add_argument("--name", default=None, help="experiment name (default: deal and time)")
    ev.add_argument("--no-save", action="store_true", help="do not save the experiment")
    ev.add_argument("--no-cache", action="store_true", help="recompute first stage and reranker scores")
    ev.add_argument("--timing", action="store_true", help="time a cold sweep (caches bypassed), then a repeated one")
    ev.add_argument("--export-csv", default=None, metavar="PATH", help="write the metric table as CSV")
    ev.add_argument("--export-json", default=None, metavar="PATH", help="write the whole experiment as JSON")
    ev.add_argument(
        "--export-config",
        default=None,
        metavar="PATH",
        help="write the recommended setting as a Python module to paste into a service (graphiti search + rerank)",
    )
    ev.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    evaluation = lab.evaluation
    for path in (args.export_csv, args.export_json, args.export_config):
        check_writable(path)  # before the sweep: nothing is saved when the export could not be written
    spec = SweepSpec.with_recipes(
        args.group,
        tuple(Recipe.parse(r) for r in args.recipe_list.split(",") if r.strip()),
        candidates=parse_int_list(args.candidates_list, "--candidates"),
        top_ks=parse_int_list(args.top_k_list, "--top-k"),
        rerankers=tuple(r.strip() for r in args.reranker_list.split(",") if r.strip()),
        judgments=args.judgments,
        trust_judge=args.trust_judge,
        split=args.split,
        limit_queries=args.limit_queries,
        sample=args.sample or None,
        seed=args.seed,
        include_superseded=args.include_superseded,
        use_cache=not (args.no_cache or args.timing),
        as_of=args.as_of,
        stale_rate=args.stale_rate,
    ).validate()
    metric = evaluation.check_metric(args.metric.strip().lower())

    bars: list[Any] = []  # the bar appears with the first progress report (bad input fails before it)

    def progress_bar(label: str) -> Any:
        def progress(done: int, total: int, _message: str) -> None:
            if not bars:
                bars.append(tqdm(total=total, unit="q", desc=label, disable=args.json, file=sys.stderr))
            bars[0].n = done
            bars[0].refresh()

        return progress

    def close_bars() -> None:
        for bar in bars:
            bar.close()
        bars.clear()

    evaluation.recover_jobs(lambda line: print(line, file=sys.stderr))
    clean = evaluation.clean_experiment_name
    if args.name and not args.no_save and clean(args.name) in evaluation.experiment_names(args.group):
        raise InvalidInput(
            f"An experiment called {args.name!r} already exists on deal {args.group!r}; pick another name."
        )
    name = args.name or f"{args.group} {utc_now().strftime('%Y-%m-%d %H:%M:%S')}"
    eval_set = await evaluation.load_eval_set(spec.group_id, spec.judgments, spec.trust_judge)
    estimate = evaluation.estimate_sweep(spec, eval_set)
    print(f"sweep: {estimate.text()}", file=sys.stderr)
    # the sweep is a job as on the Evaluate page: listed there with its progress, cancellable from the page
    job_id = evaluation.create_job(spec, "cli")
    started = time.perf_counter()
    try:
        label = "sweep (cold, caches bypassed)" if args.timing else "sweep"
        outcome = await evaluation.run_job(job_id, progress_bar(label), name=name, save=not args.no_save)
    finally:
        close_bars()
    result, exp_id, name = outcome.result, outcome.experiment_id, outcome.name or name
    timing: dict[str, float] = {"first_s": round(time.perf_counter() - started, 2)}
    if args.timing:  # the repeat only times the cache: it is not a job and is not saved
        started = time.perf_counter()
        try:
            repeat = SweepSpec(**{**spec.__dict__, "use_cache": True})
            await evaluation.run_sweep(repeat, progress_bar("repeated sweep"))
        finally:
            close_bars()
        timing["repeated_s"] = round(time.perf_counter() - started, 2)
    if args.export_csv:
        Path(args.export_csv).write_text(evaluation.to_csv(result, metric), encoding="utf-8")
    if args.export_json:
        Path(args.export_json).write_text(evaluation.to_json(result), encoding="utf-8")
    if args.export_config:
        label = f"#{exp_id} {name!r}" if exp_id is not None else ""
        module = evaluation.setting_module(result, result.recommendation(metric).key, label)
        Path(args.export_config).write_text(module, encoding="utf-8")
    if not args.json:
        if args.timing:
            print(
                f"timing: first sweep {timing['first_s']:.1f} s (caches bypassed), "
                f"repeated sweep {timing['repeated_s']:.1f} s (first stage and reranker scores from the cache)"
            )
        if "judge_agreement" in result.eval_set:  # beside every metric that rests on the judge's grades
            print(result.eval_set["judge_agreement"])
        print(evaluation.render_table(result, metric))  # its last line: the recommendation in words
    if exp_id is not None:
        print(f"saved as experiment #{exp_id} {name!r} (Evaluate & tune page)", file=sys.stderr)
    rec = result.recommendation(metric)
    return {
        "experiment_id": exp_id,
        "name": name if exp_id is not None else None,
        "group": args.group,
        "eval_set": result.eval_set,
        "metric_note": "@10 metrics: top 10 of the reranked list of N, the same for every k; @k: the setting's top k",
        "as_of": spec.as_of,
        "include_superseded": spec.include_superseded,
        "metric": metric,
        "baseline": result.baseline,
        "rows": evaluation.settings_table(result, metric),
        "over_vector": [
            {"setting": g.key, "vector": g.vector_key, "percent": g.percent, "p_value": g.test.p_randomization}
            for g in evaluation.gains_over_vector(result, metric)
        ],
        "recommendation": {
            "setting": rec.key,
            "beats_baseline": rec.beats_baseline,
            "sentence": rec.sentence,
            "rule": rec.rule,
        },
        "stats": result.stats.__dict__,
        "timing": timing,
        "job_id": job_id,
        "fingerprint": result.fingerprint,
    }
