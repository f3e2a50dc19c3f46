"""Demo examples from the latest sweep: gains first, then losses, unchanged queries left out, said in words."""

from __future__ import annotations

from pipeline.comparison.examples import Example, swept_examples
from pipeline.evaluation.records import QueryRow, SettingResult, SweepResult, SweepSpec, SweepStats
from pipeline.retrieval.setting import setting


def _setting(reranker: str, ndcg: float, n: int = 50, k: int = 10) -> SettingResult:
    made = setting("hybrid-walk", n, reranker, k)
    return SettingResult(made, "", True, {"ndcg@10": ndcg}, {}, 1.0, 1.0, 0, None, 0, None, None)


def _sweep(per_query: dict[str, tuple[float, float]], rerankers: tuple[str, ...] = ("none", "local")) -> SweepResult:
    settings = tuple(_setting(r, sum(v[i] for v in per_query.values())) for i, r in enumerate(rerankers))
    rows = tuple(
        QueryRow(s.setting, q, {"ndcg@10": v[i]}, 1.0, ()) for i, s in enumerate(settings) for q, v in per_query.items()
    )
    return SweepResult(
        spec=SweepSpec("demo", (50,), (10,), rerankers),
        eval_set={},
        created_at="2026-11-23",
        settings=settings,
        rows=rows,
        queries={q: (f"query {q}", "factual") for q in per_query},
        qrels={},
        facts={},
        stats=SweepStats(len(per_query), 0, 0, 0, 0, 0.0),
    )


def test_gains_first_then_losses_unchanged_left_out() -> None:
    result = _sweep({"q1": (0.2, 0.5), "q2": (0.6, 0.1), "q3": (0.4, 0.4), "q4": (0.0, 0.8), "q5": (0.5, 0.45)})
    picked = swept_examples(result, "#7 'sweep'")
    assert [e.text for e in picked] == ["query q4", "query q1", "query q2", "query q5"]
    assert (
        picked[0].note
        == "Reranking (hybrid-walk + local, N=50, k=10) lifts nDCG@10 by +0.80 on this query in experiment #7 'sweep'."
    )
    assert picked[2].note.startswith("Reranking (hybrid-walk + local, N=50, k=10) lowers nDCG@10 by -0.50")


def test_a_sweep_without_a_reranker_or_a_baseline_gives_no_examples() -> None:
    assert swept_examples(_sweep({"q1": (0.2,)}, ("none",)), "#1") == []
    assert swept_examples(_sweep({"q1": (0.2,)}, ("local",)), "#1") == []


def test_an_unswept_example_has_no_note() -> None:
    assert Example("What is ARR?").note == ""
