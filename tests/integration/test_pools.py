"""Judging pools on the graphiti-written fixture deal: depth-k pooling through the one ranking path, pairs
already judged left out, progress, the judge's grades kept apart from the analysts', calibration samples."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from dataclasses import replace

import pytest

from pipeline.audit import audit_log
from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.judgments import load_eval_set
from pipeline.lab import Lab
from pipeline.pools import build
from pipeline.pools.build import build_pool, draw_calibration
from pipeline.pools.records import PoolSpec
from pipeline.pools.repo import list_pools, pool_progress
from pipeline.query_sets import LabelledQuery, QuerySet, save_query_set
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import setting
from pipeline.settings import get_settings
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.agreement import cohen
from pipeline.spotcheck.judge_agreement import judge_agreement
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.repo_answers import save_relevances
from pipeline.spotcheck.reviewers import judge_reviewer
from pipeline.spotcheck.verdicts import record_relevance
from tests.support.fakes.openai_server import FakeOpenAIServer
from tests.support.graphiti_deal import build_graphiti_deal

QUESTIONS = (
    "What was Acme Analytics' FY2025 revenue?",
    "Who provides the revolving credit facility?",
    "What is the annual recurring revenue of Acme Insight Cloud?",
)
SETTINGS = (setting("graphiti-default", 50, "none", 5), setting("vector", 50, "none", 5))
_names = itertools.count()


@pytest.fixture(scope="module")
async def acme(lab: Lab) -> str:
    """The scripted deal ingested by graphiti into a group of this module's own: pools, grades and sets written
    here never reach the session's deals (other modules count the sets and verdicts of theirs)."""
    group = "7d2e4b10-pools"
    if group in await lab.backend.graph_names():
        await lab.backend.delete_graph(group)
    await build_graphiti_deal(lab.backend.falkor, lab.embedder, group)
    return group


def _unjudged_set(lab: Lab, group: str, qrels: dict[str, dict[str, int]] | None = None, name: str = "") -> str:
    """A stored set of the three questions (judged by `qrels`, if given); `name` replaces that set."""
    name = name or f"log {next(_names)}"  # its query ids are its own: judgments of one test never reach another's
    queries = tuple(LabelledQuery(f"{name}/q{i}", text, "log") for i, text in enumerate(QUESTIONS))
    save_query_set(lab.store, QuerySet(group, queries, qrels or {}, name, "import"), "test", replace=True)
    return name


def _spec(group: str, set_name: str, **kw: object) -> PoolSpec:
    values: dict[str, object] = {
        "name": f"pool {next(_names)}",
        "group_id": group,
        "set_name": set_name,
        "settings": SETTINGS,
        "created_by": "Ana",
    }
    return PoolSpec(**(values | kw))  # type: ignore[arg-type]


async def _expected_pairs(lab: Lab, group: str, set_name: str) -> list[tuple[str, str]]:
    """Each query's facts in either setting's top 5, by best rank, from `retrieve()` run setting by setting."""
    pairs = []
    for i, text in enumerate(QUESTIONS):
        best: dict[str, tuple[int, int]] = {}
        for order, s in enumerate(SETTINGS):
            run = await retrieve(lab, text, group, s.candidates, s.top_k, s.reranker, recipe=s.recipe)
            for result in run.results:
                best[result.uuid] = min(best.get(result.uuid, (99, 99)), (result.ranked.rank, order))
        pairs += [(f"{set_name}/q{i}", uuid) for uuid, _ in sorted(best.items(), key=lambda kv: kv[1])]
    return pairs


async def test_a_pool_is_the_union_of_every_settings_top_k_each_pair_once(lab: Lab, acme: str) -> None:
    set_name = _unjudged_set(lab, acme)
    pool = await build_pool(lab, _spec(acme, set_name))
    items = queue_items(lab.store, pool.queue_id)
    pairs = [(i.query_id, i.fact_uuid) for i in items]
    assert pairs == await _expected_pairs(lab, acme, set_name)
    assert len(set(pairs)) == len(pairs) == pool.pairs
    assert len(pairs) > 5 * len(QUESTIONS) / 2  # the settings do not return the same five facts
    assert pool.skipped == 0 and pool.kind == "pool"
    assert pool.settings == tuple(s.label for s in SETTINGS)
    assert all(i.query == QUESTIONS[int(i.query_id.rsplit("/q", 1)[1])] for i in items)
    assert all(i.citation.episode_uuid for i in items)  # every fact of this deal cites an episode
    assert pool_progress(lab.store, pool).text() == f"0 of {pool.pairs:,} pairs judged by analysts, 0%"


async def test_pairs_the_set_or_analysts_judged_are_left_out_and_counted(lab: Lab, acme: str) -> None:
    set_name = _unjudged_set(lab, acme)
    first = await build_pool(lab, _spec(acme, set_name))
    items = queue_items(lab.store, first.queue_id)
    by_set = items[0]
    by_analyst = next(i for i in items if i.query_id != by_set.query_id)
    record_relevance(lab.store, by_analyst.id, "Ana", 3)
    _unjudged_set(lab, acme, {by_set.query_id: {by_set.fact_uuid: 2}}, name=set_name)
    second = await build_pool(lab, _spec(acme, set_name))
    pairs = {(i.query_id, i.fact_uuid) for i in queue_items(lab.store, second.queue_id)}
    assert (by_set.query_id, by_set.fact_uuid) not in pairs
    assert (by_analyst.query_id, by_analyst.fact_uuid) not in pairs
    assert second.skipped == 2 and second.pairs == first.pairs - 2


async def test_progress_counts_analysts_and_the_judge_apart(lab: Lab, acme: str) -> None:
    pool = await build_pool(lab, _spec(acme, _unjudged_set(lab, acme)))
    items = queue_items(lab.store, pool.queue_id)
    judge = judge_reviewer("gpt-4o-mini")
    assert save_relevances(lab.store, judge, [(i.id, 1, "judge reason") for i in items[:4]]) == 4
    assert save_relevances(lab.store, judge, [(i.id, 1, "judge reason") for i in items[:4]]) == 0  # unchanged
    record_relevance(lab.store, items[0].id, "Ben", 3)
    record_relevance(lab.store, items[5].id, "Ben", 0)
    progress = pool_progress(lab.store, pool)
    assert (progress.pairs, progress.humans, progress.judge) == (pool.pairs, 2, 4)
    assert progress.text().startswith(f"2 of {pool.pairs:,} pairs judged by analysts")

    humans = verdict_judgments(lab.store, acme, "humans")
    judged = verdict_judgments(lab.store, acme, "judge")
    both = verdict_judgments(lab.store, acme, "humans-then-judge")
    first, sixth, second = items[0], items[5], items[1]
    assert humans[first.query_id][first.fact_uuid] == 3 and judged[first.query_id][first.fact_uuid] == 1
    assert second.fact_uuid not in humans.get(second.query_id, {})
    assert both[first.query_id][first.fact_uuid] == 3  # an analyst's grade wins
    assert both[second.query_id][second.fact_uuid] == 1  # else the judge's
    assert both[sixth.query_id][sixth.fact_uuid] == 0
    with pytest.raises(InvalidInput, match="the LLM judge's"):
        record_relevance(lab.store, items[1].id, "Judge:someone", 2)  # no analyst passes for the judge


async def test_a_calibration_sample_draws_the_judges_pairs_no_analyst_graded(lab: Lab, acme: str) -> None:
    pool = await build_pool(lab, _spec(acme, _unjudged_set(lab, acme)))
    items = queue_items(lab.store, pool.queue_id)
    with pytest.raises(InvalidInput, match="run `python -m pipeline judge`"):
        draw_calibration(lab, acme, pool.queue_id, 3, 7, "Ana")
    save_relevances(lab.store, judge_reviewer("m"), [(i.id, 2, "") for i in items[:6]])
    record_relevance(lab.store, items[0].id, "Ana", 2)
    sample = draw_calibration(lab, acme, pool.queue_id, 3, 7, "Ana")
    again = draw_calibration(lab, acme, pool.queue_id, 3, 7, "Ana", name="same seed")
    drawn = [(i.query_id, i.fact_uuid) for i in queue_items(lab.store, sample.queue_id)]
    assert drawn == [(i.query_id, i.fact_uuid) for i in queue_items(lab.store, again.queue_id)]
    assert len(drawn) == 3 and set(drawn) <= {(i.query_id, i.fact_uuid) for i in items[1:6]}
    assert sample.kind == "calibration" and sample.of_queue == pool.queue_id
    everything = draw_calibration(lab, acme, pool.queue_id, 100, 1, "Ana")
    assert everything.pairs == 5  # the judge's six pairs but the one an analyst graded
    with pytest.raises(InvalidInput, match="no judging pool #"):
        draw_calibration(lab, acme, sample.queue_id, 3, 7, "Ana")  # a sample is not a pool


async def test_bad_pools_are_refused_in_one_line_and_nothing_is_written(
    lab: Lab, acme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = len(list_pools(lab.store, acme))
    with pytest.raises(InvalidInput, match="no query set named 'nosuch'"):
        await build_pool(lab, _spec(acme, "nosuch"))
    monkeypatch.setattr(build, "MAX_PAIRS", 29)
    with pytest.raises(InvalidInput, match=r"up to 30 pairs .* the limit is 29"):  # 3 queries x (5 + 5)
        await build_pool(lab, _spec(acme, _unjudged_set(lab, acme)))
    monkeypatch.undo()
    with pytest.raises(InvalidInput, match="1 to 64 settings"):
        await build_pool(lab, _spec(acme, _unjudged_set(lab, acme), settings=()))
    with pytest.raises(InvalidInput, match="the LLM judge's"):
        await build_pool(lab, _spec(acme, _unjudged_set(lab, acme), created_by="judge:x"))
    assert len(list_pools(lab.store, acme)) == before


async def test_the_cli_builds_lists_and_refuses(lab: Lab, acme: str, capsys: pytest.CaptureFixture[str]) -> None:
    set_name = _unjudged_set(lab, acme)
    argv = ["pool", "build", "--group", acme, "--set", set_name, "--by", "Ana", "--json"]
    argv += ["--setting", "graphiti-default:none:50:5", "--setting", "vector:none:50:5"]
    assert await asyncio.to_thread(main, argv) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["pairs"] == len(await _expected_pairs(lab, acme, set_name)) and built["skipped"] == 0
    assert await asyncio.to_thread(main, ["pool", "list", "--group", acme, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["pools"]
    assert listed[0]["pool"] == built["pool"] and listed[0]["progress"].startswith("0 of")
    assert await asyncio.to_thread(main, ["pool", "build", "--group", acme, "--by", "Ana"]) == 2
    assert "--setting (repeated) or --experiment" in capsys.readouterr().err


async def test_the_judges_grades_feed_metrics_only_when_it_agrees_with_the_analysts(lab: Lab) -> None:
    """On a deal of its own, so the judge's agreement with the analysts is this test's alone."""
    deal = "7d2e4b10-pools-judge"
    if deal in await lab.backend.graph_names():
        await lab.backend.delete_graph(deal)
    await build_graphiti_deal(lab.backend.falkor, lab.embedder, deal)
    set_name = _unjudged_set(lab, deal)
    pool = await build_pool(lab, _spec(deal, set_name))
    items = queue_items(lab.store, pool.queue_id)
    assert len(items) > 7
    # the judge grades everything; the analyst grades six of its pairs: four alike, two three grades apart
    judge_grades = [3, 0, 2, 1, 3, 0] + [1] * (len(items) - 6)
    analyst_grades = [3, 0, 2, 1, 0, 3]
    graded = [(i.id, g, "") for i, g in zip(items, judge_grades, strict=True)]
    save_relevances(lab.store, judge_reviewer("scripted"), graded)
    for item, grade in zip(items[:6], analyst_grades, strict=True):
        record_relevance(lab.store, item.id, "Ana", grade)

    agreement = judge_agreement(lab.store, deal)
    kappa = cohen(list(zip(judge_grades[:6], analyst_grades, strict=True)), [0, 1, 2, 3], weighted=True)
    assert (agreement.pairs, agreement.judged_by_judge) == (6, len(items))
    assert agreement.kappa == pytest.approx(kappa) and agreement.exact == pytest.approx(4 / 6)
    assert agreement.text() == (
        f"LLM judge vs analysts: weighted kappa {kappa:.2f}, 67% graded alike, n = 6 shared pairs"
    )

    humans = await load_eval_set(lab, deal, "verdicts")
    assert humans.judge is None
    assert sum(len(j) for q, j in humans.qrels.items() if q.startswith(set_name)) == 6  # the analyst's alone
    picky = replace(lab, settings=lab.settings.model_copy(update={"judge_min_kappa": max(kappa + 0.01, 0)}))
    with pytest.raises(InvalidInput, match=r"weighted kappa .* below the .*--trust-judge"):
        await load_eval_set(picky, deal, "judge")
    trusted = await load_eval_set(picky, deal, "judge", trust_judge=True)
    assert trusted.judge == agreement and trusted.summary()["judge_agreement"] == agreement.text()
    lenient = replace(lab, settings=lab.settings.model_copy(update={"judge_min_kappa": max(kappa - 0.01, 0)}))
    assert (await load_eval_set(lenient, deal, "judge")).judge == agreement
    mixed = await load_eval_set(picky, deal, "verdicts+judge", trust_judge=True)
    first, seventh = items[4], items[6]
    assert mixed.qrels[first.query_id][first.fact_uuid] == 0  # the analyst's grade wins over the judge's 3
    assert mixed.qrels[seventh.query_id][seventh.fact_uuid] == 1  # no analyst graded it: the judge's grade
    assert {q.text for q in mixed.queries if q.id.startswith(set_name)} <= set(QUESTIONS)  # the pool's own texts


JUDGE_KEY = "sk-test-pools"
# The cache is keyed by (model, prompt version, query, fact), not by deal: other modules of the session grade these
# same questions and facts with the default model, so this module's judge has a model name of its own.
JUDGE_MODEL = "pools-test-model"


def scripted_grade(query: str, fact: str) -> tuple[int, str]:
    """What the stand-in judge answers: a grade from the fact's length, so each pair's expected grade is known."""
    return len(fact) % 4, f"{len(fact)} characters"


@pytest.fixture
def judge_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A loopback stand-in speaking OpenAI's chat-completions API (no LLM can be reached here), answering the
    judge's prompt from `scripted_grade`; the CLI reaches it through OPENAI_BASE_URL with graphiti's client."""
    with FakeOpenAIServer(api_key=JUDGE_KEY, judge=scripted_grade, retry_after_ms=1) as server:
        monkeypatch.setenv("OPENAI_API_KEY", JUDGE_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("RETRIEVAL_LAB_JUDGE_MODEL", JUDGE_MODEL)
        get_settings.cache_clear()
        yield server
    get_settings.cache_clear()


def _graders(lab: Lab, item_id: int) -> set[str]:
    return {
        r["reviewer"] for r in lab.store.query("SELECT reviewer FROM spotcheck_relevance WHERE item_id = ?", (item_id,))
    }


async def test_the_llm_judge_grades_a_pool_once_and_the_cache_answers_again(
    lab: Lab,
    acme: str,
    judge_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pool = await build_pool(lab, _spec(acme, _unjudged_set(lab, acme)))
    items = queue_items(lab.store, pool.queue_id)
    argv = ["judge", "--group", acme, "--pool", str(pool.queue_id), "--json"]
    assert await asyncio.to_thread(main, argv) == 0
    first = json.loads(capsys.readouterr().out)
    distinct = len({(i.query, i.fact) for i in items})
    assert (first["graded"], first["written"], first["cached"]) == (pool.pairs, pool.pairs, 0)
    assert first["requests"] == distinct == len(judge_server.requests)
    assert first["reviewer"] == judge_reviewer(JUDGE_MODEL) and first["input_tokens"] > 0 and first["cost_usd"] > 0

    graded = verdict_judgments(lab.store, acme, "judge")
    assert {(i.query_id, i.fact_uuid): graded[i.query_id][i.fact_uuid] for i in items} == {
        (i.query_id, i.fact_uuid): scripted_grade(i.query, i.fact)[0] for i in items
    }
    assert pool_progress(lab.store, pool).judge == pool.pairs
    audit = audit_log(lab.store, acme, "judge.graded")
    assert audit and audit[0].details["pool"] == pool.queue_id and audit[0].details["requests"] == distinct

    assert await asyncio.to_thread(main, argv) == 0  # again: every grade from the cache, nothing rewritten
    again = json.loads(capsys.readouterr().out)
    assert (again["cached"], again["requests"], again["written"]) == (pool.pairs, 0, 0)
    assert len(judge_server.requests) == distinct

    monkeypatch.setenv("RETRIEVAL_LAB_JUDGE_MODEL", "another-model")  # a model the cache has not seen
    get_settings.cache_clear()
    judge_server.script(["ok"] * 3 + ["500"] * 50)  # three answers, then every request fails
    assert await asyncio.to_thread(main, [*argv[:-1], "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: The LLM judge stopped") and "500" in err[-1]
    # the three grades obtained before the failure are kept
    assert sum(1 for i in items if judge_reviewer("another-model") in _graders(lab, i.id)) == 3


async def test_the_judge_without_a_key_is_one_line_naming_it(
    lab: Lab, acme: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    get_settings.cache_clear()
    try:
        assert await asyncio.to_thread(main, ["judge", "--group", acme, "--pool", "1"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: No LLM judge: set OPENAI_API_KEY")
