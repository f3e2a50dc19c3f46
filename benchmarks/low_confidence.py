"""The low-confidence rule (pipeline/comparison/confidence.py) measured on a deal: how many of its labelled
queries it flags (it should flag few) and how many of a fixed list of off-topic queries (it should flag all),
with the signals' ranges, so the floor can be checked on any deal and embedder."""

from __future__ import annotations

from typing import Any

from pipeline.api import Lab
from pipeline.api.models import Confidence

OFF_TOPIC = (
    "purple elephant trampoline",
    "banana bread recipe with walnuts",
    "who won the 1998 football world cup",
    "how do I repot a cactus",
    "zxqv blorft wibble",
    "best hiking trails in patagonia",
    "lyrics of a famous sea shanty",
    "what is the airspeed velocity of an unladen swallow",
    "knitting pattern for a wool scarf",
    "quantum chromodynamics gluon confinement",
    "cat videos",
    "tallest mountain on mars",
)


def _summary(found: list[Confidence]) -> dict[str, Any]:
    cosines = sorted(c.best_cosine for c in found if c.best_cosine is not None)
    return {
        "queries": len(found),
        "flagged": sum(c.low for c in found),
        "best_cosine_min": round(cosines[0], 3) if cosines else None,
        "best_cosine_median": round(cosines[len(cosines) // 2], 3) if cosines else None,
        "best_cosine_max": round(cosines[-1], 3) if cosines else None,
        "fallback_would_flag": sum(c.bm25_hits == 0 and c.agreement == 0 for c in found),
    }


async def measure(lab: Lab, group_id: str, split: str | None, limit: int | None, candidates: int) -> dict[str, Any]:
    chosen = (await lab.evaluation.load_eval_set(group_id)).select(split, limit)
    out: dict[str, Any] = {"group": group_id, "split": split, "candidates": candidates}
    for name, texts in (("labelled", [q.text for q in chosen.queries]), ("off_topic", list(OFF_TOPIC))):
        found = [await lab.comparison.assess(await lab.retrieval.retrieve(t, group_id, candidates, 10)) for t in texts]
        out[name] = _summary(found)
    return out


def render(result: dict[str, Any]) -> str:
    lines = [f"low-confidence rule on {result['group']} (N={result['candidates']}, split {result['split'] or 'all'})"]
    for name in ("labelled", "off_topic"):
        r = result[name]
        lines.append(
            f"  {name:<9} {r['flagged']:>4} of {r['queries']:<4} flagged; best cosine {r['best_cosine_min']}-"
            f"{r['best_cosine_max']} (median {r['best_cosine_median']}); the fallback rule would flag "
            f"{r['fallback_would_flag']}"
        )
    return "\n".join(lines)
