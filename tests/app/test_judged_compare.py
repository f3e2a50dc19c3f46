"""Compare any two settings, judged: per-side nDCG/recall/MRR, the verdict line, grades on the cards, overlap,
the low-confidence banner, old links, and the Scores page's grade column, top-k cut and a candidate's path."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common.links import compare_url
from pipeline.comparison.examples import swept_examples
from pipeline.comparison.judged import query_judgments, side_score
from pipeline.comparison.overlap import overlap
from pipeline.comparison.verdict import Verdict, side_names, verdict
from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.records import SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import setting
from tests.app.conftest import APP, no_errors, open_page
from tests.app.test_voyage_faults_ui import KEY, voyage  # noqa: F401 - the Voyage stand-in fixture
from tests.support.fakes.voyage_server import FakeVoyageServer, rerank_score
from tests.support.shown import shown

QUERY = "What was Halcyon's FY2025 revenue?"
NONSENSE = "purple elephant trampoline"
GRADE = re.compile(r"^:\w+-badge\[(judged [0-3]|not judged)\]$")


def metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


BOXES = {"better": "success", "worse": "warning", "no change": "info"}  # B's outcome: its own colour of box


def shown_verdict(app: AppTest) -> tuple[str, str]:
    """(the kind of box, its line) of the page's verdict."""
    boxes = [(kind, shown(box.value).strip("*")) for kind in BOXES.values() for box in getattr(app, kind)]
    found = [(kind, line) for kind, line in boxes if re.search(r"nDCG@\S+ \d\.\d\d -> \d\.\d\d", line)]
    assert len(found) == 1, found
    return found[0]


async def expected(lab: Lab, group: str, a: str, b: str, n: int = 50) -> tuple[Verdict, list, list]:
    """The verdict and both sides' scores, computed straight from the pipeline (not from the page)."""
    judged = await query_judgments(lab, group, QUERY)
    assert judged is not None and judged.scorable
    runs = [await retrieve(lab, QUERY, group, n, 10, r) for r in (a, b)]
    scores = [side_score(judged.grades, [r.uuid for r in run.results], 10) for run in runs]
    said = verdict(*scores, side_names(setting(candidates=n, reranker=a), setting(candidates=n, reranker=b)))
    return said, scores, runs


async def test_a_judged_compare_of_local_against_none(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, "app_pages/compare.py")
    assert app.selectbox(key="compare.a.reranker").value == "none"  # the default: without vs with reranking
    assert app.selectbox(key="compare.b.reranker").value == "local"
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    said, (a, b), runs = await expected(lab, demo, "none", "local")
    assert shown_verdict(app) == (BOXES[said.outcome], said.line)
    assert a.ndcg > 0 and b.ndcg > 0  # issue 17: this example scored nDCG@10 = 0 on both sides
    for side, score in (("A", a), ("B", b)):
        assert metric(app, f"{side}: nDCG@10") == f"{score.ndcg:.2f}"
        assert metric(app, f"{side}: recall@10") == f"{score.recall:.2f}"
        assert metric(app, f"{side}: MRR@10") == f"{score.mrr:.2f}"
    grades = [m.value for m in app.markdown if GRADE.match(m.value)]
    judged_cards = [g for g in grades if "[judged" in g]
    assert len(grades) == 20 and len(judged_cards) == a.relevant + b.relevant > 0  # the demo labels grade 1-2
    shared = overlap(*([r.uuid for r in run.results] for run in runs))
    assert metric(app, "Overlap of the two top-k") == f"{shared.shared} / 10"
    assert (
        metric(app, "Jaccard") == f"{shared.jaccard:.2f}" and metric(app, "Rank-biased overlap") == f"{shared.rbo:.2f}"
    )
    assert not any("Low confidence" in w.value for w in app.warning)


async def test_any_two_settings_each_side_its_own_n_and_k(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, "app_pages/compare.py")
    app.selectbox(key="compare.a.reranker").set_value("local")
    app.selectbox(key="compare.b.reranker").set_value("none")
    app.slider(key="compare.b.n").set_value(25)
    app.slider(key="compare.b.k").set_value(5)
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    # each side named by what sets it apart from the other
    assert [s.value for s in app.subheader] == ["A: N=50 · k=10 · local", "B: N=25 · k=5 · none"]
    judged = await query_judgments(lab, demo, QUERY)
    assert judged is not None
    b_run = await retrieve(lab, QUERY, demo, 25, 5, "none")
    b = side_score(judged.grades, [r.uuid for r in b_run.results], 5)
    assert metric(app, "B: nDCG@5") == f"{b.ndcg:.2f}" and metric(app, "A: nDCG@10") is not None
    said = shown_verdict(app)[1]  # each side named by what differs; nDCG at two cuts is nDCG@k
    assert "N=25 · k=5 · none" in said and "N=50 · k=10 · local" in said and "nDCG@k" in said
    assert metric(app, "Overlap of the two top-k").endswith("/ 5")


async def test_a_judged_compare_of_voyage_against_local(
    app: AppTest,
    lab: Lab,
    demo: str,
    voyage: FakeVoyageServer,  # noqa: F811
) -> None:
    open_page(app, "app_pages/compare.py")
    app.selectbox(key="compare.a.reranker").set_value("local")
    app.selectbox(key="compare.b.reranker").set_value("voyage")
    app.text_input(key="compare.q").input(QUERY).run()
    no_errors(app)
    assert not any("fell back" in w.value for w in app.warning)
    assert [s.value for s in app.subheader] == ["A: with local", "B: with voyage"]
    assert len(voyage.requests_to("/v1/rerank")) == 1  # one first stage, reranked by Voyage once
    judged = await query_judgments(lab, demo, QUERY)
    assert judged is not None
    pool = (await retrieve(lab, QUERY, demo, 50, 10, "none")).candidates
    by_voyage = sorted(pool, key=lambda c: (-rerank_score(QUERY, c.fact), c.first_stage_rank))  # the stand-in's order
    local = await retrieve(lab, QUERY, demo, 50, 10, "local")
    a = side_score(judged.grades, [r.uuid for r in local.results], 10)
    b = side_score(judged.grades, [c.uuid for c in by_voyage], 10)
    said = verdict(a, b, ("with local", "with voyage"))
    assert shown_verdict(app) == (BOXES[said.outcome], said.line)
    assert metric(app, "B: nDCG@10") == f"{b.ndcg:.2f}" and metric(app, "A: nDCG@10") == f"{a.ndcg:.2f}"


def test_a_nonsense_query_gets_the_low_confidence_banner(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(NONSENSE).run()
    no_errors(app)
    # graphiti's default recipe finds nothing for it (no BM25 word, no cosine above its 0.6 floor): the banner
    # still says why, from the deal's closest fact
    [banner] = [w.value for w in app.warning if "Low confidence" in w.value]
    assert "cosine" in banner and "relative to this pool" in banner
    assert sum("found 0 of N=50 candidates" in c.value for c in app.caption) == 2
    # a recipe without a floor fills its pool: every card says its scores are low
    for side in "ab":
        app.selectbox(key=f"compare.{side}.recipe").set_value("hybrid-walk")
    app.run()
    no_errors(app)
    [banner] = [w.value for w in app.warning if "Low confidence" in w.value]
    scored = [c.value for c in app.caption if c.value.startswith("rerank ")]
    assert scored and all("all scores are low" in c for c in scored)
    assert any("Not judged" in c.value for c in app.caption)
    assert not [m for m in app.markdown if GRADE.match(m.value)]  # no grade on an unjudged query


def test_an_old_link_opens_with_its_reranker_as_side_b(app: AppTest) -> None:
    app.query_params.update({"compare.reranker": "voyage", "compare.n": "25", "compare.k": "5"})
    open_page(app, "app_pages/compare.py")
    assert app.selectbox(key="compare.b.reranker").value == "voyage"
    assert app.selectbox(key="compare.a.reranker").value == "none"
    assert [app.slider(key=f"compare.{s}.n").value for s in "ab"] == [25, 25]
    assert [app.slider(key=f"compare.{s}.k").value for s in "ab"] == [5, 5]


def test_a_compare_url_opens_both_sides_as_it_says(app: AppTest) -> None:
    a, b = setting(candidates=25, reranker="local", top_k=5), setting(candidates=30, reranker="voyage", top_k=7)
    url = compare_url("demo", QUERY, a, b)
    app.query_params.update({k: v[0] for k, v in parse_qs(url.split("?", 1)[1]).items()})
    open_page(app, "app_pages/compare.py")
    assert app.text_input(key="compare.q").value == QUERY
    assert [app.selectbox(key=f"compare.{s}.reranker").value for s in "ab"] == ["local", "voyage"]
    assert [app.slider(key=f"compare.{s}.n").value for s in "ab"] == [25, 30]
    assert [app.slider(key=f"compare.{s}.k").value for s in "ab"] == [5, 7]


def test_compare_links_each_side_to_scores(app: AppTest) -> None:
    open_page(app, "app_pages/compare.py")
    app.text_input(key="compare.q").input(QUERY).run()
    links = [e.proto for e in app.get("page_link") if "on Scores" in e.proto.label]
    params = [parse_qs(link.query_string) for link in links]
    assert [p["scores.reranker"] for p in params] == [["none"], ["local"]]
    for p in params:
        assert p["scores.q"] == [QUERY] and p["scores.n"] == ["50"] and p["scores.k"] == ["10"]
        assert p["sidebar.deal"] == ["demo"]
    # Scores opens with side A's setting (no reranker: first-stage order)
    scores = AppTest.from_file(APP, default_timeout=60)
    scores.query_params.update({k: v[0] for k, v in params[0].items()})
    open_page(scores, "app_pages/scores.py")
    assert scores.text_input(key="scores.q").value == QUERY
    assert scores.selectbox(key="scores.reranker").value == "none"
    frame = scores.dataframe[0].value
    assert frame["Reranker score"].isna().all() and list(frame["Rank"]) == list(frame["Rank before"])


async def test_scores_grades_cut_and_a_candidates_path(app: AppTest, lab: Lab, demo: str) -> None:
    open_page(app, "app_pages/scores.py")
    app.slider(key="scores.k").set_value(5)
    app.text_input(key="scores.q").input(QUERY).run()
    no_errors(app)
    frame = app.dataframe[0].value
    judged = await query_judgments(lab, demo, QUERY)
    assert judged is not None
    for uuid, grade in zip(frame["uuid"], frame["Judged grade"], strict=True):
        assert (None if pd.isna(grade) else grade) == judged.grades.get(uuid)
    assert frame["Judged grade"].notna().sum() >= 1
    assert list(frame["Top k"][:6]) == ["in top k"] * 4 + ["in top k · cut at k = 5", "—"]
    path = app.dataframe[1].value
    first = frame.iloc[0]
    steps = dict(zip(path["Step"], path["Value"], strict=True))
    assert steps["Final rank"] == "#1" and steps["Top k"] == "made the top k"
    assert steps["First-stage rank"] == f"#{first['Rank before']}"
    assert steps["RRF contribution"].startswith(f"{first['Fused score (RRF)']:.3f}")
    bm25 = first["BM25 rank"]
    assert steps["BM25 rank"] == ("not found" if pd.isna(bm25) else f"#{bm25}")
    assert "min-max within this pool" in " ".join(path["Scale"])
    last = frame.iloc[-1]["uuid"]
    app.selectbox(key="scores.pick").set_value(last).run()
    no_errors(app)
    steps = dict(zip(app.dataframe[1].value["Step"], app.dataframe[1].value["Value"], strict=True))
    assert steps["Top k"] == "cut" and steps["Final rank"] == f"#{len(frame)}"


@pytest.mark.parametrize("page", ["app_pages/compare.py", "app_pages/scores.py"])
def test_changing_only_k_runs_no_new_retrieval(app: AppTest, page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.retrieval import retrieve

    calls: list[int] = []  # first stages run
    real = retrieve.search_recipe
    monkeypatch.setattr(retrieve, "search_recipe", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    ns = page.split("/")[1].removesuffix(".py")
    open_page(app, page)
    app.text_input(key=f"{ns}.q").input(QUERY).run()
    assert len(calls) == 1  # one first stage serves both sides of Compare
    for key in [f"{ns}.a.k", f"{ns}.b.k"] if ns == "compare" else [f"{ns}.k"]:
        app.slider(key=key).set_value(3).run()
    no_errors(app)
    assert len(calls) == 1


async def test_examples_come_from_the_latest_sweep_and_say_so(app: AppTest, lab: Lab, demo: str) -> None:
    result = await run_sweep(lab, SweepSpec(demo, (25,), (5,), ("none", "local"), limit_queries=12))
    exp_id = save_experiment(lab.store, result, "examples test sweep")
    try:
        swept = swept_examples(result, f"#{exp_id} 'examples test sweep'")
        assert swept  # the local re-scorer changes some of the first 12 labelled queries
        open_page(app, "app_pages/compare.py")
        picker = app.selectbox(key="compare.example")
        assert picker.label == "Examples where the last sweep saw reranking's effect"
        assert picker.options[1:] == [e.text for e in swept]  # biggest gain first
        picker.set_value(swept[0].text).run()
        no_errors(app)
        assert app.text_input(key="compare.q").value == swept[0].text
        # the sides are set to the setting the sweep measured: none vs local, N=25, k=5
        assert [app.selectbox(key=f"compare.{s}.reranker").value for s in "ab"] == ["none", "local"]
        assert [app.slider(key=f"compare.{s}.n").value for s in "ab"] == [25, 25]
        assert [app.slider(key=f"compare.{s}.k").value for s in "ab"] == [5, 5]
        notes = [shown(c.value) for c in app.caption]
        assert swept[0].note in notes
        gain = "lifts" if swept[0].delta > 0 else "lowers"
        assert (
            f"Reranking (graphiti-default + local, N=25, k=5) {gain} nDCG@10 by {swept[0].delta:+.2f}" in swept[0].note
        )
    finally:
        with lab.store.transaction() as conn:
            conn.execute("DELETE FROM experiments WHERE id = ?", (exp_id,))
