"""The Timeline page on an entity with more facts than one chart page: whole chains a page, a page picker,
and reruns that reuse the built figure (a hub entity of a 10,000-fact deal has about 2,000 facts)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.timeline import charts
from dashboard.timeline import data as timeline_data
from pipeline.ingest.loading import DealContent, EntitySpec, EpisodeSpec, FactSpec, stable_uuid, write_deal
from pipeline.lab import Lab
from pipeline.temporal import timeline as temporal_timeline
from tests.app.conftest import no_errors, open_page
from tests.support.wide_deal import HashEmbedder

PAGE = "app_pages/timeline.py"
DEAL = "timeline_paging_app"
CHAINS, LENGTH = 130, 3  # 390 chained facts: two pages of whole chains
DAY0 = datetime(2024, 1, 1, tzinfo=UTC)


def hub_deal() -> DealContent:
    """One hub entity, CHAINS partners, each pair a chain of LENGTH facts (each superseding the one before)."""
    partners = [EntitySpec(f"p{c}", f"Partner {c:03d}") for c in range(CHAINS)]
    entities = [EntitySpec("hub", "Hubbard Holdings"), *partners]
    episodes = [EpisodeSpec("memo", "memo", "Quarterly figures.", "document", DAY0, "memo", "memo.pdf", page=1)]
    facts = []
    for c in range(CHAINS):
        for i in range(LENGTH):
            links = {}  # recorded, as our loaders write them
            if i:
                links["supersedes"] = stable_uuid(DEAL, "fact", f"c{c}f{i - 1}")
            if i < LENGTH - 1:
                links["superseded_by"] = stable_uuid(DEAL, "fact", f"c{c}f{i + 1}")
            facts.append(
                FactSpec(
                    f"c{c}f{i}",
                    "hub",
                    f"p{c}",
                    "SUPPLIES",
                    f"Hubbard Holdings supplied Partner {c:03d} with {i + 1}00 units",
                    ("memo",),
                    valid_at=DAY0 + timedelta(days=30 * i + c),
                    invalid_at=None if i == LENGTH - 1 else DAY0 + timedelta(days=30 * (i + 1) + c),
                    attributes=links,
                )
            )
    return DealContent(episodes, entities, facts)


@pytest.fixture(scope="module")
async def paged_deal(lab: Lab) -> str:
    await lab.backend.delete_graph(DEAL)
    embedder = HashEmbedder(lab.embedder.info.model, lab.embedder.info.dim)  # vectors are not read here
    await write_deal(lab.backend, DEAL, hub_deal(), embedder)
    return DEAL


def chart(app: AppTest) -> dict:
    charts_shown = app.get("plotly_chart")
    assert len(charts_shown) == 1
    spec = json.loads(charts_shown[0].proto.spec)
    dates = [t for t in spec["data"] if t.get("xaxis") == "x2"]
    assert len(dates) == 1  # the invisible trace that draws the dates above the bars too
    return {**spec, "data": [t for t in spec["data"] if t.get("xaxis") != "x2"]}  # the bars


def bars(spec: dict) -> list[str]:
    return [y for trace in spec["data"] for y in trace["y"]]


def test_a_big_timeline_is_paged_by_whole_chains_and_reruns_reuse_the_figure(
    app: AppTest, paged_deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    figure = charts.timeline_figure
    monkeypatch.setattr(timeline_data, "timeline_figure", lambda tl, **kw: built.append(1) or figure(tl, **kw))
    reads: list[str] = []
    load_facts = temporal_timeline.load_facts  # the call lab.temporal makes
    read = lambda lab, group: reads.append(group) or load_facts(lab, group)  # noqa: E731
    monkeypatch.setattr(temporal_timeline, "load_facts", read)
    timeline_data.clear()
    app.run()
    app.selectbox(key="sidebar.deal").set_value(paged_deal).run()  # before the page: its date range starts here
    open_page(app, PAGE)
    app.text_input(key="timeline.entity_search").input("Hubbard").run()
    no_errors(app)
    picker = app.number_input(key="timeline.page")
    assert (picker.value, picker.max) == (1, 2)
    first = chart(app)
    assert len(bars(first)) == (charts.PAGE_BARS // LENGTH) * LENGTH  # 83 whole chains of 3: 249 bars
    assert len(first["layout"]["annotations"]) == len(bars(first)) // LENGTH * (LENGTH - 1)
    assert any("page 1 of 2" in c.value for c in app.caption)
    assert reads == [paged_deal]  # the chart, the as-of tab and the supersession list share one read of the facts

    app.run()  # a rerun that changes nothing reuses the built figure
    app.run()
    no_errors(app)
    assert len(built) == 1 and chart(app) == first

    picker.set_value(2).run()
    no_errors(app)
    second = chart(app)
    assert len(bars(first)) + len(bars(second)) == CHAINS * LENGTH
    assert not set(bars(first)) & set(bars(second))
    assert len(built) == 2

    app.toggle(key="timeline.only_chains").set_value(False).run()  # still two pages: the picker keeps its page
    no_errors(app)
    assert app.number_input(key="timeline.page").value == 2 and len(built) == 3
