"""A freshly seeded demo offers, as its first one-click examples, queries where reranking wins: measured when the
demo is seeded (a sweep of its labelled set, without and with the local re-scorer) and checked here by running
each of them through the one retrieval path and the verdict Compare shows."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.comparison.compare import compare
from pipeline.comparison.examples import examples
from pipeline.evaluation.experiments import list_experiments
from pipeline.ingest.demo.seed import EXAMPLES_NAME as NAME
from pipeline.ingest.demo.seed import measure_examples, seed_demo
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import setting

GROUP = "demo_seeded_examples"
README = Path(__file__).resolve().parents[2] / "README.md"
CLI_GROUP = "demo_seeded_examples_cli"


async def _drop(lab: Lab, group_id: str) -> None:
    await lab.backend.delete_graph(group_id)
    with lab.store.transaction() as conn:
        conn.execute("DELETE FROM experiments WHERE group_id = ?", (group_id,))


@pytest.fixture
async def fresh(lab: Lab) -> AsyncIterator[str]:
    """The demo data seeded as a deal of its own, with no experiment yet (dropped afterwards)."""
    await _drop(lab, GROUP)
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, GROUP, force=True)
    yield GROUP
    await _drop(lab, GROUP)


async def test_a_freshly_seeded_demo_offers_first_the_queries_reranking_wins(lab: Lab, fresh: str) -> None:
    assert all(e.delta is None for e in examples(lab.store, fresh))  # unmeasured: just the labelled queries
    experiment = await measure_examples(lab, fresh)
    assert experiment is not None
    assert [e.name for e in list_experiments(lab.store, fresh)] == [NAME]
    offered = examples(lab.store, fresh)
    wins = [e for e in offered if e.delta is not None and e.delta > 0]
    assert len(wins) >= 3 and offered[: len(wins)] == wins  # every win comes before any loss
    without, with_local = setting(reranker="none"), setting(reranker="local")
    for example in offered[:3]:  # what the examples box offers first, run as Compare runs it
        assert example.setting is not None
        assert (example.setting.reranker, example.setting.candidates, example.setting.top_k) == ("local", 50, 10)
        result = await compare(lab, example.text, fresh, without, with_local)
        assert result.scores is not None and result.verdict is not None
        before, after = result.scores
        assert after.ndcg - before.ndcg == pytest.approx(example.delta, abs=1e-9)
        assert result.verdict.outcome == "better", result.verdict.line
    first = offered[0].text
    answer_rank, reranked_above = await _answer_rank(lab, fresh, first, "local")
    assert answer_rank <= 3, f"{first!r}: its answer is #{answer_rank} with the local reranker"
    assert reranked_above == [], f"{first!r}: reranking put facts not judged relevant above its answer"
    assert await measure_examples(lab, fresh) is None  # measured once: a deal with an experiment is left as it is


def test_seed_demo_measures_the_examples_once(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        assert main(["seed-demo", "--group", CLI_GROUP, "--json"]) == 0
        said = capsys.readouterr()
        assert "demo examples measured: experiment #" in said.err
        assert [e.name for e in list_experiments(lab.store, CLI_GROUP)] == [NAME]
        assert main(["seed-demo", "--group", CLI_GROUP, "--json"]) == 0  # already seeded and measured
        assert "demo examples measured" not in capsys.readouterr().err
        assert len(list_experiments(lab.store, CLI_GROUP)) == 1
    finally:
        with lab.store.transaction() as conn:
            conn.execute("DELETE FROM experiments WHERE group_id = ?", (CLI_GROUP,))


async def _answer_rank(lab: Lab, group_id: str, text: str, reranker: str) -> tuple[int, list[str]]:
    """The rank of the query's best-graded labelled fact under the default N and k (11 when not in the top k),
    and the facts above it that the labels do not judge relevant."""
    labelled = load_query_set(lab.store, group_id)
    assert labelled is not None
    (query,) = [q for q in labelled.queries if q.text == text]
    grades = labelled.judged_uuids(query.id)
    best = max(grades.values())
    run = await retrieve(lab, text, group_id, lab.settings.default_candidates, lab.settings.default_top_k, reranker)
    order = [r.ranked.candidate for r in run.results]
    rank = next((i for i, c in enumerate(order, 1) if grades.get(c.uuid) == best), len(order) + 1)
    return rank, [c.fact for c in order[: rank - 1] if grades.get(c.uuid, 0) == 0]


async def test_the_readme_headline_question_finds_its_answer_in_the_top_3(lab: Lab, fresh: str) -> None:
    """The question the README's tour opens on, read from the README: the demo should show the answer, both
    without reranking and with the local re-scorer (the default of `query`)."""
    (headline,) = set(re.findall(r'pipeline query "([^"]+)" --group demo', README.read_text(encoding="utf-8")))
    for reranker in ("none", "local"):
        rank, _ = await _answer_rank(lab, fresh, headline, reranker)
        assert rank <= 3, f"{headline!r}: its answer is #{rank} with reranker {reranker}"
