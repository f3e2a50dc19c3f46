"""At a laptop's 1280 x 800 window no widget's text is cut off, on any page, and the Scores rank chart of 200
candidates draws a bounded number of lines and labels.

"Cut off" is what a reader sees as cut: a select box whose value is wider than the box, multiselect chips that
scroll sideways, tabs that scroll, or any text clipped by its own box (overflow hidden or an ellipsis). Charts
(SVG), tables (a canvas), code and text typed by the user are left out: they scroll or are cut on purpose.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page

from dashboard.common.deal_picker import deal_labels
from dashboard.common.navigation import all_pages
from pipeline.deals.records import DealRecord
from pipeline.deals.repo import save_deal
from pipeline.ingest.loading import write_deal
from pipeline.lab import Lab
from tests.browser.conftest import STUCK_MS, open_as_user, screenshot, wait_for_app
from tests.support.wide_deal import tiny_deal

LONG_NAME = "Project Northwind — carve-out of the European logistics business, phase 2 (vendor due diligence)"
QUERY = "What was Halcyon's FY2025 revenue?"

CUT_OFF = r"""
() => {
  const cut = [];
  const skip = "svg, [data-testid='stPlotlyChart'], [data-testid='stDataFrame'], [data-testid='stTable'], "
    + "[data-testid='stCode'], pre, code, textarea, input:not([role='combobox'])";
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const where = (el) => {
    const keyed = el.closest("[class*='st-key-']");
    const key = keyed ? [...keyed.classList].find(c => c.startsWith('st-key-')) : '';
    const widget = el.closest("[data-testid^='st']");
    const side = el.closest("[data-testid='stSidebar']") ? 'sidebar' : 'main';
    return `${side} ${key} ${widget ? widget.getAttribute('data-testid') : ''}`;
  };
  const wider = (el) => el.scrollWidth > el.clientWidth + 1;
  const report = (el, what, text) => cut.push({where: where(el), what, text: text.trim().slice(0, 100)});
  const roots = "[data-testid='stSidebar'], [data-testid='stMain']";
  for (const el of document.querySelectorAll(`:is(${roots}) input[role='combobox']`))
    if (shown(el) && el.value && wider(el)) report(el, 'select box value', el.value);
  for (const el of document.querySelectorAll(`:is(${roots}) [data-testid='stMultiSelectTagsContainer']`))
    if (shown(el) && wider(el)) report(el, 'chips scroll sideways', el.textContent);
  for (const el of document.querySelectorAll(`:is(${roots}) [role='tablist']`))
    if (shown(el) && wider(el)) report(el, 'tabs scroll sideways', el.textContent);
  for (const el of document.querySelectorAll(`:is(${roots}) *`)) {
    if (el.closest(skip) || !shown(el) || !wider(el)) continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' || ['hidden', 'clip', 'auto', 'scroll'].includes(style.overflowX))
      report(el, 'text clipped', el.textContent);
  }
  return cut;
}
"""

RANK_CHART = """
() => {
  const plot = document.querySelector('.st-key-scores-slope .js-plotly-plot');
  const lines = plot.data.filter(t => t.showlegend !== false);
  return {
    traces: plot.data.length,
    lines: lines.map(t => t.customdata.filter(c => c !== null).length / 2).reduce((a, b) => a + b, 0),
    left: plot.layout.yaxis.ticktext.length,
    right: plot.layout.yaxis2.ticktext.length,
    title: plot.layout.title.text,
    note: plot.layout.title.subtitle.text,
  };
}
"""


@pytest.fixture
async def laptop(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    yield page
    await page.close()


@pytest.fixture(scope="module")
async def long_deals(lab: Lab, demo: str) -> AsyncIterator[tuple[str, str]]:
    """Two one-fact deals as users' graphs name them: a UUID group id with no name of ours, and a UUID group id
    with a long name (removed after the module: other tests see the deals they expect)."""
    bare, named = str(uuid.uuid4()), str(uuid.uuid4())
    for group in (bare, named):
        await write_deal(
            lab.backend, group, tiny_deal("Northwind Traders reported FY2025 revenue of $812 million"), lab.embedder
        )
    save_deal(lab.store, DealRecord(named, name=LONG_NAME))
    yield bare, named
    for group in (bare, named):
        await lab.backend.delete_graph(group)


async def cut_off(page: Page) -> list[dict[str, str]]:
    return await page.evaluate(CUT_OFF)


async def look(page: Page, name: str, found: dict[str, list[dict[str, str]]]) -> None:
    """What the page cuts off, and each of its tabs once opened."""
    found[name] = await cut_off(page)
    tabs = page.locator("[data-testid='stMain'] [role='tab']")
    for i in range(await tabs.count()):
        tab = tabs.nth(i)
        title = (await tab.text_content() or "").strip()
        await tab.click()
        await wait_for_app(page)
        found[f"{name} / {title}"] = await cut_off(page)


async def walk(page: Page, start: str) -> dict[str, list[dict[str, str]]]:
    """Every page (and tab), from `start` through the sidebar's links as a user moves: what each cuts off."""
    await page.goto(start)
    await wait_for_app(page)
    found: dict[str, list[dict[str, str]]] = {}
    await look(page, "home", found)
    for spec in all_pages()[1:]:
        await open_as_user(page, spec)
        await page.wait_for_url(f"**/{spec.url_path}*")
        await wait_for_app(page)
        await look(page, spec.url_path, found)
    return found


@pytest.mark.browser
async def test_no_widget_text_is_cut_off_on_any_page(app_url: str, laptop: Page) -> None:
    found = await walk(laptop, app_url)
    assert {spec.url_path or "home" for spec in all_pages()} <= set(found) and "spotcheck / New queue" in found
    cut = {page: texts for page, texts in found.items() if texts}
    assert not cut, cut


@pytest.mark.browser
async def test_a_uuid_deal_fits_the_sidebar_and_stays_picked_on_every_page(
    app_url: str, laptop: Page, long_deals: tuple[str, str]
) -> None:
    bare, _ = long_deals
    found = await walk(laptop, f"{app_url}/?sidebar.deal={bare}")
    cut = {page: texts for page, texts in found.items() if texts}
    assert not cut, cut
    assert f"sidebar.deal={bare}" in laptop.url  # still the deal picked by the link, after the whole walk
    box = laptop.locator("[data-testid='stSidebar'] input[role='combobox']").first
    assert await box.input_value() == f"{bare[:19]}…{bare[-4:]}"
    await laptop.get_by_text(f"group id: {bare}").wait_for()  # the whole id, under the box


@pytest.mark.browser
async def test_a_long_deal_name_fits_the_sidebar_with_the_full_name_under_it(
    app_url: str, laptop: Page, lab: Lab, long_deals: tuple[str, str]
) -> None:
    _, named = long_deals
    await laptop.goto(f"{app_url}/compare?sidebar.deal={named}")
    await wait_for_app(laptop)
    await screenshot(laptop, "layout-1280-long-deal")
    assert await cut_off(laptop) == []
    box = laptop.locator("[data-testid='stSidebar'] input[role='combobox']").first
    assert await box.input_value() == deal_labels(await lab.deals())[named]
    assert (await box.input_value()).startswith("Project Northwind")
    await laptop.get_by_text(LONG_NAME).wait_for()


@pytest.mark.browser
async def test_compare_results_are_not_cut_off(app_url: str, laptop: Page) -> None:
    await laptop.goto(f"{app_url}/compare?compare.q={quote(QUERY)}&compare.a.n=200&compare.b.k=25")
    # the sides differ in N, k and reranker: each heading names all three (the longest name a side gets here)
    await laptop.get_by_role("heading", name="B: N=50 · k=25 · local").wait_for(timeout=STUCK_MS)
    await wait_for_app(laptop)
    await screenshot(laptop, "layout-1280-compare")
    assert await laptop.locator(".stMarkdownBadge").count() >= 2 * 10  # the cards' badges were checked
    assert await cut_off(laptop) == []


@pytest.mark.browser
async def test_scores_rank_chart_of_200_candidates_stays_bounded(app_url: str, laptop: Page) -> None:
    await laptop.goto(f"{app_url}/scores?scores.q={quote(QUERY)}&scores.n=200&scores.reranker=local&scores.k=10")
    await laptop.locator(".st-key-scores-slope .js-plotly-plot").wait_for(timeout=STUCK_MS)
    await wait_for_app(laptop)
    await screenshot(laptop, "layout-1280-scores-200")
    assert await cut_off(laptop) == []
    chart = await laptop.evaluate(RANK_CHART)
    assert chart["traces"] <= 4, chart  # moved up, moved down, unchanged, the right axis' anchor
    assert 10 <= chart["lines"] <= 20, chart  # the top 10 on each side, no more
    assert chart["left"] <= 21 and chart["right"] <= 21, chart  # labels: the top 10, a gap, those from below
    assert "top 10 (k = 10)" in chart["title"], chart
    others = int(chart["note"].split(" more candidates")[0])
    assert others + chart["lines"] == 200, chart  # all 200 candidates: drawn or counted in the note


@pytest.mark.browser
@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)], ids=["1280x800", "1440x900"])
async def test_the_admin_unlock_is_above_the_sidebars_fold(
    app_url: str, browser: Browser, size: tuple[int, int]
) -> None:
    """The admin box comes right after the deal, before the graph, embedder and rerankers: no scrolling to it."""
    page = await browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        await page.goto(f"{app_url}/timeline")
        await wait_for_app(page)
        await screenshot(page, f"sidebar-{size[0]}")
        admin = page.locator("[data-testid='stSidebar'] [data-testid='stExpander']", has_text="Admin").first
        box = await admin.bounding_box()
        assert box is not None and box["y"] + box["height"] <= size[1], box
        rerankers = await page.locator("[data-testid='stSidebar']").get_by_text("Rerankers").bounding_box()
        assert rerankers is not None and rerankers["y"] > box["y"]  # the status comes after it
    finally:
        await page.close()
