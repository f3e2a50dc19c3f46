"""The Loss X-ray page on the demo deal: from the first start it shows where the judged-relevant facts were lost
under graphiti's default and pure vector search, a table whose rows add up to the relevant facts (the same figures
as `lab.why`), what-ifs, example queries linked to Scores and Compare, and one query fact by fact."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from dashboard.why.view import HEADERS, SWEPT
from pipeline.evaluation.sweep import SweepSpec
from pipeline.retrieval.setting import setting
from pipeline.why.records import LOSS_STAGES
from pipeline.why.swept import SWEPT_SETTINGS
from tests.app.conftest import no_errors, open_page


def test_the_demo_x_ray_adds_up_and_matches_the_engine(app: AppTest, demo: str) -> None:
    open_page(app, "app_pages/why.py", demo)
    app.run(timeout=300)
    no_errors(app)
    counts_table, facts_table = app.dataframe  # the counts per setting, then one query's facts
    shown = counts_table.value
    chosen = [setting("graphiti-default", 50, "none", 10), setting("vector", 50, "none", 10)]
    # the dashboard's own Lab (same process), as the page ranks: it holds the deal's facts, which order facts tied
    # to the last digit by uuid where the graph's scan (the tests' Lab) keeps its own order
    report = runtime.run(runtime.get_lab().why.report(demo, chosen))
    assert list(shown.iloc[:, 0]) == [*(HEADERS[stage] for stage in LOSS_STAGES), "All judged-relevant facts"]
    for column, figures in zip(shown.columns[1:], report.settings, strict=True):
        assert column == figures.label
        counts = [int(n) for n in shown[column]]
        assert counts[:-1] == [figures.counts[stage] for stage in LOSS_STAGES]
        assert sum(counts[:-1]) == counts[-1] == figures.relevant
    said = " ".join(m.value for m in app.markdown)
    assert "What if N=100:" in said
    # example queries link to Scores and Compare under the setting
    links = [link for link in app.get("page_link")]
    assert any("scores.q" in str(link.proto) for link in links) and any(
        "compare.q" in str(link.proto) for link in links
    )
    # one query, fact by fact: every relevant fact of the chosen query under both settings
    facts = facts_table.value
    first = report.per_query[0]
    assert len(facts) == 2 * len(first.facts)


def test_the_controls_are_in_the_url_and_k_over_n_is_one_line(app: AppTest, demo: str) -> None:
    app.query_params["why.recipes"] = ["bm25"]
    app.query_params["why.n"] = "10"
    app.query_params["why.k"] = "20"
    open_page(app, "app_pages/why.py", demo)
    no_errors(app)
    assert app.multiselect(key="why.recipes").value == ["bm25"]
    assert any("Top-k (20) cannot exceed N (10)." in i.value for i in app.info)


def test_a_saved_sweep_is_x_rayed_with_its_own_settings(app: AppTest, demo: str) -> None:
    lab = runtime.get_lab()
    # a sweep of six settings on 12 queries: the X-ray takes the recommended one, the baseline and the best two
    spec = SweepSpec(demo, (25, 50), (5, 10), ("none", "local"), limit_queries=12)
    result = runtime.run(lab.evaluation.run_sweep(spec))
    experiment_id = lab.evaluation.save_experiment(result, "x-ray this sweep")
    app.query_params.update({"why.from": SWEPT, "why.experiment": str(experiment_id)})
    open_page(app, "app_pages/why.py", demo)
    app.run(timeout=300)
    no_errors(app)
    swept = runtime.run(lab.why.experiment_report(experiment_id))
    assert len(result.settings) == 8 and len(swept.settings) == SWEPT_SETTINGS == 4
    rec = result.recommendation()
    assert swept.settings[0].key == rec.key and result.baseline in {s.key for s in swept.settings}
    best = [s.key for s in sorted(result.settings, key=lambda s: -s.metrics[rec.metric])]
    rest = [key for key in best if key not in (rec.key, result.baseline)]
    assert {s.key for s in swept.settings} == {rec.key, result.baseline, *rest[: 4 - len({rec.key, result.baseline})]}
    said = " ".join(c.value for c in app.caption)
    assert "4 more settings of the sweep left out" in said, said
    counts = app.dataframe[0].value
    assert list(counts.columns[1:]) == [s.label for s in swept.settings]
    for column, figures in zip(counts.columns[1:], swept.report.settings, strict=True):
        assert [int(n) for n in counts[column]][-1] == figures.relevant
    assert swept.report.queries == sum(1 for q in result.queries if q in {q.query_id for q in swept.report.per_query})
    assert app.query_params["why.experiment"] == str(experiment_id)
