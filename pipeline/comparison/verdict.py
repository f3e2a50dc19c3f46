"""The verdict of a judged comparison, in words, and the names of its two sides.

The verdict follows one number, the headline metric nDCG@k, as shown (two decimals): B is better, worse, or no
change against A exactly when its printed nDCG is higher, lower or the same, so the line never contradicts the
numbers beside it. The count of relevant facts in each top k is said too, and when it points the other way (more
relevant facts, lower nDCG: they sit lower or are of lower grade) the line says so plainly instead of leading with it.

Each side is named by what differs between the two settings: "without reranking" / "with local" when only the
reranker differs, else the differing parts ("N=50 · none" against "N=100 · voyage").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.comparison.judged import SideScore
from pipeline.retrieval.setting import Setting

Outcome = Literal["better", "worse", "no change"]


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome  # B against A, by nDCG@k as shown
    line: str


def _reranking(reranker: str) -> str:
    return "without reranking" if reranker == "none" else f"with {reranker}"


def side_names(a: Setting, b: Setting) -> tuple[str, str]:
    """Each side's name: what sets it apart from the other ("side A", "side B" for two identical settings)."""

    def parts(s: Setting) -> tuple[str, ...]:
        index = "vector index" if s.first_stage == "vector_index" else "exact search"
        return (s.recipe.key, f"N={s.candidates}", f"k={s.top_k}", index, s.reranker)

    differ = [i for i, (x, y) in enumerate(zip(parts(a), parts(b), strict=True)) if x != y]
    if not differ:
        return ("side A", "side B")
    if differ == [4]:
        return (_reranking(a.reranker), _reranking(b.reranker))
    return tuple(" · ".join(parts(s)[i] for i in differ) for s in (a, b))  # type: ignore[return-value]


def _facts(n: int) -> str:
    return f"{n} relevant fact{'s' if n != 1 else ''}"


def _with(name: str) -> str:
    return name if name.startswith("with") else f"with {name}"


def verdict(a: SideScore, b: SideScore, names: tuple[str, str]) -> Verdict:
    """Whether B did better than A on this query by nDCG@k, with the relevant facts each found (see the module)."""
    first, second = names
    same_k = a.top_k == b.top_k
    ndcg = f"nDCG{f'@{a.top_k}' if same_k else '@k'} {a.ndcg:.2f} -> {b.ndcg:.2f}"
    tops = f"top {b.top_k}" if same_k else "top k"
    more = b.relevant - a.relevant
    counted = f"{abs(more)} {'more' if more > 0 else 'fewer'} relevant fact{'s' if abs(more) != 1 else ''}"
    if f"{a.ndcg:.2f}" == f"{b.ndcg:.2f}":
        if a.relevant == b.relevant == 0:
            return Verdict("no change", f"No change: neither side finds a judged-relevant fact in its {tops} ({ndcg}).")
        if more == 0:
            said = f"both find {_facts(a.relevant)} in their {tops}"
        else:
            said = f"{_with(second)} finds {counted} in its {tops}"
        return Verdict("no change", f"No change: {ndcg} ({first} -> {second}); {said}.")
    outcome: Outcome = "better" if b.ndcg > a.ndcg else "worse"
    head = f"{outcome.capitalize()} {_with(second)} than {_with(first)}: {ndcg}"
    if more == 0:
        placed = "higher or of higher grade" if outcome == "better" else "lower or of lower grade"
        both = f"both find {_facts(a.relevant)} in their {tops}, ranked {placed} {_with(second)}"
        return Verdict(outcome, f"{head}; {both}.")
    if (more > 0) == (outcome == "better"):
        return Verdict(outcome, f"{head}, and {counted} in its {tops}.")
    placed = "lower down or of lower grade" if more > 0 else "higher up or of higher grade"
    return Verdict(outcome, f"{head}, although it finds {counted} in its {tops} ({placed}).")
