"""Bad input in the dashboard: a clear message, no stack trace, nothing written to the graph."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from tests.app.conftest import no_errors, open_page
from tests.support.dump import dump_deal

HOSTILE = [
    'revenue" OR 1=1 --',
    "MATCH (n) DETACH DELETE n",
    "*",
    "rev~ enue* @group_id:{demo} | a:b) (c",
    "ARR' }) RETURN n //",
    "💰 revenue 🚀 \u0007\u001b[31m",
]


def test_whitespace_query_asks_for_a_query_and_runs_nothing(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py").text_input(key="compare.q").input("   \t ").run()
    no_errors(app)
    assert any("Type a query" in i.value for i in app.info)
    assert not app.subheader


def test_an_over_long_query_is_cut_to_the_limit_by_the_box(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py").text_input(key="compare.q").input("revenue " * 2_500).run()
    no_errors(app)
    assert len(app.text_input(key="compare.q").value) <= 2_000  # the pipeline refuses longer ones (CLI test)


@pytest.mark.parametrize("query", HOSTILE)
async def test_query_syntax_is_just_text_and_changes_nothing(app: AppTest, lab: Lab, demo: str, query: str) -> None:
    before = await dump_deal(lab.backend, demo)
    open_page(app, "app_pages/compare.py").text_input(key="compare.q").input(query).run()
    no_errors(app)
    assert [s.value for s in app.subheader] == ["A: without reranking", "B: with local"]
    assert await dump_deal(lab.backend, demo) == before


def test_out_of_range_and_unknown_values_in_the_url_fall_back_to_valid_ones(app: AppTest) -> None:
    app.query_params.update({"compare.n": "500", "compare.k": "-3", "compare.reranker": "magic", "sidebar.deal": "x"})
    open_page(app, "app_pages/compare.py")
    no_errors(app)
    for side in ("a", "b"):  # the old keys open as both sides' N and k and B's reranker, invalid ones ignored
        assert 5 <= app.slider(key=f"compare.{side}.n").value <= 100
        assert 1 <= app.slider(key=f"compare.{side}.k").value <= 25
    assert app.selectbox(key="compare.b.reranker").value in {"local", "voyage"}
    assert app.selectbox(key="sidebar.deal").value in {"demo"} | set(app.selectbox(key="sidebar.deal").options)
