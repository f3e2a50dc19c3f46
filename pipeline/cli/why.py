"""`python -m pipeline why --group demo --setting graphiti-default:none:50:10`: where each judged-relevant fact was
lost under each setting (in no method's list, under the cosine floor, cut by N, reranked below k...), the counts
adding up to the set's relevant facts, example queries per stage, and what a larger N or a lifted floor would bring.

    python -m pipeline why --group demo --setting graphiti-default:none:50:10 --setting vector:local:50:10
    python -m pipeline why --group tatqa --set tatqa --limit-queries 50 --json
    python -m pipeline why --group demo --query-id q07 --facts     # one query, fact by fact
    python -m pipeline why --experiment 3                          # a saved sweep: its winner, baseline and best
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import integer, parse_date


def add_arguments(why: argparse.ArgumentParser) -> None:
    why.add_argument("--group", default="demo")
    why.add_argument(
        "--setting",
        action="append",
        default=None,
        help="[RECIPE:]RERANKER:N:K, repeatable (default graphiti-default:none:50:10)",
    )
    why.add_argument("--set", default=None, metavar="NAME", help="a stored query set of the deal (default: its own)")
    why.add_argument(
        "--judgments",
        default=None,
        help="another source of judgments: verdicts, judge, verdicts+judge (as `eval --judgments`)",
    )
    why.add_argument("--query-id", action="append", default=None, help="only this judged query (repeatable)")
    why.add_argument("--limit-queries", type=integer, default=None, help="only the first N judged queries")
    why.add_argument("--include-superseded", action="store_true")
    why.add_argument("--as-of", default=None, help="search the facts valid on this date (YYYY-MM-DD)")
    why.add_argument(
        "--experiment",
        type=integer,
        default=None,
        metavar="ID",
        help="X-ray a saved sweep: its recommended setting, baseline and best, on the queries it ran",
    )
    why.add_argument("--facts", action="store_true", help="also list every relevant fact with where it was lost")
    why.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.api.models import Setting
    from pipeline.errors import InvalidInput

    if args.set and args.judgments:
        raise InvalidInput("Give --set or --judgments, not both.")
    progress = _progress if not args.json and sys.stderr.isatty() else None
    if args.experiment is not None:
        given = (args.setting, args.set, args.judgments, args.query_id, args.as_of, args.limit_queries)
        if any(v is not None for v in given) or args.include_superseded:
            raise InvalidInput("--experiment X-rays the sweep's own settings, queries and dates: give it alone.")
        swept = await lab.why.experiment_report(args.experiment, progress=progress)
        if not args.json:
            print("\n".join([*report_lines(swept.report, args.facts), *(f"note: {line}" for line in swept.notes)]))
        return {**swept.report.to_dict(), "experiment": swept.experiment, "notes": list(swept.notes)}
    source = f"set:{args.set}" if args.set else (args.judgments or "labelled")
    settings = [Setting.parse(text, "--setting") for text in args.setting or ["graphiti-default:none:50:10"]]
    report = await lab.why.report(
        args.group,
        settings,
        source,
        include_superseded=args.include_superseded,
        as_of=parse_date(args.as_of),
        query_ids=args.query_id,
        limit_queries=args.limit_queries,
        progress=progress,
    )
    if not args.json:
        print("\n".join(report_lines(report, args.facts)))
    return report.to_dict()


def _progress(done: int, total: int, _text: str) -> None:
    print(f"\rX-raying query {done} of {total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def report_lines(report: Any, facts: bool = False) -> list[str]:
    from pipeline.api.models import LOSS_LABELS, LOSS_STAGES

    when = "as of " + report.as_of if report.as_of else ("all facts" if report.include_superseded else "current facts")
    lines = [f"why: deal {report.group_id!r}, {report.set_label}: {report.queries} judged queries, {when}"]
    width = max(len(label) for label in LOSS_LABELS.values())
    for s in report.settings:
        lines += ["", f"{s.label}: {s.relevant} judged-relevant facts", f"  {'where':<{width}}  facts  share"]
        for stage in LOSS_STAGES:
            n = s.counts[stage]
            share = f"{n / s.relevant:6.1%}" if s.relevant else "     -"
            lines.append(f"  {LOSS_LABELS[stage]:<{width}}  {n:5d}  {share}")
        lines.append(f"  {'total':<{width}}  {sum(s.counts.values()):5d}")
        lines += [f"  what if {w.sentence(s.relevant)}" for w in s.what_ifs]
        for stage in LOSS_STAGES:
            if stage != "kept" and s.examples[stage]:
                shown = "; ".join(f"{qid} {text[:60]!r}" for qid, text in s.examples[stage])
                lines.append(f"  e.g. {LOSS_LABELS[stage]}: {shown}")
        if facts:
            for q in (q for q in report.per_query if q.setting == s.setting):
                lines.append(f"  {q.query_id} {q.text[:80]!r}")
                for f in q.facts:
                    twin = f" [same text as {f.twin} above it]" if f.twin else ""
                    lines.append(f"    {f.stage:<12} g{f.grade} {f.fact[:70]!r}: {f.detail}{twin}")
    return lines
