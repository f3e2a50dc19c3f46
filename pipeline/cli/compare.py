"""`python -m pipeline compare "TEXT" --a vector:none:50:10 --b local:50:10`: Compare's judged verdict in a terminal."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.api import Lab


def add_arguments(cmp: argparse.ArgumentParser) -> None:
    cmp.add_argument("text")
    cmp.add_argument("--group", default="demo")
    cmp.add_argument("--a", default="none:50:10", help="side A as [RECIPE:]RERANKER:N:K (default none:50:10)")
    cmp.add_argument("--b", default="local:50:10", help="side B as [RECIPE:]RERANKER:N:K (default local:50:10)")
    cmp.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.api.models import Setting

    a, b = Setting.parse(args.a, "--a"), Setting.parse(args.b, "--b")
    result = await lab.comparison.compare(args.text, args.group, a, b)
    lines = [f"{result.a.query!r} on {args.group!r}: A = {a.label}, B = {b.label}"]
    if result.confidence.low:
        lines.append(f"! low confidence: the deal probably holds no good answer ({result.confidence.reason})")
    for name, run_ in (("A", result.a), ("B", result.b)):
        if run_.fallback_reason:
            lines.append(f"! {name}: the reranker fell back to first-stage order: {run_.fallback_reason}")
    if result.scores is None:
        lines.append("not judged: the query is not in the deal's labelled set and has no relevance verdicts")
    else:
        lines.append(result.verdict.line if result.verdict else "")
        for name, score in zip(("A", "B"), result.scores, strict=True):
            k = score.top_k
            lines.append(
                f"  {name}: nDCG@{k} {score.ndcg:.3f}  recall@{k} {score.recall:.3f}  MRR@{k} {score.mrr:.3f}  "
                f"relevant in top {k}: {score.relevant}"
            )
    o = result.overlap
    both = f"overlap: {o.shared} facts in both (A shows {o.size_a}, B {o.size_b})"
    lines.append(f"{both}, Jaccard {o.jaccard:.2f}, RBO {o.rbo:.2f}")
    if not args.json:
        print("\n".join(lines))
    return {
        "query": result.a.query,
        "group": args.group,
        "a": a.to_dict(),
        "b": b.to_dict(),
        "verdict": result.verdict.line if result.verdict else None,
        "outcome": result.verdict.outcome if result.verdict else None,
        "scores": [s.__dict__ for s in result.scores] if result.scores else None,
        "overlap": o.__dict__,
        "low_confidence": result.confidence.low,
        "best_cosine": result.confidence.best_cosine,
        "top_a": [r.uuid for r in result.a.results],
        "top_b": [r.uuid for r in result.b.results],
    }
