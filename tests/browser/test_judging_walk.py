"""Judgments built on a graph written by graphiti itself, end to end, as a team would build them.

A 20-query plain log is imported; a pool of a 4-setting grid is built; an LLM judge grades it (a loopback
stand-in of OpenAI's chat-completions API, reached by the real openai SDK through graphiti's client: no LLM can be
reached here); two analysts grade cards in a real browser; the page shows the judge's agreement with them; an
evaluation runs on each judgment source with judged@k beside its metrics; the analysts' judgments are exported as
TREC qrels and imported back identically. Every step is the CLI or the page a user would use."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from pipeline.cli import main
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.settings import get_settings
from pipeline.spotcheck.judge_agreement import judge_agreement
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import verdict_judgments
from tests.browser.conftest import STUCK_MS, wait_for_app
from tests.browser.test_pages import assert_no_error
from tests.support.fakes.openai_server import FakeOpenAIServer
from tests.support.graphiti_deal import build_graphiti_deal

GROUP = "5a9e77c1-walk"
KEY = "sk-test-walk"
LOG = [
    "What was Acme Analytics' FY2025 revenue?",
    "Was the FY2025 revenue restated?",
    "Who provides the revolving credit facility?",
    "How large is the revolver?",
    "When does the revolving credit facility mature?",
    "What is the annual recurring revenue of Acme Insight Cloud?",
    "What is Acme's flagship product?",
    "How fast did revenue grow year over year?",
    "Who is the CEO of Acme Analytics?",
    "What did the audit change?",
    "What is FY2026 revenue expected to be?",
    "Which bank lends to Acme?",
    "When was the revolver upsized?",
    "What are Acme's main customers?",
    "How many employees does Acme have?",
    "What is the gross margin?",
    "Is there any debt besides the revolver?",
    "What did the management presentation say about growth?",
    "What did the deal team discuss in chat?",
    "Where is Acme Analytics headquartered?",
]
GRID = ["graphiti-default:none:50:5", "vector:none:50:5", "graphiti-default:local:50:5", "vector:local:50:5"]
CARDS = 6  # cards each analyst grades
KEYS = {0: "a", 1: "s", 2: "d", 3: "f"}


def stand_in_grade(query: str, fact: str) -> tuple[int, str]:
    """The stand-in judge's answer: a grade from the fact's length."""
    return len(fact) % 4, "scripted"


async def cli(*argv: str) -> int:
    return await asyncio.to_thread(main, list(argv))


async def grade_cards(
    browser: Browser, app_url: str, pool_id: int, pairs: int, reviewer: str, grades: list[int]
) -> None:
    """One analyst, in a browser page of their own, grades the pool's first cards with the relevance keys, each
    followed by Enter for the next card."""
    page: Page = await browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        query = f"sidebar.deal={GROUP}&spotcheck.queue={pool_id}&spotcheck.reviewer={reviewer.replace(' ', '+')}"
        await page.goto(f"{app_url}/spotcheck?{query}")
        await wait_for_app(page)
        await page.get_by_text(f"0 / {pairs} reviewed by {reviewer}").wait_for(timeout=STUCK_MS)
        for position, grade in enumerate(grades, start=1):
            await page.locator("h1").first.click()  # focus off the text fields: shortcuts do not fire in them
            await page.keyboard.press(KEYS[grade])
            await page.get_by_text(re.compile(rf"Saved on card {position}\b")).first.wait_for(timeout=STUCK_MS)
            await page.get_by_text(f"{position} / {pairs} reviewed by {reviewer}").wait_for(timeout=STUCK_MS)
            await wait_for_app(page)
            await page.keyboard.press("Enter")
            await page.get_by_text(f"Card {position + 1}: relevance").wait_for(timeout=STUCK_MS)
            await wait_for_app(page)
        await assert_no_error(page)
    finally:
        await page.close()


@pytest.mark.browser
@pytest.mark.slow
async def test_a_team_builds_judgments_on_its_own_graphiti_graph(
    app_url: str,
    browser: Browser,
    lab: Lab,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if GROUP in await lab.backend.graph_names():
        await lab.backend.delete_graph(GROUP)
    await build_graphiti_deal(lab.backend.falkor, lab.embedder, GROUP)

    log = tmp_path / "questions.txt"
    log.write_text("\n".join(LOG) + "\n", encoding="utf-8")
    assert await cli("import-queries", str(log), "--group", GROUP, "--name", "walk log", "--json") == 0
    imported = json.loads(capsys.readouterr().out)
    assert (imported["queries"], imported["judgments"]) == (20, 0)

    settings = [arg for s in GRID for arg in ("--setting", s)]
    assert await cli("pool", "build", "--group", GROUP, "--set", "walk log", *settings, "--by", "Ana", "--json") == 0
    pool = json.loads(capsys.readouterr().out)
    assert pool["pairs"] > 20 and pool["skipped"] == 0
    items = queue_items(lab.store, pool["pool"])

    with FakeOpenAIServer(api_key=KEY, judge=stand_in_grade, retry_after_ms=1) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        get_settings.cache_clear()
        try:
            assert await cli("judge", "--group", GROUP, "--pool", str(pool["pool"]), "--json") == 0
        finally:
            monkeypatch.undo()
            get_settings.cache_clear()
    judged = json.loads(capsys.readouterr().out)
    assert judged["graded"] == pool["pairs"] and judged["reviewer"] == "judge:gpt-4o-mini"

    judge = [stand_in_grade(i.query, i.fact)[0] for i in items[:CARDS]]
    ana = [g if n < 4 else (g + 2) % 4 for n, g in enumerate(judge)]  # agrees with the judge on four cards
    ben = [*ana[:5], (ana[5] + 1) % 4]
    await grade_cards(browser, app_url, pool["pool"], pool["pairs"], "Ana Walk", ana)
    await grade_cards(browser, app_url, pool["pool"], pool["pairs"], "Ben Walk", ben)
    humans = verdict_judgments(lab.store, GROUP, "humans")
    assert all(items[n].fact_uuid in humans[items[n].query_id] for n in range(CARDS))

    agreement = judge_agreement(lab.store, GROUP)
    assert agreement.pairs == CARDS and agreement.kappa is not None
    page = await browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        await page.goto(f"{app_url}/spotcheck?sidebar.deal={GROUP}&spotcheck.queue={pool['pool']}")
        await wait_for_app(page)
        shown = agreement.text().split(":", 1)[1].strip()  # "weighted kappa 0.xx, 67% graded alike, n = 6 ..."
        await page.get_by_text(shown, exact=False).first.wait_for(timeout=STUCK_MS)
        await assert_no_error(page)
    finally:
        await page.close()

    grid = ["--candidates", "25,50", "--top-k", "5", "--reranker", "none", "--no-save", "--json"]
    for source in ("verdicts", "judge", "verdicts+judge"):
        assert await cli("eval", "--group", GROUP, "--judgments", source, "--trust-judge", *grid) == 0, source
        rows = json.loads(capsys.readouterr().out)["rows"]
        assert rows and all(0.0 <= r["judged@k"] <= 1.0 for r in rows), source

    out = tmp_path / "trec"
    assert await cli("import-queries", "--from-verdicts", "--group", GROUP, "--name", "walk frozen") == 0
    export = ("export-judgments", "--group", GROUP, "--set", "walk frozen", "--format", "trec", "--out", str(out))
    assert await cli(*export) == 0
    assert await cli("import-queries", str(out), "--group", GROUP, "--name", "walk back") == 0
    frozen, back = load_query_set(lab.store, GROUP, "walk frozen"), load_query_set(lab.store, GROUP, "walk back")
    assert frozen is not None and back is not None and frozen.judgments == CARDS
    assert [(q.id, q.text) for q in back.queries] == [(q.id, q.text) for q in frozen.queries]
    assert back.qrels == frozen.qrels
