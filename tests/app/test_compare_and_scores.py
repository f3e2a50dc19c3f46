"""Compare and Scores pages, driven through AppTest on the demo deal."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from pipeline.retrieval.vector_index.build import ensure_index
from pipeline.retrieval.vector_index.check import check_recall
from pipeline.retrieval.vector_index.repo import save_check
from tests.app.conftest import APP, no_errors, open_page
from tests.support.shown import shown
from tests.support.tables import assert_tidy

RANK = re.compile(r"^\*\*#\d+\*\*$")
QUERY = "What was Halcyon's FY2025 revenue?"


def card_ranks(app: AppTest) -> list[str]:
    return [m.value for m in app.markdown if RANK.match(m.value)]


def test_compare_shows_k_cards_on_each_side(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    assert not card_ranks(app)  # nothing before a query
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    ranks = card_ranks(app)
    assert len(ranks) == 20  # k = 10 on each side
    assert ranks == [f"**#{i}**" for i in range(1, 11) for _side in "AB"]  # a row per rank: A's #i beside B's #i
    assert [s.value for s in app.subheader] == ["A: without reranking", "B: with local"]
    overlap = next(m for m in app.metric if m.label == "Overlap of the two top-k")
    assert re.fullmatch(r"\d+ / 10", overlap.value)
    assert not [w.value for w in app.warning if "nDCG@" not in w.value]  # only a "worse" verdict is orange


def test_changing_n_and_k_changes_what_is_shown(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(QUERY).run()
    before = {m.value for m in app.markdown}
    for side in ("a", "b"):
        app.slider(key=f"compare.{side}.n").set_value(5).run()
        app.slider(key=f"compare.{side}.k").set_value(3).run()
    no_errors(app)
    assert len(card_ranks(app)) == 6
    after = {m.value for m in app.markdown}
    assert before != after


def test_a_broken_reranker_shows_the_banner_and_first_stage_results(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    app.selectbox(key="compare.b.reranker").set_value("voyage")
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    banner = " ".join(w.value for w in app.warning)
    assert "fell back to first-stage order" in banner and "API key" in banner
    ranks = card_ranks(app)
    assert len(ranks) == 20


def test_example_query_fills_the_box(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    picker = app.selectbox(key="compare.example")
    examples = picker.options
    # every labelled query, unless a saved sweep of the deal picked those where reranking changed nDCG@10
    assert len(examples) > 40 if picker.label == "Example queries from the labelled set" else len(examples) > 1
    app.selectbox(key="compare.example").set_value(examples[1]).run()
    no_errors(app)
    assert app.text_input(key="compare.q").value == examples[1]
    # a swept example also sets the sides to the setting its sweep measured
    shown = app.slider(key="compare.a.k").value + app.slider(key="compare.b.k").value
    assert len(card_ranks(app)) == shown


@pytest.mark.parametrize("ns", ["compare", "scores"])
def test_the_example_picker_keeps_showing_the_pick_until_the_query_is_edited(app: AppTest, ns: str) -> None:
    open_page(app, f"app_pages/{ns}.py")
    picked = app.selectbox(key=f"{ns}.example").options[2]
    app.selectbox(key=f"{ns}.example").set_value(picked).run()
    no_errors(app)
    assert app.selectbox(key=f"{ns}.example").value == picked  # not back to the empty "Pick one…"
    app.run()  # any later rerun (a slider moved, a grade recorded) leaves it as picked
    assert app.selectbox(key=f"{ns}.example").value == picked
    app.text_input(key=f"{ns}.q").input(QUERY).run()
    no_errors(app)
    assert app.selectbox(key=f"{ns}.example").value is None  # the query is no longer that example
    app.selectbox(key=f"{ns}.example").set_value(picked).run()  # and it can be picked again
    assert app.text_input(key=f"{ns}.q").value == picked


def test_scores_table_lists_every_candidate(app: AppTest) -> None:
    open_page(app, "app_pages/scores.py")
    app.text_input(key="scores.q").input(QUERY).run()
    no_errors(app)
    frame = app.dataframe[0].value
    assert len(frame) == 50
    assert {
        "Fused score (RRF)",
        "BM25 rank",
        "Cosine rank",
        "BFS rank",
        "Reranker score",
        "Reranker (0-1)",
        "Rank before",
        "Rank",
        "Moved",
    } <= set(frame.columns)
    assert sorted(frame["Rank before"]) == list(range(1, 51))
    assert frame["In top k after"].sum() == 10
    assert frame["Reranker score"].notna().all()
    assert_tidy(frame)
    assert set(frame["Top k"][10:]) == {"—"}  # below the cut: "—", never an empty cell
    config = {c.get("label", name): c for name, c in json.loads(app.dataframe[0].proto.columns).items()}
    assert app.dataframe[0].proto.placeholder == "—"
    assert config["Rank"].get("pinned") and config["Fact"]["width"] <= 320  # Fact unpinned: pinned text is faded
    assert len(app.get("plotly_chart")) == 4  # scatter, slope, histogram and the picked candidate's waterfall


async def test_compare_offers_the_vector_index_with_its_measured_recall(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, "app_pages/compare.py")
    assert "compare.first" not in [s.key for s in app.selectbox]  # no index measured: exact search only
    await ensure_index(lab, demo)
    save_check(lab.store, await check_recall(lab, demo, [QUERY], 50))
    try:
        app.run()
        assert app.selectbox(key="compare.first").value == "exact"
        said = " ".join(shown(c.value) for c in app.caption)
        assert "Vector index: recall@50" in said and "against exact search" in said
        app.selectbox(key="compare.first").set_value("vector_index")
        app.text_input(key="compare.q").input(QUERY).run()
        no_errors(app)
        assert len(card_ranks(app)) == 20
        recorded = lab.store.query("SELECT first_stage FROM runs ORDER BY id DESC LIMIT 2")
        assert [r["first_stage"] for r in recorded] == ["vector_index", "vector_index"]  # both sides, one first stage
    finally:
        with lab.store.transaction() as conn:
            conn.execute("DELETE FROM vector_index_checks WHERE group_id = ?", (demo,))


def test_scores_reruns_reuse_the_table_and_charts_of_the_same_run(app: AppTest, monkeypatch) -> None:
    from dashboard.scores import view

    built: list[int] = []
    frame_of = view.candidates_frame
    monkeypatch.setattr(view, "candidates_frame", lambda *args: built.append(1) or frame_of(*args))
    open_page(app, "app_pages/scores.py")
    app.text_input(key="scores.q").input(QUERY).run()
    first = [c.proto.spec for c in app.get("plotly_chart")]
    app.run()
    app.run()
    no_errors(app)
    assert len(built) == 1 and [c.proto.spec for c in app.get("plotly_chart")] == first and len(first) == 4
    app.slider(key="scores.k").set_value(5).run()  # another run: built again
    no_errors(app)
    assert len(built) == 2 and app.dataframe[0].value["In top k after"].sum() == 5


def test_scores_links_its_query_and_setting_to_compare(app: AppTest, demo: str) -> None:
    """The way back from Scores: its query and setting on Compare's right, beside no reranking."""
    open_page(app, "app_pages/scores.py")
    app.slider(key="scores.n").set_value(20)
    app.slider(key="scores.k").set_value(5)
    app.text_input(key="scores.q").input(QUERY).run()
    no_errors(app)
    [link] = [p for p in app.get("page_link") if "Compare" in p.proto.label]
    params = {k: v[0] for k, v in parse_qs(link.proto.query_string).items()}
    assert params["compare.q"] == QUERY and params["sidebar.deal"] == demo
    sides = [tuple(params[f"compare.{s}.{f}"] for f in ("reranker", "n", "k")) for s in ("a", "b")]
    assert sides == [("none", "20", "5"), ("local", "20", "5")]

    compare = AppTest.from_file(APP, default_timeout=60)  # a colleague opening the link: a new session
    compare.query_params.update(params)
    open_page(compare, "app_pages/compare.py")
    no_errors(compare)
    assert compare.text_input(key="compare.q").value == QUERY
    assert [s.value for s in compare.subheader] == ["A: without reranking", "B: with local"]
    assert len(card_ranks(compare)) == 10  # k = 5 on each side
