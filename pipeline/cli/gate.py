"""`python -m pipeline gate`: a retrieval-quality regression gate for CI (pipeline/gate).

    python -m pipeline gate --group demo --baseline graphiti-default:local:50:10 --candidate vector:local:50:10
    python -m pipeline gate --group demo --baseline 12 --candidate production.json --junit gate.xml
    python -m pipeline gate --group demo --baseline graphiti-default:local:50:10 --candidate production.json \
        --save-baseline retrieval-baseline.json          # accept the candidate's numbers as the new baseline
    python -m pipeline gate --group demo --baseline retrieval-baseline.json --candidate production.json \
        --p95-budget-ms 300 --junit gate.xml

The baseline is a setting ([RECIPE:]RERANKER:N:K, or a .json setting), an experiment id (its recommended setting,
with its stored per-query numbers), or a baseline file written by --save-baseline; the candidate is a setting. Both
are ranked on the same queries by the sweep engine; nothing is saved as an experiment.

Exit codes: 0 every check holds; 1 a regression (the last line names the failing checks); 2 bad input (one line,
nothing written).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.api import Lab, decimal_number, now_iso, whole_number
from pipeline.cli.common import Failed, check_writable, integer
from pipeline.errors import InvalidInput

if TYPE_CHECKING:  # the gate's values are imported where used: its engine loads scipy and the sweep
    from pipeline.api.models import Limits, Ranking, Selection, Setting, Side, Verdict


def _fraction(text: str) -> float:
    value = decimal_number(text)
    if value is None or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: give a number from 0 to 1 (e. 0.01)")
    return value


def _milliseconds(text: str) -> float:
    value = decimal_number(text)
    if value is None or not 0 < value <= 3_600_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: give milliseconds above 0, at most 3,600,000")
    return value


def add_arguments(gate: argparse.ArgumentParser) -> None:
    gate.add_argument("--group", required=True)
    source = gate.add_mutually_exclusive_group()
    source.add_argument("--set", dest="set_name", default=None, help="the deal's stored query set NAME")
    source.add_argument(
        "--judgments", default=None, help="labelled (default), set:NAME, verdicts, judge, verdicts+judge (as eval)"
    )
    gate.add_argument("--trust-judge", action="store_true", help="use the LLM judge's grades even below the kappa")
    gate.add_argument("--split", default=None, help="only the queries of this split (e. test)")
    gate.add_argument("--sample", type=integer, default=None, help="a seeded sample of N queries (default 150; 0: all)")
    gate.add_argument("--seed", type=integer, default=None, help="the sample's seed (default 0)")
    gate.add_argument(
        "--baseline",
        required=True,
        help="EXPERIMENT_ID, [RECIPE:]RERANKER:N:K, a setting .json, or a baseline file from --save-baseline",
    )
    gate.add_argument("--candidate", required=True, help="[RECIPE:]RERANKER:N:K or a setting .json (production.json)")
    gate.add_argument("--metric", default=None, help="ndcg@10 (default; a baseline file's own metric), ndcg@k, ...")
    gate.add_argument(
        "--max-drop", type=_fraction, default=None, help="the drop of the metric's mean allowed (default 0.01)"
    )
    gate.add_argument("--p95-budget-ms", type=_milliseconds, default=None, help="fail when the candidate's p95 is over")
    gate.add_argument("--junit", default=None, metavar="PATH", help="write the checks as JUnit XML for the CI")
    gate.add_argument(
        "--save-baseline", default=None, metavar="PATH", help="when the gate holds, write the candidate as a baseline"
    )
    gate.set_defaults(run=run)


def _read_json(path: str, flag: str) -> Any:
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"{flag} {path}: no such file.")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{flag} {path}: cannot be read ({type(exc).__name__}).") from None

    def no_constant(name: str) -> None:
        raise ValueError(f"{name} is not a number here")

    try:
        return json.loads(text, parse_constant=no_constant)
    except ValueError as exc:
        raise InvalidInput(f"{flag} {path}: not JSON ({str(exc).splitlines()[0][:120]}).") from None


def _setting(lab: Lab, text: str, flag: str) -> tuple[Setting, str]:
    """(Setting, how a command line names it) from `[RECIPE:]RERANKER:N:K` or a setting .json file."""
    from pipeline.api.models import Setting

    if text.strip().endswith(".json"):
        setting = Setting.from_dict(_read_json(text, flag), f"{flag} {text}")
        return setting, lab.gate.command_name(setting)
    return Setting.parse(text, flag), text


def _flags_agree(args: argparse.Namespace, judgments: str | None, selection: Selection, what: str) -> None:
    """With a stored baseline, the queries are its own: a selection flag may only repeat what it holds."""
    given = (  # (flag, given?, what it asks for, what the baseline holds); --sample 0 means every query (None)
        ("--judgments", judgments is not None, judgments, selection.judgments),
        ("--split", args.split is not None, args.split, selection.split),
        ("--sample", args.sample is not None, args.sample or None, selection.sample),
        ("--seed", args.seed is not None, args.seed, selection.seed),
    )
    for flag, asked, mine, theirs in given:
        if asked and mine != theirs:
            raise InvalidInput(
                f"{flag} {mine!r} differs from {what}'s ({theirs!r}): the baseline fixes the queries; leave {flag} out."
            )


def _write_atomic(path: str, data: bytes) -> None:
    """The whole file or none: written beside its target, then moved onto it."""
    target = Path(path)
    staging = target.parent / f".{target.name}.{secrets.token_hex(6)}.partial"
    try:
        with staging.open("xb") as handle:
            handle.write(data)
        os.replace(staging, target)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class _Baseline:
    """What --baseline names: a setting to rank, or stored numbers (`side`) with the queries and judgments version
    they were measured on."""

    origin: str  # how the output names where it came from
    metric: str
    setting: Setting | None = None  # a setting to rank, named `name` on a command line
    name: str = ""
    side: Side | None = None  # stored numbers, with the queries and the judgments version they were measured on
    selection: Selection | None = None
    judgments: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None  # what stored numbers ran with (None: ranked now, beside the candidate)


def _baseline(lab: Lab, args: argparse.Namespace, metric: str | None) -> _Baseline:
    from pipeline.api.models import GATE_METRIC

    text = args.baseline.strip()
    if (exp_id := whole_number(text, 1)) is not None:
        metric = metric or GATE_METRIC
        side, selection, judgments, manifest = lab.gate.experiment_baseline(exp_id, args.group, metric)
        if judgments is None:
            _say(f"experiment #{exp_id} was saved without a fingerprint: whether its judgments changed is unknown")
        origin = f"experiment #{exp_id}'s recommended setting"
        return _Baseline(origin, metric, side=side, selection=selection, judgments=judgments, manifest=manifest)
    if text.endswith(".json") and lab.gate.is_baseline_file(data := _read_json(text, "--baseline")):
        found = lab.gate.baseline_from_dict(data, f"--baseline {text}")
        if found.group_id != args.group:
            raise InvalidInput(f"--baseline {text} was saved on deal {found.group_id!r}, not {args.group!r}.")
        if metric is not None and metric != found.metric:
            raise InvalidInput(
                f"--baseline {text} holds {found.metric} values, not {metric}: leave --metric out, or save a baseline "
                "on that metric."
            )
        origin = f"baseline file {text}"
        stored = dict(side=found.side, selection=found.selection, judgments=found.judgments, manifest=found.manifest)
        return _Baseline(origin, found.metric, **stored)
    setting, name = _setting(lab, text, "--baseline")
    return _Baseline("setting", metric or GATE_METRIC, setting, name)


def _say(line: str) -> None:
    print(f"gate: {line}", file=sys.stderr)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any] | Failed:
    from pipeline.api.models import DEFAULT_SAMPLE, MAX_DROP, Limits, Selection, StoredBaseline

    for path in (args.junit, args.save_baseline):
        check_writable(path)  # before any work: nothing is ranked when the outputs could not be written
    judgments = f"set:{args.set_name}" if args.set_name else args.judgments
    candidate, candidate_name = _setting(lab, args.candidate, "--candidate")
    baseline = _baseline(lab, args, lab.evaluation.check_metric(args.metric.strip().lower()) if args.metric else None)
    fresh = args.p95_budget_ms is not None  # a latency budget: the candidate's latency measured now, not cached
    if baseline.side is not None:
        _flags_agree(args, judgments, baseline.selection, baseline.origin)
        selection, wanted = baseline.selection, [(candidate, candidate_name, fresh)]
    else:
        sample = DEFAULT_SAMPLE if args.sample is None else (args.sample or None)
        selection = Selection(judgments or "labelled", args.split, sample, args.seed or 0, args.trust_judge)
        wanted = [(baseline.setting, baseline.name, False), (candidate, candidate_name, fresh)]

    ranking = await lab.gate.rank_sides(args.group, wanted, selection, baseline.metric, baseline.judgments, _say)
    base = baseline.side if baseline.side is not None else ranking.sides[0]
    cand = ranking.sides[-1]
    limits = Limits(MAX_DROP if args.max_drop is None else args.max_drop, args.p95_budget_ms)
    pool = lab.gate.pool_gap(base, cand, ranking.qrels, args.group, selection.judgments)
    verdict = lab.gate.evaluate(baseline.metric, base, cand, ranking.kind, limits, pool)

    if args.junit:
        _write_atomic(args.junit, lab.gate.junit_xml(verdict))
        _say(f"JUnit report written to {args.junit}")
    saved = None
    if args.save_baseline and verdict.holds:
        kind, version = ranking.kind, ranking.judgments
        accepted = StoredBaseline(
            args.group, baseline.metric, cand, kind, version, selection, now_iso(), ranking.manifest
        )
        _write_atomic(args.save_baseline, (json.dumps(lab.gate.baseline_to_dict(accepted), indent=1) + "\n").encode())
        saved = args.save_baseline
        _say(f"baseline written to {saved}")
    elif args.save_baseline:
        _say(f"{args.save_baseline} not written: a failing candidate is not accepted as the baseline")
    differs = _what_differs(lab, baseline, ranking)
    report = _report(args, baseline, ranking, selection, base, cand, limits, verdict, saved)
    report["differs"] = differs
    if not args.json:
        queries = f"{ranking.queries} queries ({selection.words(ranking.queries)})"
        print(f"gate on deal {args.group!r}: {queries}, {baseline.metric}")
        print(f"baseline: {base.setting.label} ({baseline.origin})")
        print(f"candidate: {cand.setting.label}")
        for line in differs:
            print(f"note: {line}")
        print("\n".join(check.line for check in verdict.checks))
        print(verdict.last_line)
    return report if verdict.holds else Failed(report)  # exit 1, after every line is printed


def _what_differs(lab: Lab, baseline: _Baseline, ranking: Ranking) -> list[str]:
    """What the stored baseline ran with that the candidate did not ("The embedder changed: ..."): a difference
    in the numbers may come from there, not from the setting. Nothing for a baseline ranked now, beside it."""
    if baseline.manifest is None:
        return []
    return lab.evaluation.manifest_differences(baseline.manifest, ranking.manifest, ("baseline", "candidate"))


def _report(
    args: argparse.Namespace,
    baseline: _Baseline,
    ranking: Ranking,
    selection: Selection,
    base: Side,
    cand: Side,
    limits: Limits,
    verdict: Verdict,
    saved: str | None,
) -> dict[str, Any]:

    return {
        "group": args.group,
        "metric": baseline.metric,
        "queries": ranking.queries,
        "selection": selection.to_dict(),
        "judgments": ranking.judgments,
        "judgment_kind": ranking.kind,
        "baseline": {"from": baseline.origin, "setting": base.setting.to_dict(), "label": base.setting.label},
        "candidate": {"setting": cand.setting.to_dict(), "label": cand.setting.label},
        "max_drop": limits.max_drop,
        "p95_budget_ms": limits.p95_budget_ms,
        "checks": [c.to_dict() for c in verdict.checks],
        "holds": verdict.holds,
        "failed": list(verdict.failed),
        "verdict": verdict.last_line,
        "junit": args.junit,
        "saved_baseline": saved,
    }
