"""A hostile corpus in a real browser: every page shows its text as text.

A BEIR folder whose passages, titles, document names, queries and query types carry Markdown images and links,
LaTeX, raw HTML and scripts, colour directives and emoji shortcodes, spreadsheet formulas and a 200 kB unbroken
token is imported with `import-beir`; a query runs on Compare and Scores (so History and Latency have runs), a
sweep on Evaluate, a review queue is built; then every page of the navigation is opened on that deal. Nothing may
reach a non-loopback host (every such request is aborted and counted), and no page may hold an image, a link
out, a KaTeX element, a heading, bold text or colour built from the data, a script that ran, a traceback, or a
long token that widens the page.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest
from playwright.async_api import Page

from dashboard.common.navigation import all_pages
from pipeline.cli import main as cli_main
from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from tests.browser.conftest import STUCK_MS, choose, recommendation, screenshot, wait_for_app
from tests.support.outbound import watch

GROUP = f"hostile_{uuid.uuid4().hex[:6]}"
EVIL = "http://evil.example"
LONG_TOKEN = "L" * 200_000
# markers: text the data carries inside markup; none may become an element of its own
MARKERS = ("LINKMARK", "ANCHORMARK", "BOLDMARK", "REDMARK", "HEADMARK", "DOCB", "DOCLINK", "QLINK", "KATEXMARK")
PASSAGES = [
    {
        "_id": "p1",
        "title": f"[TITLELINK]({EVIL}/t) revenue",
        "text": f"![img]({EVIL}/a.png) Revenue grew 6%. [LINKMARK]({EVIL}/l) <img src={EVIL}/b.png "
        f"onerror='window.__evil=1'> <script>window.__evil=2</script> <a href='{EVIL}/c'>ANCHORMARK</a>",
        "doc_name": f"![doc]({EVIL}/d.png) :red[REDMARK].pdf",
    },
    {
        "_id": "p2",
        "title": "$$\\huge KATEXMARK$$",
        "text": "Revenue grew $x^2$ in 2024. **BOLDMARK** :smile: :material/home: www.evil.example mail@evil.example",
        "doc_name": f"<b>DOCB</b><a href={EVIL}/x>DOCLINK</a>.pdf",
    },
    {
        "_id": "p3",
        "title": '=HYPERLINK("http://evil.example","x")',
        "text": '=HYPERLINK("http://evil.example","click") revenue grew',
        "doc_name": "=cmd|' /C calc'!A0",
    },
    {"_id": "p4", "title": "# HEADMARK", "text": "# HEADMARK revenue grew in 2023", "doc_name": "- list.pdf"},
    {"_id": "p5", "title": "Long", "text": f"{LONG_TOKEN} revenue grew", "doc_name": "long.pdf"},
]
QUERY = f"revenue grew ![q]({EVIL}/q.png) $$\\huge KATEXMARK$$"
QUERIES = [
    {"_id": "q1", "text": QUERY, "type": f"![t]({EVIL}/t.png)"},
    {"_id": "q2", "text": f"<a href={EVIL}/q2>QLINK</a> revenue in 2024", "type": ":red[REDMARK]"},
    {"_id": "q3", "text": "# HEADMARK how much did revenue grow", "type": "factual"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\tp1\t2\nq2\tp2\t2\nq3\tp4\t1\n"

# what the page may not hold: evaluated in the browser after each page has rendered
FINDINGS_JS = """(markers) => {
  const out = [];
  const here = location.host;
  for (const img of document.querySelectorAll('img')) {
    const src = img.getAttribute('src') || '';
    if (src.includes('evil') || (/^https?:/.test(src) && new URL(src).host !== here)) out.push('img ' + src);
  }
  for (const a of document.querySelectorAll('a')) {
    const href = a.getAttribute('href') || a.getAttribute('xlink:href') || '';
    if (href.startsWith('#')) continue;  // a heading's own anchor on this page
    // a link to one of the app's own pages (Compare -> Scores) may carry the query in its query string,
    // URL-encoded: inert; anything else built from the data is a finding
    const u = new URL(href, location.href);
    if (u.host === here && /^https?:$/.test(u.protocol) && !decodeURIComponent(u.pathname).includes('evil')) continue;
    if (href.includes('evil') || href.startsWith('mailto:') || (/^https?:/.test(href) && new URL(href).host !== here))
      out.push('link ' + href);
  }
  if (document.querySelector('.katex, .katex-display, math')) out.push('katex');
  if (window.__evil) out.push('script ran ' + window.__evil);
  for (const el of document.querySelectorAll('body *')) {
    // the spot-check card marks the fact's own words in the episode (<mark>, <strong>): ours, not the data's
    if (el.closest('.spotcheck-episode') && ['MARK', 'STRONG'].includes(el.tagName)) continue;
    const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
    if (markers.includes(own) || markers.includes(el.textContent.trim())) out.push('element ' + el.tagName + ' ' + own);
  }
  for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6'))  // "# HEADMARK" made a heading
    if (h.textContent.trim().startsWith('HEADMARK')) out.push('heading ' + h.tagName);
  if (document.body.innerText.includes('😄')) out.push('emoji');
  if (/Traceback \\(most recent call last\\)/.test(document.body.innerText)) out.push('traceback');
  if (document.querySelector("[data-testid='stException']")) out.push('exception');
  const main = document.querySelector("[data-testid='stMain']") || document.documentElement;
  if (main.scrollWidth > main.clientWidth + 4) out.push('wide ' + main.scrollWidth + ' > ' + main.clientWidth);
  return out;
}"""


def write_corpus(folder: Path) -> None:
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PASSAGES), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES), encoding="utf-8")
    (folder / "qrels.tsv").write_text(QRELS, encoding="utf-8")


async def check(page: Page, name: str, outbound: list[str]) -> None:
    await wait_for_app(page)
    await screenshot(page, f"hostile-{name}")
    findings = await page.evaluate(FINDINGS_JS, list(MARKERS))
    assert not findings, f"{name}: {findings}"
    assert not outbound, f"{name}: requests left the machine: {outbound}"
    assert await page.locator("[data-testid='stAlertContentError']").count() == 0, name


@pytest.mark.browser
async def test_hostile_corpus_is_inert_on_every_page(
    app_url: str, page: Page, lab: Lab, demo: str, tmp_path: Path
) -> None:
    folder = tmp_path / "hostile"
    write_corpus(folder)
    assert await asyncio.to_thread(cli_main, ["import-beir", str(folder), "--group", GROUP]) == 0
    await build_queue(lab, QueueSpec("hostile queue", GROUP, "fact_sample", 5, 3, "disagreement", "Eve"))

    outbound: list[str] = []
    await watch(page, outbound)
    await page.goto(app_url)  # pick the deal in the sidebar once: its URL parameter opens it on every page
    await wait_for_app(page)
    await choose(page, "sidebar.deal", page.get_by_role("option", name="hostile (BEIR import)"))  # as it says it
    await wait_for_app(page)
    deal = next(p for p in urlparse(page.url).query.split("&") if p.startswith("sidebar.deal="))
    q = quote(QUERY)

    await page.goto(f"{app_url}/compare?{deal}&compare.q={q}&compare.reranker=local")
    await page.get_by_role("heading", name="B: with local").wait_for(timeout=STUCK_MS)
    for expander in await page.locator("[data-testid='stExpander'] summary").all():
        await expander.click()  # the source episodes, with their hostile text
    await check(page, "compare", outbound)

    await page.goto(f"{app_url}/scores?{deal}&scores.q={q}&scores.reranker=local")
    await page.locator(".st-key-scores-slope .js-plotly-plot").wait_for(timeout=STUCK_MS)
    await check(page, "scores", outbound)

    await page.goto(f"{app_url}/evaluate?{deal}")
    await wait_for_app(page)
    await page.locator(".st-key-evaluate-run button").click()
    await recommendation(page).wait_for(timeout=STUCK_MS)
    for expander in (await page.locator("[data-testid='stExpander'] summary").all())[:6]:
        await expander.click()  # per-query wins and losses: the queries and facts
    await check(page, "evaluate", outbound)

    await page.goto(f"{app_url}/history?{deal}")
    await wait_for_app(page)
    await choose(page, "history.open", page.get_by_role("option").nth(1))
    await page.get_by_text("Top ").first.wait_for(timeout=STUCK_MS)
    await check(page, "history", outbound)

    await page.goto(f"{app_url}/spotcheck?{deal}")
    await check(page, "spotcheck", outbound)
    assert await page.locator(".st-key-spotcheck-card").count() == 1  # the review card, with the hostile fact

    await page.goto(f"{app_url}/timeline?{deal}")
    await wait_for_app(page)
    await page.locator(".st-key-timeline-only_chains label").click()  # every fact, not only chains: bars drawn
    await page.locator(".st-key-timeline-chart .js-plotly-plot").wait_for(timeout=STUCK_MS)
    box = await page.locator(".st-key-timeline-chart .bars path").first.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # a hover label, from data
    await page.wait_for_timeout(500)
    await check(page, "timeline", outbound)
    ticks = await page.locator(".st-key-timeline-chart .ytick text").all_text_contents()
    assert any("evil.example" in t for t in ticks), ticks  # the facts' markup, shown as characters

    walked = {"compare", "scores", "evaluate", "history", "spotcheck", "timeline"}
    for spec in all_pages():
        if spec.url_path not in walked:
            await page.goto(f"{app_url}/{spec.url_path}?{deal}")
            await check(page, spec.url_path or "home", outbound)
