"""The Timeline page through AppTest: chart, as-of diff, supersession list, admin correct + undo."""

from __future__ import annotations

import json
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.audit import audit_log
from pipeline.corrections.actions import list_corrections
from pipeline.ingest.demo.seed import DEAL_FILE, seed_demo
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.temporal.timeline import search_entities
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET
from tests.support.dump import dump_deal
from tests.support.shown import chart_shown
from tests.support.tables import assert_tidy

PAGE = "app_pages/timeline.py"
OWN_DEAL = "demo_timeline_app"
SUPERSEDED = sum(1 for f in json.loads(DEAL_FILE.read_text())["facts"] if f.get("supersedes"))


def chart(app: AppTest) -> dict:
    charts = app.get("plotly_chart")
    assert len(charts) == 1
    spec = json.loads(charts[0].proto.spec)
    dates = [t for t in spec["data"] if t.get("xaxis") == "x2"]
    assert len(dates) == 1  # the invisible trace that draws the dates above the bars too
    return {**spec, "data": [t for t in spec["data"] if t.get("xaxis") != "x2"]}  # the bars


def frame_with(app: AppTest, column: str):  # AppTest does not expose a dataframe's key: find it by column
    frames = [d.value for d in app.dataframe if column in d.value.columns]
    assert len(frames) == 1, column
    return frames[0]


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def test_an_entity_timeline_shows_bars_and_supersession_links(app: AppTest) -> None:
    open_page(app, PAGE)
    assert app.title[0].value == "Timeline"
    app.text_input(key="timeline.entity_search").input("Halcyon Freight").run()
    no_errors(app)
    assert "Halcyon Freight Systems" in app.selectbox(key="timeline.entity").format_func(
        app.selectbox(key="timeline.entity").value
    )
    spec = chart(app)
    channels = {chart_shown(trace["name"]).split(",")[0] for trace in spec["data"]}
    assert {"document", "Q&A response"} <= channels
    links = spec["layout"]["annotations"]
    assert len(links) >= 10 and all(a["showarrow"] for a in links)
    bars = sum(len(trace["y"]) for trace in spec["data"])

    assert app.toggle(key="timeline.only_chains").value is True  # opens on the chains
    linked = {a["y"] for a in links} | {a["ay"] for a in links}
    assert {y for trace in spec["data"] for y in trace["y"]} == linked

    app.toggle(key="timeline.only_chains").set_value(False).run()
    no_errors(app)
    every = chart(app)
    assert len(every["layout"]["annotations"]) == len(links)
    assert sum(len(trace["y"]) for trace in every["data"]) > bars

    app.multiselect(key="timeline.channels").set_value(["document"]).run()
    no_errors(app)
    assert {t["name"].split(",")[0] for t in chart(app)["data"]} == {"document"}


def test_the_dates_above_the_chart_are_the_dates_below_it(app: AppTest) -> None:
    """Both date axes have the same explicit ticks: left to Plotly, the top one's read a month off (issue 38)."""
    open_page(app, PAGE)
    app.text_input(key="timeline.entity_search").input("Halcyon Freight").run()
    layout = chart(app)["layout"]
    ticks = ("tickmode", "tick0", "dtick", "tickformat")
    below, above = ({k: layout[axis].get(k) for k in ticks} for axis in ("xaxis", "xaxis2"))
    assert below == above and below["tickmode"] == "linear" and str(below["dtick"]).startswith("M")
    assert layout["xaxis2"]["side"] == "top" and layout["xaxis2"]["matches"] == "x"


def test_as_of_a_date_shows_what_changed_since(app: AppTest) -> None:
    open_page(app, PAGE)
    app.segmented_control(key="timeline.mode").set_value("relation").run()
    app.selectbox(key="timeline.relation").set_value("HAS_ARR").run()
    app.date_input(key="timeline.as_of").set_value(date(2026, 1, 15)).run()
    no_errors(app)
    shown = metrics(app)
    assert shown["True on 2026-01-15"] == "1"
    assert (shown["Superseded since then"], shown["New since then"], shown["Unchanged since then"]) == ("1", "1", "0")
    diff = frame_with(app, "Change")
    assert sorted(diff["Change"]) == ["new", "superseded"]
    row = diff[diff["Change"] == "superseded"].iloc[0]
    assert "$5.0 million" in row["Fact"] and "$5.3 million" in row["Replaced by (today)"]
    assert all(assert_tidy(d.value) for d in app.dataframe)  # what was true then, what changed, supersessions
    [line] = chart(app)["layout"]["shapes"]  # the as-of date is drawn on the chart, labelled
    assert line["x0"] == line["x1"] == "2026-01-15" and line["label"]["text"] == "as of 2026-01-15"
    assert app.query_params["timeline.as_of"] == "2026-01-15"  # a picked date is in the link


def test_the_supersession_list_counts_and_measures(app: AppTest) -> None:
    open_page(app, PAGE)
    table = frame_with(app, "New fact")
    assert len(table) == SUPERSEDED >= 34
    assert set(table["Link"]) == {"recorded"}
    shown = metrics(app)
    assert int(shown["Superseded"]) == SUPERSEDED
    assert int(shown["Facts"]) == int(shown["Current"]) + int(shown["Superseded"])
    assert shown["Chains"] == "34"
    app.button(key="timeline.measure").click().run()
    no_errors(app)
    share = metrics(app)["Superseded share of candidates"]
    assert share.endswith("%") and 0 < float(share[:-1]) < 100
    assert any("include_superseded=True" in c.value for c in app.caption)


def test_without_the_admin_secret_the_page_is_read_only(app: AppTest) -> None:
    open_page(app, PAGE)
    assert any("Read-only" in i.value for i in app.info)
    with pytest.raises(KeyError):
        app.button(key="timeline.fix.submit")


def test_the_as_of_date_opens_before_a_change(app: AppTest) -> None:
    """Not on a change's own day, where the superseded fact is already gone and the diff reads 0."""
    open_page(app, PAGE)
    app.segmented_control(key="timeline.mode").set_value("relation").run()
    app.selectbox(key="timeline.relation").set_value("HAS_ARR").run()
    no_errors(app)
    when = app.date_input(key="timeline.as_of").value
    assert "timeline.as_of" not in app.query_params  # a default is not a pick: the link does not pin it
    shown = metrics(app)
    assert int(shown["Superseded since then"]) >= 1, shown
    assert shown[f"True on {when}"] != "0"
    [line] = chart(app)["layout"]["shapes"]
    assert line["label"]["text"] == f"as of {when.isoformat()}"


def test_a_link_opens_the_same_timeline(app: AppTest) -> None:
    """The mode, the relation (by name), the window and the as-of date come from the URL; a name the deal does
    not have is dropped from it and nothing is picked."""
    app.query_params.update(
        {
            "timeline.mode": "Relation",
            "timeline.relation": "HAS_ARR",
            "timeline.range": ["2025-06-01", "2026-06-30"],
            "timeline.as_of": "2026-01-15",
            "timeline.tab": "As of a date",
        }
    )
    open_page(app, PAGE)
    assert app.segmented_control(key="timeline.mode").value == "relation"
    assert app.selectbox(key="timeline.relation").value == "HAS_ARR"
    assert app.date_input(key="timeline.range").value == (date(2025, 6, 1), date(2026, 6, 30))
    assert metrics(app)["True on 2026-01-15"] == "1"
    spec = chart(app)
    assert spec["layout"]["xaxis"]["range"][0].startswith("2025-06-01")
    assert spec["layout"]["shapes"][0]["x0"] == "2026-01-15"
    # the pick is published by name (its label carries counts a correction changes)
    app.selectbox(key="timeline.relation").set_value("HAS_CASH").run()
    assert app.query_params["timeline.relation"] == "HAS_CASH"


def test_a_link_to_an_unknown_relation_or_entity_picks_nothing_from_it(app: AppTest) -> None:
    app.query_params.update({"timeline.mode": "Relation", "timeline.relation": "NO_SUCH_RELATION"})
    open_page(app, PAGE)
    no_errors(app)
    assert app.selectbox(key="timeline.relation").value is None
    assert "timeline.relation" not in app.query_params


@pytest.mark.parametrize("bad", ["2999-01-01", "15/01/2026", "<b>soon</b>"])
def test_a_link_with_a_bad_as_of_date_says_so_in_one_line(app: AppTest, bad: str) -> None:
    app.query_params.update({"timeline.mode": "Relation", "timeline.relation": "HAS_ARR", "timeline.as_of": bad})
    open_page(app, PAGE)
    [warning] = [w.value for w in app.warning]
    assert "as-of date" in warning and "left out" in warning
    assert "timeline.as_of" not in app.query_params
    assert app.date_input(key="timeline.as_of").value < date(2999, 1, 1)  # the selection's own default


def test_a_reversed_date_range_in_a_link_is_read_the_right_way_round(app: AppTest) -> None:
    app.query_params.update(
        {"timeline.mode": "Relation", "timeline.relation": "HAS_ARR", "timeline.range": ["2026-06-30", "2025-06-01"]}
    )
    open_page(app, PAGE)
    assert any("ends before it starts" in w.value for w in app.warning)
    assert chart(app)["layout"]["xaxis"]["range"][0].startswith("2025-06-01")


async def test_a_link_names_an_entity_by_uuid(app: AppTest, lab: Lab, demo: str) -> None:
    """Not the first match of the search (the page's own default): the linked one."""
    matches = await search_entities(lab, demo, "Halcyon")
    assert len(matches) >= 2
    app.query_params.update({"timeline.entity_search": "Halcyon", "timeline.entity": matches[1].uuid})
    open_page(app, PAGE)
    assert app.text_input(key="timeline.entity_search").value == "Halcyon"
    assert app.selectbox(key="timeline.entity").value == matches[1].uuid
    assert app.query_params["timeline.entity"] == matches[1].uuid


@pytest.fixture
async def own_deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=OWN_DEAL)
    return OWN_DEAL


async def test_admin_corrects_a_fact_and_undoes_it(app: AppTest, lab: Lab, own_deal: str) -> None:
    before = await dump_deal(lab.backend, own_deal)
    open_page(app, PAGE)
    app.selectbox(key="sidebar.deal").set_value(own_deal).run()
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)
    app.segmented_control(key="timeline.mode").set_value("relation").run()
    app.selectbox(key="timeline.relation").set_value("HAS_CASH").run()
    cash = stable_uuid(own_deal, "fact", "f216")
    app.selectbox(key="timeline.fix.fact").set_value(cash)
    app.text_area(key="timeline.fix.statement").input("Halcyon's cash balance was $1.45 million at March 31, 2026.")
    app.selectbox(key="timeline.fix.channel").set_value("analyst_chat")
    app.text_input(key="timeline.fix.author").input("Tom Becker")
    app.date_input(key="timeline.fix.date").set_value(date(2026, 4, 1))
    app.button(key="timeline.fix.submit").click().run()
    assert not list_corrections(lab.store, own_deal)  # the first click only names what will change
    [ask] = [w.value for w in app.warning if w.value.startswith("Correct “")]
    assert "superseded from 2026-04-01" in ask and "$1.45 million at March 31, 2026" in ask
    app.button(key="timeline.fix.submit.confirm").click().run()
    no_errors(app)
    assert any("Corrected" in s.value for s in app.success)
    records = list_corrections(lab.store, own_deal)
    assert len(records) == 1 and records[0].old_uuid == cash and records[0].actor == "Ana"
    assert await dump_deal(lab.backend, own_deal) != before
    assert "$1.45 million" in chart_shown(" ".join(chart(app)["layout"]["yaxis"]["ticktext"]))

    # a refused correction says why and writes nothing
    app.selectbox(key="timeline.fix.fact").set_value(records[0].new_uuid)
    app.date_input(key="timeline.fix.date").set_value(date(2026, 3, 1))
    app.text_area(key="timeline.fix.statement").input("Halcyon's cash was $1.5 million.")
    app.text_input(key="timeline.fix.author").input("Tom Becker")
    app.button(key="timeline.fix.submit").click().run()
    assert any("before the fact became valid" in e.value for e in app.error)
    assert len(list_corrections(lab.store, own_deal)) == 1

    app.button(key="timeline.undo.submit").click().run()
    assert any(w.value.startswith("Undo the correction of") for w in app.warning)
    app.button(key="timeline.undo.submit.confirm").click().run()
    no_errors(app)
    assert any("Undone" in s.value for s in app.success)
    assert await dump_deal(lab.backend, own_deal) == before
    actions = [e.action for e in audit_log(lab.store, own_deal, "fact.")]
    assert actions[:2] == ["fact.undo_correct", "fact.correct"]
