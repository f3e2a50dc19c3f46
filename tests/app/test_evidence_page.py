"""The Evidence page on the demo deal: from the first start it shows a fact that replaced another (its versions, its
sources, its picture); a link's fact, entity, query and setting are read from the URL, and a bad one is one line;
picking an entity moves the focus there; Compare, Scores and the Timeline link each fact here."""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from dashboard.evidence.view import ENTITY, FACT, QUERY, SETTING
from pipeline.retrieval.setting import setting
from pipeline.temporal.records import FactRow
from tests.app.conftest import no_errors, open_page

QUERY_TEXT = "How fast did revenue grow from FY2024 to FY2025?"
AUDITED = "audited FY2025 revenue growth over FY2024 is 27%"
OLD_REVENUE = "reported FY2025 revenue of $4.8 million, up 17%"


def deal_facts(demo: str) -> list[FactRow]:
    return runtime.run(runtime.get_lab().temporal.load_facts(demo))


def fact_with(demo: str, text: str) -> FactRow:
    (found,) = [f for f in deal_facts(demo) if text in f.fact]
    return found


def tables(app: AppTest) -> dict[str, Any]:
    """The page's tables by their columns' first header."""
    return {frame.value.columns[0]: frame.value for frame in app.dataframe}


def links(app: AppTest, page: str) -> list[str]:
    return [str(link.proto) for link in app.get("page_link") if page in str(link.proto)]


def test_the_first_start_shows_a_fact_that_replaced_another(app: AppTest, demo: str) -> None:
    open_page(app, "app_pages/evidence.py", demo)
    no_errors(app)
    focus = app.query_params[FACT]
    assert focus == runtime.run(runtime.get_lab().temporal.default_focus(demo))
    shown = tables(app)
    versions = shown["Fact"]  # the versions table, oldest first: a superseded one, then this current fact
    assert len(versions) >= 2 and "superseded" in versions.iloc[0]["Status"]
    assert versions.iloc[-1]["Status"] == "this fact · current"
    assert len(shown["Document"]) >= 1  # the episodes citing it
    assert len(app.get("plotly_chart")) == 1


def test_a_link_names_the_fact_the_query_and_the_setting(app: AppTest, demo: str) -> None:
    audited = fact_with(demo, AUDITED)
    chosen = setting("graphiti-default", 50, "local", 10)
    app.query_params.update({FACT: audited.uuid, QUERY: QUERY_TEXT, SETTING: chosen.text})
    open_page(app, "app_pages/evidence.py", demo)
    no_errors(app)
    said = " ".join(m.value for m in app.markdown)
    assert AUDITED in said and "kept in the top k" in said
    seen = runtime.run(runtime.get_lab().why.fact(demo, QUERY_TEXT, chosen, audited.uuid))
    ranks = dict(zip(*tables(app)["Step"].T.values, strict=True))
    assert ranks["BM25"] == (f"#{seen.method_ranks['bm25']}" if "bm25" in seen.method_ranks else "not found")
    assert ranks["Final rank"] == f"#{seen.rank}"
    # its two entities: each its own neighbourhood here, and its facts on the Timeline
    assert sum(f"{ENTITY}" in link and audited.source_uuid in link for link in links(app, "evidence")) == 1
    assert sum(audited.target_uuid in link for link in links(app, "timeline")) == 1
    # back to the query on Scores and Compare under that setting
    assert links(app, "scores.q") and links(app, "compare.q")


def test_a_superseded_fact_is_filtered_for_a_query_and_shows_what_replaced_it(app: AppTest, demo: str) -> None:
    old = fact_with(demo, OLD_REVENUE)
    app.query_params.update({FACT: old.uuid, QUERY: QUERY_TEXT})
    open_page(app, "app_pages/evidence.py", demo)
    no_errors(app)
    assert any("filtered out by date" in m.value for m in app.markdown)
    assert "Step" not in tables(app)  # no method searched a superseded fact: no ranks to show
    versions = tables(app)["Fact"]
    assert versions.iloc[0]["Status"] == "this fact · superseded" and versions.iloc[-1]["Status"] == "current"


def test_picking_an_entity_moves_the_focus_into_the_url(app: AppTest, demo: str) -> None:
    old = fact_with(demo, OLD_REVENUE)
    app.query_params[FACT] = old.uuid
    open_page(app, "app_pages/evidence.py", demo)
    app.selectbox(key="evidence.go").set_value(old.target_uuid).run()
    no_errors(app)
    assert app.query_params[ENTITY] == old.target_uuid and FACT not in app.query_params
    assert app.subheader[0].value == old.target_name
    assert all(
        old.target_uuid in (f.source_uuid, f.target_uuid)
        for f in deal_facts(demo)
        if f.fact in set(tables(app)["Relation"]["Fact"])
    )


def test_a_bad_link_is_one_line_and_the_page_still_shows(app: AppTest, demo: str) -> None:
    app.query_params.update({FACT: "not-a-fact", QUERY: QUERY_TEXT, SETTING: "nope:none:x:10"})
    open_page(app, "app_pages/evidence.py", demo)
    no_errors(app)
    warned = [w.value for w in app.warning]
    assert any("“not-a-fact” is not a fact of this deal" in w for w in warned)
    assert any("cannot be run here" in w for w in warned)
    assert app.query_params[FACT] == runtime.run(runtime.get_lab().temporal.default_focus(demo))


def test_compare_scores_and_the_timeline_link_each_fact_here(app: AppTest, demo: str) -> None:
    app.query_params["compare.q"] = QUERY_TEXT
    open_page(app, "app_pages/compare.py", demo)
    no_errors(app)
    linked = links(app, "evidence.fact")
    assert len(linked) == 20 and all("evidence.q" in link and "evidence.setting" in link for link in linked)

    scores = AppTest.from_file(app._script_path, default_timeout=60)
    scores.query_params["scores.q"] = QUERY_TEXT
    open_page(scores, "app_pages/scores.py", demo)
    picked = scores.selectbox(key="scores.pick").value
    assert sum(picked in link for link in links(scores, "evidence.fact")) == 1

    old = fact_with(demo, OLD_REVENUE)
    timeline = AppTest.from_file(app._script_path, default_timeout=60)
    timeline.query_params.update({"timeline.mode": "Relation", "timeline.relation": old.relation})
    open_page(timeline, "app_pages/timeline.py", demo)
    timeline.selectbox(key="timeline.evidence").set_value(old.uuid).run()
    no_errors(timeline)
    assert timeline.query_params.get(FACT) == old.uuid
    assert timeline.title[0].value == "Evidence"
