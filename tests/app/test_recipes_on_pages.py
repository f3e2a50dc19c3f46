"""First-stage recipes on Compare and Scores: each side's own recipe, by name in the URL (a bad name dropped in one
line), its candidates from that recipe's methods only, the line saying a recipe's floors left fewer than N, one
first stage per pool when only k changes, and the recipe kept on the way from Scores to Compare."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.retrieval.recipes import DEFAULT_RECIPE, RECIPE_NAMES, Recipe
from pipeline.retrieval.records import RetrievalRun
from tests.app.conftest import APP, no_errors, open_page
from tests.app.test_bad_links import dropped_in_one_line, opened
from tests.support.shown import shown

QUERY = "What was Halcyon's FY2025 revenue?"
SHORT = re.compile(r"^The first stage found (\d+) of N=50 candidates: the recipe's floors leave no more\.$")


def captions(app: AppTest) -> list[str]:
    return [shown(c.value) for c in app.caption]


def side_runs(app: AppTest) -> dict[str, RetrievalRun]:
    """The runs the page keeps in its session, by recipe key (Compare's sides here use one reranker each)."""
    kept = app.session_state["compare.runs"]
    return {key[2][0].key: run for key, run in kept.items() if len(key) == 4}


def link_params(app: AppTest, label: str) -> list[dict[str, str]]:
    links = [e.proto for e in app.get("page_link") if label in e.proto.label]
    return [{k: v[0] for k, v in parse_qs(link.query_string).items()} for link in links]


def test_a_vector_side_has_no_bm25_or_walk_ranks_and_another_list(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    assert [app.selectbox(key=f"compare.{s}.recipe").value for s in "ab"] == [DEFAULT_RECIPE] * 2
    assert "compare.a.recipe" not in app.query_params  # the default is left out of the URL
    app.selectbox(key="compare.a.recipe").set_value("vector")
    app.selectbox(key="compare.b.reranker").set_value("none")  # both sides in first-stage order
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    assert app.query_params["compare.a.recipe"] == "vector"
    said = captions(app)
    assert "A: vector + none, N=50, k=10" in said and f"B: {DEFAULT_RECIPE} + none, N=50, k=10" in said
    assert "First-stage order: cosine, RRF, cosine floor 0.6" in said
    runs = side_runs(app)
    vector, walk = runs["vector"], runs[DEFAULT_RECIPE]
    assert vector.recipe == "vector" and vector.candidates
    assert all(c.method_ranks["bm25"] is None and c.method_ranks["bfs"] is None for c in vector.candidates)
    assert all(c.method_ranks["cosine"] is not None for c in vector.candidates)
    assert any(c.method_ranks["bm25"] is not None for c in walk.candidates)  # B's hybrid-walk ran BM25
    assert [c.uuid for c in vector.candidates] != [c.uuid for c in walk.candidates]
    cards = [m.value for m in app.markdown if m.value.startswith("**#")]
    assert len(cards) == 20

    # A's candidates on Scores: BM25 and BFS "not used", not empty (an empty rank is "not found")
    a_link, b_link = link_params(app, "on Scores")
    assert a_link["scores.recipe"] == "vector" and "scores.recipe" not in b_link
    scores = AppTest.from_file(APP, default_timeout=60)
    scores.query_params.update(a_link)
    open_page(scores, "app_pages/scores.py")
    assert scores.selectbox(key="scores.recipe").value == "vector"
    frame = scores.dataframe[0].value
    assert set(frame["BM25 rank"]) == {"not used"} and set(frame["BFS rank"]) == {"not used"}
    assert frame["Cosine rank"].notna().all() and "Fused score (RRF)" in frame.columns
    assert list(frame["uuid"]) == [c.uuid for c in vector.candidates]
    steps = dict(zip(scores.dataframe[1].value["Step"], scores.dataframe[1].value["Value"], strict=True))
    assert steps["BM25 rank"] == "not used" and steps["graph BFS rank"] == "not used"
    assert steps["cosine rank"].startswith("#")


def test_a_link_opens_each_side_with_its_recipe(app: AppTest) -> None:
    app.query_params.update({"compare.q": QUERY, "compare.a.recipe": "bm25", "compare.b.recipe": "graphiti-default"})
    open_page(app, "app_pages/compare.py")
    assert [app.selectbox(key=f"compare.{s}.recipe").value for s in "ab"] == ["bm25", "graphiti-default"]
    assert not [w.value for w in app.warning if "left out" in w.value]
    said = captions(app)
    assert "A: bm25 + none, N=50, k=10" in said and "B: graphiti-default + local, N=50, k=10" in said
    assert set(side_runs(app)) == {"bm25", "graphiti-default"}
    assert app.query_params["compare.a.recipe"] == "bm25"  # the names stay in the URL


def test_a_bad_recipe_in_a_link_is_dropped_in_one_line() -> None:
    app = opened("app_pages/compare.py", {"compare.a.recipe": "nope", "compare.b.recipe": "bm25"})
    dropped_in_one_line(app, "compare.a.recipe", "nope")
    assert [app.selectbox(key=f"compare.{s}.recipe").value for s in "ab"] == [DEFAULT_RECIPE, "bm25"]
    scores = opened("app_pages/scores.py", {"scores.recipe": "hybrid walk"})
    dropped_in_one_line(scores, "scores.recipe", "hybrid walk")
    assert scores.selectbox(key="scores.recipe").value == DEFAULT_RECIPE


def test_a_pool_short_of_n_is_said_for_mmr_and_not_for_hybrid_walk(app: AppTest) -> None:
    app.query_params.update({"compare.a.recipe": "mmr"})
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    runs = side_runs(app)
    assert len(runs["mmr"].candidates) < 50 and len(runs[DEFAULT_RECIPE].candidates) == 50
    short = [line for line in captions(app) if line.startswith("The first stage found")]
    assert len(short) == 1 and SHORT.match(short[0]), short  # A's (mmr), not B's (hybrid-walk)
    assert int(SHORT.match(short[0])[1]) == len(runs["mmr"].candidates)
    # the short side is not read as a deal without an answer: the rule reads B's first stage
    assert not any("Low confidence" in w.value for w in app.warning)
    if not runs["mmr"].candidates:  # both sides empty: no rule to read, no banner
        app.selectbox(key="compare.b.recipe").set_value("mmr").run()
        no_errors(app)
        assert len([line for line in captions(app) if SHORT.match(line)]) == 2
        assert not any("Low confidence" in w.value for w in app.warning)

    scores = AppTest.from_file(APP, default_timeout=60)
    scores.query_params.update({"scores.q": QUERY, "scores.recipe": "mmr"})
    open_page(scores, "app_pages/scores.py")
    assert [line for line in captions(scores) if line.startswith("The first stage found")] == short
    frame = scores.dataframe[0].value
    assert "Fused score (MMR)" in frame.columns and "Fused score (RRF)" not in frame.columns
    assert len(frame) == len(runs["mmr"].candidates)

    scores.selectbox(key="scores.recipe").set_value(DEFAULT_RECIPE).run()
    no_errors(scores)
    assert not [line for line in captions(scores) if line.startswith("The first stage found")]
    assert "scores.recipe" not in scores.query_params


@pytest.mark.parametrize("page", ["app_pages/compare.py", "app_pages/scores.py"])
def test_changing_only_k_runs_no_new_first_stage_with_two_recipes(
    app: AppTest, page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.retrieval import retrieve

    calls: list[str] = []  # the recipe of each first stage run
    real = retrieve.search_recipe
    monkeypatch.setattr(
        retrieve, "search_recipe", lambda lists, recipe, limit: calls.append(recipe.key) or real(lists, recipe, limit)
    )
    ns = page.split("/")[1].removesuffix(".py")
    open_page(app, page)
    first = "compare.a.recipe" if ns == "compare" else "scores.recipe"
    app.selectbox(key=first).set_value("vector")
    app.text_input(key=f"{ns}.q").input(QUERY).run()
    no_errors(app)
    expected = ["vector", DEFAULT_RECIPE] if ns == "compare" else ["vector"]
    assert calls == expected  # two recipes: two first stages
    for key in [f"{ns}.a.k", f"{ns}.b.k"] if ns == "compare" else [f"{ns}.k"]:
        app.slider(key=key).set_value(3).run()
    no_errors(app)
    assert calls == expected
    if ns == "scores":  # another recipe is another first stage; back to one already run is none
        app.selectbox(key=first).set_value("bm25").run()
        app.selectbox(key=first).set_value("vector").run()
        assert calls == [*expected, "bm25"]


def test_scores_to_compare_keeps_the_recipe_on_both_sides(app: AppTest, demo: str) -> None:
    app.query_params.update({"scores.q": QUERY, "scores.recipe": "hybrid-walk", "scores.n": "20"})
    open_page(app, "app_pages/scores.py")
    [params] = link_params(app, "Compare")
    assert params["compare.a.recipe"] == params["compare.b.recipe"] == "hybrid-walk"
    assert (params["compare.a.reranker"], params["compare.b.reranker"]) == ("none", "local")

    compare = AppTest.from_file(APP, default_timeout=60)
    compare.query_params.update(params)
    open_page(compare, "app_pages/compare.py")
    assert [compare.selectbox(key=f"compare.{s}.recipe").value for s in "ab"] == ["hybrid-walk"] * 2
    said = captions(compare)
    assert "A: hybrid-walk + none, N=20, k=10" in said and "B: hybrid-walk + local, N=20, k=10" in said


@pytest.mark.parametrize("name", RECIPE_NAMES)
def test_every_recipe_draws_on_scores_with_its_fusion_and_methods(app: AppTest, name: str) -> None:
    recipe = Recipe.preset(name)
    app.query_params.update({"scores.q": QUERY, "scores.recipe": name})
    open_page(app, "app_pages/scores.py")
    assert app.selectbox(key="scores.recipe").value == name
    frame = app.dataframe[0].value
    assert f"Fused score ({recipe.fusion_label})" in frame.columns
    for method, column in (("bm25", "BM25 rank"), ("cosine", "Cosine rank"), ("bfs", "BFS rank")):
        assert (set(frame[column]) == {"not used"}) == (method not in recipe.methods and len(frame) > 0), column
    if len(frame):
        steps = dict(zip(app.dataframe[1].value["Step"], app.dataframe[1].value["Value"], strict=True))
        fused = "RRF contribution" if recipe.fusion in ("rrf", "episode_mentions") else f"{recipe.fusion_label} score"
        assert fused in steps
