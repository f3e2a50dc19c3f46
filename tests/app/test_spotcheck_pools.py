"""Judging pools on the Spot-check page through AppTest: build a pool from the form, grade its cards (the relevance
question, then Enter, moves the card on), run the LLM judge from its button against a loopback stand-in of OpenAI's
chat-completions API (no LLM can be reached here; the real SDK through graphiti's client talks to it), see its
agreement with the analyst, and draw a calibration sample. On a demo deal of its own: nothing here changes the
queues or verdicts other tests count on the session's demo deal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.pools.build import build_pool
from pipeline.pools.records import PoolSpec
from pipeline.pools.repo import list_pools, pool_progress
from pipeline.query_sets import LabelledQuery, QuerySet, save_query_set
from pipeline.retrieval.setting import setting
from pipeline.settings import get_settings
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.repo_answers import reviewer_relevance
from pipeline.spotcheck.verdicts import record_relevance, verdict_judgments
from tests.app.conftest import APP, app_env, no_errors, open_page
from tests.support.fakes.openai_server import FakeOpenAIServer

PAGE = "app_pages/spotcheck.py"
DEAL = "pools-app"
SET = "analyst log"
KEY = "sk-test-pools-page"
QUESTIONS = ("What was FY2025 revenue?", "Who is the CEO?")


def grade_by_length(query: str, fact: str) -> tuple[int, str]:
    return len(fact) % 4, "scripted"


@pytest.fixture(scope="module")
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    queries = tuple(LabelledQuery(f"log-{i}", text, "log") for i, text in enumerate(QUESTIONS))
    save_query_set(lab.store, QuerySet(DEAL, queries, {}, SET, "import"), "test", replace=True)
    return DEAL


@pytest.fixture
def judge_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with (
        FakeOpenAIServer(api_key=KEY, judge=grade_by_length, retry_after_ms=1) as server,
        app_env(monkeypatch, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=server.base_url),
    ):
        yield server


def progress_texts(app: AppTest) -> str:
    return " ".join(p.proto.text for p in app.get("progress"))


def captions(app: AppTest) -> str:
    return " ".join(c.value for c in app.caption).replace("\\", "")  # md() escapes "_" and the like


def test_a_pool_is_built_graded_judged_and_calibrated_from_the_page(
    lab: Lab, deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    get_settings.cache_clear()
    app = open_page(AppTest.from_file(APP, default_timeout=120), PAGE, deal)
    app.text_input(key="spotcheck.reviewer").input("Ana").run()
    app.text_input(key="spotcheck.pool.name").input("apptest pool")
    app.selectbox(key="spotcheck.pool.set").set_value(SET)
    app.text_area(key="spotcheck.pool.settings").input("graphiti-default:none:50:3\nvector:none:50:3")
    app.button(key="spotcheck.pool.build").click().run()
    no_errors(app)
    [pool] = [p for p in list_pools(lab.store, deal) if p.name == "apptest pool"]
    assert any("Built pool" in s.value and f"{pool.pairs:,} pairs" in s.value for s in app.success)
    assert app.selectbox(key="spotcheck.queue").value == pool.queue_id
    assert f"0 of {pool.pairs} pairs judged by analysts, 0%" in progress_texts(app)
    assert 3 < pool.pairs <= 2 * 3 * len(QUESTIONS)

    # a pool asks the relevance question only: once it is answered, Enter moves the card on
    items = queue_items(lab.store, pool.queue_id)
    app.button(key=f"spotcheck.{items[0].id}.r.2").click().run()
    no_errors(app)
    assert reviewer_relevance(lab.store, pool.queue_id, "Ana")[items[0].id].grade == 2
    assert any("Card 1 answered (a key changes its answer) · **Enter**: card 2" in c.value for c in app.caption)
    app.button(key=f"spotcheck.{items[0].id}.next").click().run()
    assert next(m.value for m in app.metric if m.label == "Item") == f"2 / {pool.pairs}"
    assert pool_progress(lab.store, pool).humans == 1
    assert f"1 of {pool.pairs} pairs judged by analysts" in progress_texts(app)

    # no key: the judge's button is off, and one line names the variable
    assert app.button(key="spotcheck.judge").disabled
    assert "OPENAI_API_KEY" in captions(app)


async def test_the_llm_judge_runs_from_the_pools_button_and_a_calibration_sample_follows(
    lab: Lab, deal: str, judge_env: FakeOpenAIServer
) -> None:
    settings = (setting("graphiti-default", 50, "none", 3), setting("vector", 50, "none", 3))
    pool = await build_pool(lab, PoolSpec("judged pool", deal, SET, settings, "Ben"))
    record_relevance(lab.store, queue_items(lab.store, pool.queue_id)[0].id, "Ben", 1)
    app = open_page(AppTest.from_file(APP, default_timeout=120), PAGE, deal)
    app.text_input(key="spotcheck.reviewer").input("Ben").run()
    app.selectbox(key="spotcheck.queue").set_value(pool.queue_id).run()
    assert not app.button(key="spotcheck.judge").disabled
    app.button(key="spotcheck.judge").click().run()
    no_errors(app)
    assert any(f"{pool.pairs} of {pool.pairs} pairs" in s.value for s in app.success)
    items = queue_items(lab.store, pool.queue_id)
    graded = verdict_judgments(lab.store, deal, "judge")
    assert {graded[i.query_id][i.fact_uuid] for i in items} <= {0, 1, 2, 3}
    assert all(graded[i.query_id][i.fact_uuid] == grade_by_length(i.query, i.fact)[0] for i in items)
    assert "LLM judge vs analysts" in captions(app)  # the analyst's one grade: not enough overlap yet, said so

    app.number_input(key="spotcheck.calibration_size").set_value(3).run()
    app.button(key="spotcheck.calibrate").click().run()
    no_errors(app)
    [sample] = [p for p in list_pools(lab.store, deal) if p.of_queue == pool.queue_id]
    assert sample.pairs == 3 and sample.of_queue == pool.queue_id
    assert app.selectbox(key="spotcheck.queue").value == sample.queue_id
