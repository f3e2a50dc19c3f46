"""A page's state travels in its URL: a link opened in a fresh browser context shows the same view.

One app server for the module (the session's); each page's check opens its link in a fresh browser context:
Compare, Scores, Evaluate, Timeline, History, Latency, Spot-check, Entity merges and the Audit log."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

import pytest
from playwright.async_api import Browser, Page, expect

from dashboard.common.links import compare_url, scores_params
from pipeline.admin.repo import clear_failures
from pipeline.admin.unlock import try_unlock
from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.sweep import SweepSpec, run_sweep
from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import setting
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from tests.browser.conftest import STUCK_MS, choose, screenshot, wait_for_app
from tests.browser.test_admin_journey import key, pick, relation_and_tab
from tests.browser.test_pages import assert_no_error
from tests.conftest import ADMIN_SECRET

QUERY = "What is Halcyon's headcount? (link test)"
JUDGED = "What was Halcyon's FY2025 revenue?"  # in the demo deal's labelled set: Compare shows a verdict


async def in_fresh_context(browser: Browser, url: str, look: Callable[[Page], Awaitable[None]]) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = await context.new_page()
        await page.goto(url)
        await wait_for_app(page)
        await look(page)
    finally:
        await context.close()


@pytest.fixture(scope="module")
async def ids(lab: Lab, demo: str) -> list[int]:
    """Two recorded runs of one query on the demo deal, without and with reranking."""
    return [save_run(lab.store, await retrieve(lab, QUERY, demo, 20, 5, r), "cli") for r in ("none", "local")]


@pytest.mark.browser
async def test_history_links_reopen_the_runs_and_filters(
    app_url: str, page: Page, browser: Browser, ids: list[int]
) -> None:
    await page.goto(f"{app_url}/history")
    await wait_for_app(page)
    await page.get_by_label("Query contains").fill("link test")
    await page.get_by_label("Query contains").press("Enter")
    await wait_for_app(page)
    await choose(page, "history.open", page.get_by_role("option", name=f"#{ids[0]} ·"))
    await wait_for_app(page)
    await page.get_by_role("heading", name=f"Run #{ids[0]}:").wait_for()
    url = page.url
    assert f"history.open={ids[0]}" in url and "history.text=link" in url, url

    async def same_run(fresh: Page) -> None:
        await fresh.get_by_role("heading", name=f"Run #{ids[0]}:").wait_for(timeout=STUCK_MS)
        await expect(fresh.get_by_label("Query contains")).to_have_value("link test")

    await in_fresh_context(browser, url, same_run)


@pytest.mark.browser
async def test_latency_filters_travel_in_the_link(app_url: str, page: Page, browser: Browser, ids: list[int]) -> None:
    await page.goto(f"{app_url}/latency")
    await wait_for_app(page)
    await choose(page, "latency.rerankers", page.get_by_role("option", name="none", exact=True))
    await page.keyboard.press("Escape")
    await wait_for_app(page)
    url = page.url
    assert "latency.rerankers=none" in url, url

    async def only_none(fresh: Page) -> None:
        chips = fresh.locator(".st-key-latency-rerankers span[data-tag]")
        await expect(chips).to_have_count(1)
        assert await chips.get_attribute("aria-label") == "none"

    await in_fresh_context(browser, url, only_none)


@pytest.mark.browser
async def test_a_compare_link_shows_the_same_comparison(app_url: str, page: Page, browser: Browser, demo: str) -> None:
    await page.goto(f"{app_url}/compare?{urlencode({'sidebar.deal': demo})}")
    await wait_for_app(page)
    box = page.get_by_label("Query")
    await box.fill(JUDGED)
    await box.press("Enter")
    await page.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    verdict = await page.locator("[data-testid='stAlert']").filter(has_text="nDCG@").first.inner_text()
    headings = await page.locator("h3").all_inner_texts()
    url = page.url
    assert "compare.q=" in url, url

    async def same_comparison(fresh: Page) -> None:
        await fresh.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
        await wait_for_app(fresh)
        await expect(fresh.get_by_label("Query")).to_have_value(JUDGED)
        assert await fresh.locator("[data-testid='stAlert']").filter(has_text="nDCG@").first.inner_text() == verdict
        assert await fresh.locator("h3").all_inner_texts() == headings
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_comparison)


@pytest.mark.browser
async def test_a_compare_link_carries_each_sides_recipe(app_url: str, page: Page, browser: Browser, demo: str) -> None:
    b = setting("vector", 50, "local", 10)
    await page.goto(f"{app_url}/{compare_url(demo, JUDGED, setting(), b)}")
    await wait_for_app(page)
    # the sides differ in recipe and reranker: each heading names both
    await page.get_by_role("heading", name="B: vector · local").wait_for(timeout=STUCK_MS)
    await expect(page.locator(f"{key('compare.b.recipe')} input")).to_have_value("vector")
    await choose(page, "compare.a.recipe", page.get_by_role("option", name="bm25", exact=True))
    await page.get_by_text("A: bm25 + none, N=50, k=10").wait_for(timeout=STUCK_MS)
    await wait_for_app(page)
    url = page.url
    assert "compare.a.recipe=bm25" in url and "compare.b.recipe=vector" in url, url

    async def same_recipes(fresh: Page) -> None:
        await fresh.get_by_text("A: bm25 + none, N=50, k=10").wait_for(timeout=STUCK_MS)
        await fresh.get_by_text("B: vector + local, N=50, k=10").wait_for(timeout=STUCK_MS)
        await expect(fresh.locator(f"{key('compare.a.recipe')} input")).to_have_value("bm25")
        await expect(fresh.locator(f"{key('compare.b.recipe')} input")).to_have_value("vector")
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_recipes)


@pytest.mark.browser
async def test_a_scores_link_shows_the_same_query_and_setting(
    app_url: str, page: Page, browser: Browser, demo: str
) -> None:
    # not the page's default reranker
    params = scores_params(demo, JUDGED, setting(candidates=20, reranker="none", top_k=5))
    await page.goto(f"{app_url}/scores?{urlencode(params)}")
    await wait_for_app(page)
    await page.get_by_text("the first 5 (k) are handed on").wait_for(timeout=STUCK_MS)
    url = page.url
    assert "scores.q=" in url and "scores.reranker=none" in url, url

    async def same_setting(fresh: Page) -> None:
        await fresh.get_by_text("the first 5 (k) are handed on").wait_for(timeout=STUCK_MS)
        await expect(fresh.get_by_label("Query")).to_have_value(JUDGED)
        await expect(fresh.locator(f"{key('scores.reranker')} input")).to_have_value("No reranking (first-stage order)")
        for name, value in (("Candidates (N)", "20"), ("Top-k", "5")):
            slider = fresh.get_by_role("slider", name=name)
            assert await slider.evaluate("e => e.getAttribute('aria-valuenow') ?? e.value") == value, name
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_setting)


@pytest.fixture(scope="module")
async def experiment(lab: Lab, demo: str) -> tuple[int, str]:
    """A saved sweep on the demo deal (3 queries, one setting): Evaluate shows it when its id is in the URL."""
    result = await run_sweep(lab, SweepSpec(demo, (10,), (5,), ("none",), limit_queries=3))
    name = "link test sweep"
    return save_experiment(lab.store, result, name), name


@pytest.mark.browser
async def test_an_evaluate_link_shows_the_same_experiment(
    app_url: str, browser: Browser, demo: str, experiment: tuple[int, str]
) -> None:
    exp_id, name = experiment
    url = f"{app_url}/evaluate?{urlencode({'sidebar.deal': demo, 'evaluate.experiment': exp_id})}"

    async def same_experiment(fresh: Page) -> None:
        await fresh.get_by_role("heading", name=f"Experiment #{exp_id} {name}").wait_for(timeout=STUCK_MS)
        assert f"evaluate.experiment={exp_id}" in fresh.url, fresh.url
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_experiment)


@pytest.mark.browser
async def test_a_timeline_link_shows_the_same_relation_as_of_date_and_tab(
    app_url: str, page: Page, browser: Browser, demo: str
) -> None:
    await page.goto(f"{app_url}/timeline?{urlencode({'sidebar.deal': demo})}")
    await wait_for_app(page)
    await page.locator(key("timeline.mode")).get_by_text("Relation", exact=True).click()
    await wait_for_app(page)
    await pick(page, "timeline.relation", "HAS_ARR")
    # a typed date commits on Enter (Streamlit's date field alone commits only when focus moves elsewhere)
    await page.locator(f"{key('timeline.as_of')} [role='spinbutton']").first.click()
    await page.keyboard.type("20260115")
    await page.keyboard.press("Enter")
    chart = page.locator(key("timeline.chart"))
    await chart.get_by_text("as of 2026-01-15").wait_for(timeout=STUCK_MS)  # the as-of line on the chart
    await wait_for_app(page)
    await page.get_by_text("True on 2026-01-15", exact=True).wait_for(timeout=STUCK_MS)
    await page.get_by_role("tab", name="Supersession list").click()
    await wait_for_app(page)
    url = page.url
    for part in ("timeline.mode=Relation", "timeline.relation=HAS_ARR", "timeline.as_of=2026-01-15"):
        assert part in url, url

    async def same_view(fresh: Page) -> None:
        label = fresh.locator(key("timeline.chart")).get_by_text("as of 2026-01-15")
        await label.wait_for(timeout=STUCK_MS)
        await wait_for_app(fresh)
        # inside the plot area, where nothing covers it (above it, the legend would)
        plot = await fresh.locator(f"{key('timeline.chart')} rect.nsewdrag").first.bounding_box()
        text = await label.bounding_box()
        assert plot and text and plot["y"] <= text["y"] and text["y"] + text["height"] <= plot["y"] + plot["height"]
        relation, tab = await relation_and_tab(fresh)
        assert relation.startswith("HAS_ARR") and tab == "Supersession list", (relation, tab)
        hidden = fresh.locator(f"{key('timeline.as_of')} input[type='date']")
        await expect(hidden).to_have_value("2026-01-15")
        script = fresh.locator("[data-testid='stElementContainer']:has(script[data-enter-commits-dates])")
        assert await script.count() >= 1
        await expect(script.first).to_be_hidden()  # the Enter-commits script takes no room on the page
        await assert_no_error(fresh)
        await screenshot(fresh, "timeline-link")

    await in_fresh_context(browser, url, same_view)


@pytest.mark.browser
async def test_a_spotcheck_link_opens_the_same_card(app_url: str, browser: Browser, lab: Lab, demo: str) -> None:
    queue = await build_queue(lab, QueueSpec("link test queue", demo, "fact_sample", 3, 7, "disagreement", "Lee"))
    url = f"{app_url}/spotcheck?{urlencode({'sidebar.deal': demo, 'spotcheck.queue': queue.id, 'spotcheck.item': 2})}"

    async def same_card(fresh: Page) -> None:
        item = fresh.locator("[data-testid='stMetric']").filter(has_text="Item")
        await expect(item).to_contain_text("2 / 3", timeout=STUCK_MS)
        assert "link test queue" in await fresh.locator(f"{key('spotcheck.queue')} input").input_value()
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_card)


@pytest.mark.browser
async def test_a_merges_link_shows_the_same_search_and_threshold(app_url: str, browser: Browser, demo: str) -> None:
    url = f"{app_url}/merges?{urlencode({'sidebar.deal': demo, 'merges.search': 'okafor', 'merges.threshold': 0.7})}"

    async def same_merges(fresh: Page) -> None:
        await expect(fresh.get_by_label("Search merges")).to_have_value("okafor", timeout=STUCK_MS)
        slider = fresh.get_by_role("slider", name="Auto-merge threshold")
        assert await slider.evaluate("e => e.getAttribute('aria-valuenow') ?? e.value") == "0.7"
        await fresh.get_by_text("Would auto-merge at 0.70").wait_for(timeout=STUCK_MS)
        await fresh.get_by_text("match “okafor”", exact=False).wait_for(timeout=STUCK_MS)
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_merges)


@pytest.mark.browser
async def test_an_audit_link_shows_the_same_filters(app_url: str, browser: Browser, lab: Lab) -> None:
    try_unlock(lab.store, "not-the-secret", ADMIN_SECRET, "Mallory Link")  # an audited failure, of no deal
    with lab.store.transaction() as conn:  # the audit entry stays; no later unlock in the session waits for it
        clear_failures(conn)
    params = {"audit.deals": "(no deal: admin sign-in)", "audit.actors": "Mallory Link"}
    url = f"{app_url}/audit?{urlencode(params)}"

    async def same_filters(fresh: Page) -> None:
        chips = fresh.locator(f"{key('audit.actors')} span[data-tag]")
        await expect(chips).to_have_count(1, timeout=STUCK_MS)
        assert await chips.get_attribute("aria-label") == "Mallory Link"
        await expect(fresh.locator(f"{key('audit.deals')} span[data-tag]")).to_have_count(1)
        await assert_no_error(fresh)

    await in_fresh_context(browser, url, same_filters)
